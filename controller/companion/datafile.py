"""Reading and checking the modes' TOML data files (``controller/companion/data/``).

Every problem is a :class:`~controller.core.errors.DataError` of one line naming the
file, the entry and the field. A script's ``"data"`` object overrides top-level keys
of a mode's file and is checked by the same rules (its source is the script).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.core.errors import DataError
from controller.core.tomlfile import read_toml

DATA_DIR = Path(__file__).resolve().parent / "data"


def read_mode_file(name: str, directory: Path | None = None) -> tuple[str, dict[str, Any]]:
    """``(path as text, parsed table)`` of ``<directory>/<name>.toml``."""
    path = (directory or DATA_DIR) / f"{name}.toml"
    return str(path), read_toml(path)


def merged(
    base: Mapping[str, Any], overrides: Mapping[str, Any] | None, source: str
) -> dict[str, Any]:
    """``base`` with ``overrides`` replacing whole top-level keys; unknown keys are errors."""
    out = dict(base)
    if overrides is None:
        return out
    if not isinstance(overrides, Mapping):
        raise DataError.single(source, "data", "", f"expected an object, got {overrides!r}")
    for key, value in overrides.items():
        if key not in base:
            known = ", ".join(sorted(base))
            raise DataError.single(source, "data", key, f"unknown field (known: {known})")
        out[key] = value
    return out


def check_keys(table: Mapping[str, Any], allowed: set[str], source: str, entry: str) -> None:
    """No key outside ``allowed`` (a typo is reported, not ignored)."""
    for key in table:
        if key not in allowed:
            raise DataError.single(source, entry, key, "unknown field")


def get_int(
    table: Mapping[str, Any],
    key: str,
    source: str,
    entry: str,
    lowest: int | None = None,
    highest: int | None = None,
) -> int:
    """``table[key]``, a whole number within ``[lowest, highest]``."""
    if key not in table:
        raise DataError.single(source, entry, key, "missing")
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, int):
        raise DataError.single(source, entry, key, f"expected a whole number, got {value!r}")
    if lowest is not None and value < lowest:
        raise DataError.single(source, entry, key, f"must be at least {lowest}, got {value}")
    if highest is not None and value > highest:
        raise DataError.single(source, entry, key, f"must be at most {highest}, got {value}")
    return value


def get_int_list(
    table: Mapping[str, Any],
    key: str,
    source: str,
    entry: str,
    length: int | None = None,
    lowest: int | None = None,
) -> tuple[int, ...]:
    """``table[key]``, a list of whole numbers (of ``length`` items, each >= ``lowest``)."""
    if key not in table:
        raise DataError.single(source, entry, key, "missing")
    value = table[key]
    if not isinstance(value, list):
        raise DataError.single(source, entry, key, f"expected a list, got {value!r}")
    if length is not None and len(value) != length:
        raise DataError.single(source, entry, key, f"expected {length} numbers, got {len(value)}")
    for i, item in enumerate(value):
        if isinstance(item, bool) or not isinstance(item, int):
            raise DataError.single(
                source, entry, f"{key}[{i}]", f"expected a whole number, got {item!r}"
            )
        if lowest is not None and item < lowest:
            raise DataError.single(
                source, entry, f"{key}[{i}]", f"must be at least {lowest}, got {item}"
            )
    return tuple(value)


def get_table(table: Mapping[str, Any], key: str, source: str, entry: str) -> Mapping[str, Any]:
    """``table[key]``, a table/object."""
    value = table.get(key)
    if not isinstance(value, Mapping):
        raise DataError.single(source, entry, key, f"expected a table, got {value!r}")
    return value
