"""The people at a table: each player's name and the person id the standings count them by.

A name is what the screens and the scoreboard show; two tables may both have an
"Ann". The person id is who she is for the evening's standings: the organiser
gives one (a club number, a badge) where the same person plays at several
tables, and without one a player is a person of that table only
(``TABLE_ID/NAME``), so two tables' "Ann" are never summed together.

Written ``NAME`` or ``NAME=PERSON_ID`` (``toptable demo --names "Ann Lee=ann,Bob"``,
``[events] players = ["Ann Lee=ann", "Bob"]``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from controller.publish.errors import PublishError

MAX_NAME = 20  # characters of a name (the table's screens are 128 px wide)
PERSON_ID_RE = re.compile(r"[A-Za-z0-9._-]{1,32}")


class PlayerNameError(PublishError, ValueError):
    """A player entry that is not ``NAME`` or ``NAME=PERSON_ID``."""


@dataclass(frozen=True)
class Person:
    """One player: the name shown and, if the organiser gave one, the person id."""

    name: str
    person_id: str | None = None

    def __str__(self) -> str:
        return self.name if self.person_id is None else f"{self.name}={self.person_id}"


def parse_person(text: str) -> Person:
    """``NAME`` or ``NAME=PERSON_ID``.

    Raises:
        PlayerNameError: an empty or too long name, a name with control characters,
            or a person id that is not 1..32 of A-Z a-z 0-9 . _ -.
    """
    name, sep, pid = text.partition("=")
    name = name.strip()
    if not name or len(name) > MAX_NAME or not name.isprintable() or "," in name:
        raise PlayerNameError(
            f"player {text[:40]!r}: a name must be 1..{MAX_NAME} printable characters, no ','"
        )
    if not sep:
        return Person(name)
    pid = pid.strip()
    if PERSON_ID_RE.fullmatch(pid) is None:
        raise PlayerNameError(
            f"player {text[:40]!r}: a person id must be 1..32 letters, digits, '.', '_' or '-'"
        )
    return Person(name, pid)


def parse_people(entries: Iterable[str]) -> tuple[Person, ...]:
    """Every entry parsed; names must differ.

    Raises:
        PlayerNameError: a bad entry, or two players of one name or one person id.
    """
    people = tuple(parse_person(e) for e in entries)
    names = [p.name for p in people]
    if len(set(names)) != len(names):
        raise PlayerNameError(f"two players are called {_twice(names)!r}")
    ids = [p.person_id for p in people if p.person_id is not None]
    if len(set(ids)) != len(ids):
        raise PlayerNameError(f"two players have the person id {_twice(ids)!r}")
    return people


def _twice(items: list[str]) -> str:
    return next(x for i, x in enumerate(items) if x in items[:i])


def person_ids(people: Iterable[Person]) -> dict[str, str]:
    """name -> person id, for the players the organiser gave an id."""
    return {p.name: p.person_id for p in people if p.person_id is not None}


def person_id(table_id: str, name: str, ids: Mapping[str, str] | None) -> str:
    """The person id of the player called ``name`` at ``table_id``."""
    if ids is not None and name in ids:
        return ids[name]
    return f"{table_id}/{name}"
