"""Reading a TOML data or config file, with errors that name the file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from controller.core.errors import DataError
from controller.core.textfile import read_text, unparsable


def read_toml(path: str | Path, missing: str | None = None) -> dict[str, Any]:
    """Read and parse one TOML file.

    ``missing`` replaces the message for a file that does not exist (e.g. a hint
    saying where an example is).

    Raises:
        DataError: the file is missing or unreadable, not UTF-8 text, starts with a
            byte-order mark, is not valid TOML, nests too deeply or holds a number too
            long to convert.
    """
    text = read_text(path, missing)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError.single(str(path), "", "", f"not valid TOML: {exc}") from None
    except (RecursionError, ValueError) as exc:  # tomllib's own errors are ValueErrors too
        raise DataError.single(str(path), "", "", f"not valid TOML: {unparsable(exc)}") from None
