"""Game data files (warriors, board, cards, story squares): where they live, how they load.

Owns: every data file's reader and its checks (one problem collector,
:mod:`controller.core.checked`), the card types, the board layout, combat
scenarios, :func:`~controller.gamedata.bundle.load_game_data` and whole data
directories (:mod:`~controller.gamedata.datadir`: check, and `toptable data init`).
May import: controller.core and controller.rules.
"""

from __future__ import annotations

import os
from pathlib import Path

from controller.core.errors import DataError

BUNDLED = Path(__file__).resolve().parent.parent / "data"
DEMO_DIR = BUNDLED / "demo"
RULEBOOK_DIR = BUNDLED / "rulebook"
ENV_VAR = "TOPTABLE_DATA"


def data_dir(arg: str | Path | None = None) -> Path:
    """The data directory to use: ``arg``, else ``$TOPTABLE_DATA``, else the bundled demo set.

    Raises:
        DataError: the directory does not exist (the variable named when it chose it), or
            the variable is set but empty (it would have meant the current folder).
    """
    if arg is not None:
        chosen, source = Path(arg), ""
    elif (env := os.environ.get(ENV_VAR)) is not None:
        if not env.strip():
            raise DataError.single(
                f"${ENV_VAR}",
                "",
                "",
                "set but empty: name a data folder, or unset it for the bundled demo set",
            )
        chosen, source = Path(env), f" (named by ${ENV_VAR})"
    else:
        chosen, source = DEMO_DIR, ""
    if not chosen.is_dir():
        raise DataError.single(str(chosen), "", "", f"data directory not found{source}")
    return chosen


def data_file(directory: Path, name: str) -> Path:
    """``directory/name``.

    Raises:
        DataError: the file is missing.
    """
    path = directory / name
    if not path.is_file():
        raise DataError.single(str(path), "", "", f"missing: a data directory needs {name}")
    return path
