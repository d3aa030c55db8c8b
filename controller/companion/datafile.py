"""Reading and checking the modes' TOML data files (``controller/companion/data/``).

A mode's loader takes the file (and a script's overrides) from :func:`mode_data` and
checks each value with the one problem collector, :class:`~controller.core.checked.Problems`:
every problem is reported at once, each naming the file, the entry and the field. A
script's ``"data"`` object overrides top-level keys of a mode's file and is checked by
the same rules (its problems then name the script).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.core.checked import Problems
from controller.core.tomlfile import read_toml

DATA_DIR = Path(__file__).resolve().parent / "data"
ENTRY = "data"
"""How messages name the entry of a mode's data (the file's top level, or a script's ``data``)."""


def read_mode_file(name: str, directory: Path | None = None) -> tuple[str, dict[str, Any]]:
    """``(path as text, parsed table)`` of ``<directory>/<name>.toml``.

    Raises:
        DataError: the file is missing or not TOML.
    """
    path = (directory or DATA_DIR) / f"{name}.toml"
    return str(path), read_toml(path)


def mode_data(
    name: str, overrides: Mapping[str, Any] | None, source: str
) -> tuple[dict[str, Any], Problems]:
    """The mode's data file ``name`` with a script's ``overrides``, and the collector its
    checks report to (it names the script ``source`` when there are overrides, else the file).

    Raises:
        DataError: the file is missing or not TOML.
    """
    path, table = read_mode_file(name)
    problems = Problems(source if overrides else path)
    return merged(table, overrides, problems), problems


def merged(
    base: Mapping[str, Any], overrides: Mapping[str, Any] | None, problems: Problems
) -> dict[str, Any]:
    """``base`` with ``overrides`` replacing whole top-level keys; an override that is not an
    object, or names a key ``base`` does not have, is a problem (and is left out)."""
    out = dict(base)
    if overrides is None:
        return out
    if not isinstance(overrides, Mapping):
        problems.add(ENTRY, "", f"expected an object, got {overrides!r}")
        return out
    problems.unknown_keys(overrides, base.keys(), ENTRY)
    out.update((key, value) for key, value in overrides.items() if key in base)
    return out


def whole_number(
    table: Mapping[str, Any],
    key: str,
    problems: Problems,
    lowest: int | None = None,
    highest: int | None = None,
) -> int | None:
    """``table[key]``, a whole number within ``[lowest, highest]`` (None: a problem noted)."""
    return problems.whole_number(table.get(key), ENTRY, key, lowest, highest)
