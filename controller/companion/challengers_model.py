"""Challengers!' data, state and actions: frozen dataclasses, no rules (see :mod:`.challengers`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from controller.companion.base import CompanionAction, Player, Within
from controller.companion.datafile import MAX_COUNT
from controller.core.errors import UnknownNameError
from controller.core.quoting import short_repr

Round = Annotated[int, Within(None, MAX_COUNT + 1)]
"""A round named by an action: a data file's ``rounds`` is at most
:data:`~controller.companion.datafile.MAX_COUNT`, and the final is asked for as round
``rounds + 1``; the rules refuse any but the round being played."""
FanCount = Annotated[int, Within(None, MAX_COUNT)]
"""Fans collected at once: a count the fragment of the text does not bound
(:data:`~controller.companion.datafile.MAX_COUNT`, as a Trophy's fans); the rule
``R_AMOUNT`` refuses one under 1."""


@dataclass(frozen=True)
class ChallengersData:
    """The mode's numbers (trophy fans are invented, see the data file)."""

    rounds: int
    min_players: int
    max_players: int
    trophy_fans: tuple[int, ...]


@dataclass(frozen=True)
class Trophy:
    """A Trophy: the round it was won in and the fans on its back."""

    round: int
    fans: int


@dataclass(frozen=True)
class Contender:
    """One player's numbers."""

    name: str
    fan_cards: int = 0
    trophies: tuple[Trophy, ...] = ()

    @property
    def fans(self) -> int:
        """Every fan that counts after round 7: collected ones and the Trophies' backs."""
        return self.fan_cards + sum(t.fans for t in self.trophies)

    @property
    def best_round(self) -> int:
        """The highest round of a Trophy held (0 without Trophies)."""
        return max((t.round for t in self.trophies), default=0)

    @property
    def rounds_high_first(self) -> tuple[int, ...]:
        """The rounds of the Trophies held, the highest first."""
        return tuple(sorted((t.round for t in self.trophies), reverse=True))


@dataclass(frozen=True)
class ChallengersState:
    """The tournament as the table knows it."""

    data: ChallengersData
    players: tuple[Contender, ...]
    round: int = 1  # rounds + 1 once the seven rounds are over (the final)
    played: tuple[str, ...] = ()  # who played in the current round
    first_players: tuple[str, ...] = ()
    finalists: tuple[str, str] | None = None
    final_begun: bool = False  # who begins the final was asked: the fans are counted
    winner: str | None = None
    rules_revision: int = 1

    def player(self, name: str) -> Contender:
        """The numbers of ``name``."""
        for p in self.players:
            if p.name == name:
                return p
        raise UnknownNameError(f"no player {short_repr(name)} in this game")


@dataclass(frozen=True)
class Match(CompanionAction):
    """A match's result."""

    DO = "match"
    round: Round
    winner: Player
    loser: Player


@dataclass(frozen=True)
class Fans(CompanionAction):
    """A player collects fans."""

    DO = "fans"
    player: Player
    amount: FanCount


@dataclass(frozen=True)
class FirstPlayer(CompanionAction):
    """Ask who begins a match."""

    DO = "first_player"
    round: Round
    players: tuple[Player, ...]


@dataclass(frozen=True)
class Final(CompanionAction):
    """The final's result."""

    DO = "final"
    winner: Player


ChallengersAction = Match | Fans | FirstPlayer | Final
ACTIONS: dict[str, type[Any]] = {c.DO: c for c in (Match, Fans, FirstPlayer, Final)}
