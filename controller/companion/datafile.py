"""Reading and checking the modes' TOML data files (``controller/companion/data/``).

A mode's loader takes the file (and a script's overrides) from :func:`mode_data` and
checks each value with the one problem collector, :class:`~controller.core.checked.Problems`:
every problem is reported at once, each naming the file, the entry and the field. A
script's ``"data"`` object overrides top-level keys of a mode's file and is checked by
the same rules (its problems then name the script).

Every whole number has both bounds: a value a table cannot play (a billion Dragon Balls
to list, more players than seats) is refused when the data is read, not met later at
the table. A number bounded by another of the same data (``start_level`` by ``levels``,
``min_players`` by ``max_players``) is read with :func:`at_most`, whose problem names both.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.core.checked import Problems
from controller.core.quoting import short_repr
from controller.core.tomlfile import read_toml

DATA_DIR = Path(__file__).resolve().parent / "data"
ENTRY = "data"
"""How messages name the entry of a mode's data (the file's top level, or a script's ``data``)."""

MAX_PLAYERS = 8
"""The most players a mode's data may seat (``min_players``, ``max_players``): Challengers!'
8 (``data/challengers.toml``: its box), the most any mode's file ships. Each player is a
seat line on the status screen and a name in the lists the table offers (a match's
loser, an attack's target)."""

MAX_COUNT = 99
"""The most a count may be that neither a rule text nor a deck bounds (Levels, Power
Stages, Anger to a Level, an attack's stages of damage, rounds, a Trophy's fans, a
champion's cost step): two digits, as the seats' lines on the 128-px screens have room
for, every number of a player on one line (``1/7 A2 L41 DB3``, ``F9 T3``, ``L16 E1 C+2``).
The texts' own are far below it (4 Levels, 10 stages, 5 Anger, 7 rounds, a step of 2),
which leaves room for house rules."""


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
        problems.add(ENTRY, "", f"expected an object, got {short_repr(overrides)}")
        return out
    problems.unknown_keys(overrides, base.keys(), ENTRY)
    out.update((key, value) for key, value in overrides.items() if key in base)
    return out


def whole_number(
    table: Mapping[str, Any], key: str, problems: Problems, lowest: int, highest: int
) -> int | None:
    """``table[key]``, a whole number within ``lowest..highest`` (None: a problem noted)."""
    return problems.whole_number(table.get(key), ENTRY, key, lowest, highest)


def at_most(
    table: Mapping[str, Any],
    key: str,
    problems: Problems,
    bounds: tuple[int, int],
    other: str,
    limit: int | None,
) -> int | None:
    """``table[key]``, a whole number within ``bounds`` and no more than ``limit``, the value
    of the field ``other`` (``limit`` None: that field is wrong, its problem noted already).
    Past ``limit``, the problem names both fields. None: a problem noted."""
    lowest, highest = bounds
    value = whole_number(table, key, problems, lowest, highest)
    if value is None or limit is None or value <= limit:
        return value
    problems.add(
        ENTRY, key, f"expected a whole number {lowest}..{limit}, got {value} (at most {other})"
    )
    return None
