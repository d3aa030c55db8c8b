"""The Tournament of Power mode's data, state and actions (rule text 002)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from controller.companion.base import CompanionAction, DieRoll, Player, Within
from controller.companion.datafile import MAX_COUNT, MAX_PLAYERS, at_most, mode_data, whole_number
from controller.core.errors import UnknownNameError
from controller.core.kinds import GameKind
from controller.core.quoting import short_repr

KIND = GameKind.DBS_TOURNAMENT
RULES_REVISION = 2
"""The mode's rules revision (recorded in each journal; a game replays by its own):
1. as first built; 2. a [Counter: Attack] window is ordered only for an attack the rules
allow (rule text 002 l.73 and the turn order: the turn player attacks a player who has
taken their first turn)."""
MAIN_DECK = 99
"""Rule text 002, Deck Size: "99 card main deck"; life is dealt from it, so no more."""
LifeLost = Annotated[int, Within(None, MAIN_DECK)]
"""Life lost at once: no more than a life may be (:data:`MAIN_DECK`); under 1 the rule
``R_AMOUNT`` refuses."""
Cost = Annotated[int, Within(None, MAX_COUNT)]
"""A card's energy cost: a count no text bounds (:data:`MAX_COUNT`); under 0 the rule
``R_AMOUNT`` refuses."""


class Step(enum.Enum):
    """Where the game is."""

    ROLL = "roll"
    CHOOSE_FIRST = "choose_first"
    TURN = "turn"
    OVER = "over"


class CounterKind(enum.Enum):
    """What the table orders the players' answers to: the two kinds of [Counter] window,
    and a Choice Skill's "then your opponent may" (rule text 002 l.46-48: every opponent
    decides, in turn order)."""

    PLAY = "play"
    ATTACK = "attack"
    CHOICE = "choice"


@dataclass(frozen=True)
class DbsData:
    """The mode's numbers (from rule text 002 but ``max_players``, the table's own)."""

    life: int = 16
    min_players: int = 2
    max_players: int = 8
    champion_cost_step: int = 2


@dataclass(frozen=True)
class Seat:
    """One player's numbers."""

    name: str
    life: int
    energy_markers: int = 0
    draws_first_turn: bool | None = None
    eliminated: bool = False
    first_turn_taken: bool = False
    champion_in_zone: bool = True
    champion_returns: int = 0


@dataclass(frozen=True)
class DbsState:
    """The whole game as the table knows it."""

    data: DbsData
    seats: tuple[Seat, ...]
    step: Step = Step.ROLL
    rolling: tuple[str, ...] = ()
    chooser: str | None = None
    first_player: str | None = None
    turn: str | None = None
    winner: str | None = None
    eliminated: tuple[str, ...] = ()
    counter_orders: tuple[tuple[str, ...], ...] = ()
    champion_costs: tuple[int, ...] = ()
    attacks: tuple[tuple[str, str], ...] = ()
    rules_revision: int = 1

    def seat(self, name: str) -> Seat:
        """The seat of ``name``."""
        for s in self.seats:
            if s.name == name:
                return s
        raise UnknownNameError(f"no player {short_repr(name)} in this game")

    @property
    def names(self) -> tuple[str, ...]:
        """Every player, in seat (clockwise) order."""
        return tuple(s.name for s in self.seats)

    @property
    def live(self) -> tuple[str, ...]:
        """The players still in, in seat order."""
        return tuple(s.name for s in self.seats if not s.eliminated)


# --- actions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Roll(CompanionAction):
    """The dice rolled to decide who picks the first player."""

    DO = "roll"
    values: tuple[tuple[Player, DieRoll], ...]


@dataclass(frozen=True)
class ChooseFirst(CompanionAction):
    """The highest roller names the first player."""

    DO = "choose_first"
    player: Player


@dataclass(frozen=True)
class EndTurn(CompanionAction):
    """The turn player ends their turn."""

    DO = "end_turn"


@dataclass(frozen=True)
class AttackDeclared(CompanionAction):
    """The turn player declares an attack on another player."""

    DO = "attack"
    attacker: Player
    target: Player


@dataclass(frozen=True)
class Damage(CompanionAction):
    """A player loses life."""

    DO = "damage"
    player: Player
    amount: LifeLost


@dataclass(frozen=True)
class DeckOut(CompanionAction):
    """A player's deck is empty."""

    DO = "deck_out"
    player: Player


@dataclass(frozen=True)
class CounterOrder(CompanionAction):
    """Ask in which order a [Counter] window is offered."""

    DO = "counter_order"
    kind: CounterKind
    by: Player
    target: Player | None = None


@dataclass(frozen=True)
class ChampionPlay(CompanionAction):
    """A player plays their champion from the Champion Zone."""

    DO = "champion_play"
    player: Player
    base_cost: Cost


@dataclass(frozen=True)
class ChampionReturn(CompanionAction):
    """A player's champion goes back to the Champion Zone."""

    DO = "champion_return"
    player: Player


DbsAction = (
    Roll | ChooseFirst | EndTurn | AttackDeclared | Damage | DeckOut | CounterOrder | ChampionPlay
) | ChampionReturn
ACTIONS: dict[str, type[Any]] = {
    c.DO: c
    for c in (
        Roll,
        ChooseFirst,
        EndTurn,
        AttackDeclared,
        Damage,
        DeckOut,
        CounterOrder,
        ChampionPlay,
        ChampionReturn,
    )
}


# --- data and setup --------------------------------------------------------------------


def load_data(overrides: Mapping[str, Any] | None = None, source: str = "script") -> DbsData:
    """The mode's data file, with a script's overrides.

    Raises:
        DataError: every problem of the file or the overrides.
    """
    table, problems = mode_data("dbs_tournament", overrides, source)
    life = whole_number(table, "life", problems, 1, MAIN_DECK)
    max_players = whole_number(table, "max_players", problems, 2, MAX_PLAYERS)
    seats = (2, MAX_PLAYERS)
    min_players = at_most(table, "min_players", problems, seats, "max_players", max_players)
    cost_step = whole_number(table, "champion_cost_step", problems, 0, MAX_COUNT)
    return DbsData(
        life=problems.checked(life),
        min_players=problems.checked(min_players),
        max_players=problems.checked(max_players),
        champion_cost_step=problems.checked(cost_step),
    )
