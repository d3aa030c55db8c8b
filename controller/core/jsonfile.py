"""Reading a JSON file (a scenario, a script, a screen state), with errors that name the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.core.errors import DataError
from controller.core.textfile import read_text, unparsable


def read_json(path: str | Path) -> Any:
    """Read and parse one JSON file.

    Raises:
        DataError: the file is missing or unreadable, not UTF-8 text, starts with a
            byte-order mark, is not valid JSON (with the line and column), names a key
            twice in one object (``json`` would keep the last silently), nests deeper
            than Python's recursion allows, or holds a number of more digits than Python
            converts (``sys.get_int_max_str_digits``).
    """
    text = read_text(path)
    try:
        return json.loads(text, object_pairs_hook=_once_each)
    except json.JSONDecodeError as exc:
        raise DataError.single(
            str(path), f"line {exc.lineno} column {exc.colno}", "", f"not valid JSON: {exc.msg}"
        ) from None
    except _RepeatedKeyError as exc:
        raise DataError.single(str(path), "", str(exc), "named twice in one object") from None
    except (RecursionError, ValueError) as exc:
        raise DataError.single(str(path), "", "", f"not valid JSON: {unparsable(exc)}") from None


class _RepeatedKeyError(ValueError):
    """A key named twice in one JSON object (its message: the key)."""


def _once_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _RepeatedKeyError(key)
        out[key] = value
    return out
