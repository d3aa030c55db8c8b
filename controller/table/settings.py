"""The ``[table]`` config section: the game played at this table, and where its journal is.

The table package owns it because the table owns the game: the daemon sets up
(or resumes) the game these settings describe. :func:`parse_table` reads the
section for :mod:`controller.config`. The game's length is the game's own
:class:`~controller.game.state.Length` and the variants are the rules'
names, so there is one definition of each.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from controller.core.config_schema import (
    InvalidOptionError,
    Section,
    boolean,
    choice,
    did_you_mean,
    integer,
    path_in,
    shown,
)
from controller.game.state import Length
from controller.rules.variants import Variants

DEFAULT_JOURNAL = Path("/var/lib/toptable/journal.sqlite")
PLAYERS = (2, 4)
"""Players at the table: one seat LED and team screen each, four at most."""


class TableMode(StrEnum):
    """The game the table keeps: the dice game, or a companion mode (:mod:`controller.companion`)."""

    TOPDICE = "topdice"
    DBS_TOURNAMENT = "dbs-tournament"
    DBZ_TCG = "dbz-tcg"
    CHALLENGERS = "challengers"


@dataclass(frozen=True)
class TableConfig:
    """[table]: the game played at this table."""

    mode: TableMode = TableMode.TOPDICE
    players: int = 2
    length: Length = Length.ROUNDS10
    variants: tuple[str, ...] = ()
    data_dir: Path | None = None  # None: the bundled rulebook data
    journal: Path = DEFAULT_JOURNAL
    story: bool = False  # the dice game's Story mode (RULES.md §12) instead of the Tournament


def _variants(value: Any) -> tuple[str, ...]:
    known = Variants.names()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidOptionError(f"must be a list of variant names (got {shown(value)})")
    wrong = [v for v in value if v not in known]
    if wrong:
        raise InvalidOptionError(
            f"has unknown variant {wrong[0]!r}{did_you_mean(wrong[0], known)}; "
            f"must be any of {', '.join(known)}"
        )
    return tuple(dict.fromkeys(value))


def parse_table(s: Section) -> TableConfig:
    """The [table] section; its problems are noted in ``s``."""
    d = TableConfig()
    return TableConfig(
        mode=s.get("mode", d.mode, choice(TableMode)),
        players=s.get("players", d.players, integer(*PLAYERS)),
        length=s.get("length", d.length, choice(Length)),
        variants=s.get("variants", d.variants, _variants),
        data_dir=s.get("data_dir", d.data_dir, path_in(s.base_dir)),
        journal=s.get("journal", d.journal, path_in(s.base_dir)),
        story=s.get("story", d.story, boolean),
    )
