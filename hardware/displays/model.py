"""The presentation model the screens draw: :class:`TableView`, a frozen snapshot.

The screens never see the game engine: the daemon fills a :class:`TableView`
from the game state, and :func:`~hardware.displays.view_json.load_view` reads
one from JSON. Every field is plain data.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from controller.core.symbols import AttackSpeed, Defence, Symbol


class PromptKind(StrEnum):
    """What the table is asking a player."""

    CONFIRM_READ = "confirm_read"
    RETHROW = "rethrow"
    CHOOSE_MOVE = "choose_move"
    MAPPING = "mapping"
    CHOOSE = "choose"  # any other choice; ``title`` names it


@dataclass(frozen=True)
class Clock:
    """Round ``round_no`` of ``rounds`` (None: a timed game), the time left if timed, and
    the extra round of a tie being played (1 to
    :data:`~controller.core.game_limits.MAX_EXTRA_ROUNDS`, None: none).

    ``extra_round`` is the engine's count as the table hands it over
    (:func:`~controller.core.game_limits.extra_round`), never worked out from the round:
    a 45-minute game has no last round to count past. A view from before the field has
    none."""

    round_no: int
    rounds: int | None = None
    seconds_left: int | None = None
    extra_round: int | None = None


@dataclass(frozen=True)
class FighterView:
    """A warrior in the combat on show; ``form`` is None in base form."""

    name: str
    endurance_left: int
    endurance_max: int
    form: str | None = None


@dataclass(frozen=True)
class AttackOption:
    """One way to score the dice (a combo or the symbol sum) and its damage."""

    label: str
    damage: int
    best: bool = False


@dataclass(frozen=True)
class AdviceView:
    """The advisor's hint: dice to keep, chance to eliminate, expected damage; in a Story
    attempt, the chance of taking the square instead of a knock-out."""

    keep: tuple[Symbol, ...] = ()
    ko_chance: float | None = None
    expected_damage: float | None = None
    win_chance: float | None = None


@dataclass(frozen=True)
class CombatView:
    """The fight in progress: who, the dice read, what they are worth, what may answer."""

    attacker: FighterView
    defender: FighterView
    dice: tuple[Symbol, ...] = ()
    roll_no: int = 1
    rolls_max: int = 1
    options: tuple[AttackOption, ...] = ()
    speed: AttackSpeed | None = None
    defences: tuple[Defence, ...] = ()  # the answers allowed; empty: none
    advice: AdviceView | None = None

    @property
    def best(self) -> AttackOption | None:
        """The option marked best, else the one with the most damage, else None."""
        marked = [o for o in self.options if o.best]
        if marked:
            return marked[0]
        return max(self.options, key=lambda o: o.damage, default=None)


@dataclass(frozen=True)
class SeatView:
    """A player at the table: warriors still on the board and cards in hand (in Story
    mode: the player's victory points instead of warriors)."""

    name: str
    warriors_left: int
    warriors_total: int
    cards_in_hand: int = 0
    victory_points: int | None = None  # Story mode only (None: a Tournament game)


@dataclass(frozen=True)
class Prompt:
    """A question on screen; ``selected`` indexes ``choices``.

    ``dice`` shows a read for CONFIRM_READ and RETHROW (``die_index`` marks the
    cocked die, the doubted one, or the one being entered; ``marked``, the read's
    other doubted dice); ``step``/``steps`` count the mapping wizard's progress.
    """

    kind: PromptKind
    text: str
    choices: tuple[str, ...] = ()
    selected: int = 0
    dice: tuple[Symbol, ...] = ()
    die_index: int | None = None
    marked: tuple[int, ...] = ()
    step: int | None = None
    steps: int | None = None
    title: str = ""  # overrides the kind's title bar when set


@dataclass(frozen=True)
class Fault:
    """A device problem that stays on screen until the daemon clears it."""

    source: str
    message: str


@dataclass(frozen=True)
class TableView:
    """Everything the screens show, as of one moment. ``seat`` indexes ``seats``."""

    turn: int
    seat: int
    player: str
    clock: Clock
    phase: str
    seats: tuple[SeatView, ...] = ()
    combat: CombatView | None = None
    prompt: Prompt | None = None
    faults: tuple[Fault, ...] = field(default_factory=tuple)
    over: bool = False  # the game is over: ``phase`` names the winners, no seat plays
