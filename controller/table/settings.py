"""The ``[table]`` config section: the game played at this table, and where its journal is.

The table package owns it because the table owns the game: the daemon sets up
(or resumes) the game these settings describe. :func:`parse_table` reads the
section for :mod:`controller.config`. The game is a
:class:`~controller.core.kinds.GameKind`, its length the game's own
:class:`~controller.game.state.Length` and the variants the rules' names, so there
is one definition of each.

``mode`` takes the game kinds' values. The first spelling of the dice game,
``mode = "topdice"`` with ``story = true`` for its Story mode
(:data:`LEGACY_OPTIONS`), is still read: ``topdice`` is the Tournament, ``story =
true`` makes it the Story mode, and ``story`` beside any other mode is a problem
naming both options.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
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
from controller.core.kinds import GameKind
from controller.core.quoting import short_repr
from controller.game.state import Length
from controller.rules.variants import RETIRED, Variants

DEFAULT_JOURNAL = Path("/var/lib/toptable/journal.sqlite")
PLAYERS = (2, 4)
"""Players at the table: one seat LED and team screen each, four at most."""
PLAYER_NAMES = tuple(f"Player {seat}" for seat in range(1, 9))
"""The players' names on the screens, by seat (the daemon's and the demo's)."""


TOPDICE = "topdice"
"""The first name of the dice game in ``[table] mode``: the Tournament (or, with
``story = true``, the Story mode)."""
LEGACY_OPTIONS = frozenset({"story"})
"""Options of the first spelling, still read, that are no field of :class:`TableConfig`."""


@dataclass(frozen=True)
class TableConfig:
    """[table]: the game played at this table."""

    mode: GameKind = GameKind.TOURNAMENT
    players: int = 2
    length: Length = Length.ROUNDS10
    variants: tuple[str, ...] = ()
    data_dir: Path | None = None  # None: the bundled demo set (invented values; TOPTABLE_DATA)
    journal: Path = DEFAULT_JOURNAL

    @property
    def game_journal(self) -> Path:
        """The journal the table's game is kept in: ``journal`` for the dice game, else
        the companion mode's ``companion-MODE.sqlite`` beside it."""
        if self.mode.plays_dice:
            return self.journal
        return self.journal.with_name(self.mode.companion_journal_name)


def _variants(value: Any) -> tuple[str, ...]:
    known = Variants.names()
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise InvalidOptionError(f"must be a list of variant names (got {shown(value)})")
    wrong = [v for v in value if v not in known and v not in RETIRED]  # retired: no effect
    if wrong:
        raise InvalidOptionError(
            # a near miss of a retired name means it, not the rule that replaced it
            f"has unknown variant {short_repr(wrong[0])}"
            f"{did_you_mean(wrong[0], (*known, *RETIRED))}; "
            f"must be any of {', '.join(known)}"
        )
    return tuple(dict.fromkeys(value))


def _mode(value: Any) -> GameKind | None:
    """A game kind's name, or None for the first spelling of the dice game (``topdice``)."""
    if value == TOPDICE:
        return None
    return choice(GameKind)(value)


def _kind(s: Section, mode: GameKind | None, story: bool | None) -> GameKind:
    """``mode`` (None: left out, or the first spelling ``topdice``) with the first
    spelling's ``story`` folded in (a contradiction is noted)."""
    if mode is None:
        return GameKind.STORY if story else TableConfig.mode
    if story is None or story == (mode is GameKind.STORY):
        return mode
    s.problem(
        "story",
        f"says {'' if story else 'not '}the dice game's Story mode, but mode is "
        f"{shown(mode.value)}: leave story out (mode alone names the game)",
    )
    return mode


def parse_table(s: Section) -> TableConfig:
    """The [table] section; its problems are noted in ``s``."""
    d = TableConfig()
    mode = s.get("mode", None, _mode)
    table = TableConfig(
        players=s.get("players", d.players, integer(*PLAYERS)),
        length=s.get("length", d.length, choice(Length)),
        variants=s.get("variants", d.variants, _variants),
        data_dir=s.get("data_dir", d.data_dir, path_in(s.base_dir)),
        journal=s.get("journal", d.journal, path_in(s.base_dir)),
    )
    return replace(table, mode=_kind(s, mode, s.get("story", None, boolean)))
