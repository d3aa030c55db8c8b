"""Reading a TOML data or config file, with errors that name the file."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from controller.core.errors import DataError


def read_toml(path: str | Path, missing: str | None = None) -> dict[str, Any]:
    """Read and parse one TOML file.

    ``missing`` replaces the message for a file that does not exist (e.g. a hint
    saying where an example is).

    Raises:
        DataError: the file is missing or unreadable, not UTF-8 text, or not valid TOML.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        message = missing or f"cannot read: {exc.strerror}"
        raise DataError.single(str(path), "", "", message) from None
    except OSError as exc:
        raise DataError.single(str(path), "", "", f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise DataError.single(str(path), "", "", f"not UTF-8 text (byte {exc.start})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise DataError.single(str(path), "", "", f"not valid TOML: {exc}") from None
