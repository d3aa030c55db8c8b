"""Reading a JSON file (a scenario, a script, a screen state), with errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.core.errors import DataError
from controller.core.textfile import read_text


def read_json(path: str | Path) -> Any:
    """Read and parse one JSON file.

    Raises:
        DataError: the file is missing or unreadable, not UTF-8 text, starts with a
            byte-order mark, or is not valid JSON (with the line and column).
    """
    text = read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise DataError.single(
            str(path), f"line {exc.lineno} column {exc.colno}", "", f"not valid JSON: {exc.msg}"
        ) from None
