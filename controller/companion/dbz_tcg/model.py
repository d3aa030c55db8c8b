"""The Dragon Ball Z TCG mode's data, state and actions (rule text 003)."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Annotated, Any

from controller.companion.base import CompanionAction, Player, Within
from controller.companion.datafile import ENTRY, MAX_COUNT, at_most, mode_data, whole_number
from controller.companion.entry import POWER_LEVELS
from controller.core.checked import Problems, name_problem
from controller.core.errors import UnknownNameError
from controller.core.kinds import GameKind
from controller.core.quoting import short_repr

KIND = GameKind.DBZ_TCG
RULES_REVISION = 3
"""The mode's rules revision (recorded in each journal; a game replays by its own):

1. as first built;
2. rule text 003 l.150: declaring combat makes the defender draw three cards
   (``combat_draw_cards``), and l.110-112: the Planning Step ends with the PUR gain, so
   combat, rejuvenating and the turn's end wait for the ``pur`` (of 0 for none);
3. rule text 003 l.189: an unstopped attack's "Hit" effects come before its critical
   damage choice, so the choice stays open through them (Anger, stages gained, cards
   drawn, Dragon Balls) and closes at the next attack (its cost or its damage), at the
   turn's end or when made; the attacker is offered its other actions beside it (l.191:
   "you may")."""
DECK = 60
"""Rule text 003: "exactly 60 other cards" beside the Main Personality and Mastery; the
Life Deck is made of them, so it holds no more. It bounds the counts of cards (the Life
Deck; the cards drawn, held, or discarded for a critical are drawn or discarded from it)
and the Dragon Balls: each is a card of a Life Deck, one copy of each ("You may include
only one copy of any given Dragon Ball"), and the Planning Step offers every number not
on the table in one list."""
MAX_BRACKETS = len(POWER_LEVELS)
"""The most Power Level brackets an attack table may have: the text has six (A-F); the
buttons offer seven power levels (:data:`~controller.companion.entry.POWER_LEVELS`, at
least one in each shipped bracket), so a table with more brackets has one that no power
level the buttons enter falls in."""
MAX_FLOOR = POWER_LEVELS[-1]
"""The highest floor a bracket may have: the highest power level the buttons enter
(:data:`~controller.companion.entry.POWER_LEVELS`); a bracket starting above it is one the
table can never enter. The shipped top floor is 50,000,000."""
Cards = Annotated[int, Within(None, DECK)]
"""Cards drawn or lost at once, and a Dragon Ball's number: no more than a Life Deck
holds (:data:`DECK`); the rules refuse one under 1 (``R_AMOUNT``, ``R_DRAGON_BALL``)."""
Stages = Annotated[int, Within(None, MAX_COUNT)]
"""Power Stages gained, lost or paid at once: a data file's ``max_stages`` is at most
:data:`~controller.companion.datafile.MAX_COUNT`, and damage past it a count no text
bounds; the rule ``R_AMOUNT`` refuses one under 1 (under 0 for a PUR)."""
LevelChange = Annotated[int, Within(-MAX_COUNT, MAX_COUNT)]
"""Levels a card's effect advances (or lowers) a Main Personality at once: the rule
``R_LEVEL`` keeps the Level within the data file's ``levels``."""
AngerChange = Annotated[int, Within(-MAX_COUNT, MAX_COUNT)]
"""Anger raised (or lowered) at once: a data file's ``anger_to_level`` is at most
:data:`~controller.companion.datafile.MAX_COUNT`, and Anger stays within 0..it."""


class Step(enum.Enum):
    """The turn's steps as the table follows them (the Discard Step is the players' job)."""

    DRAW = "draw"
    PLANNING = "planning"
    COMBAT_CHOICE = "combat_choice"  # after the PUR: declare combat, rejuvenate or end the turn
    COMBAT = "combat"
    REJUVENATION = "rejuvenation"
    OVER = "over"


class Victory(enum.Enum):
    """The three ways to win."""

    SURVIVAL = "survival"
    MPPV = "mppv"
    DRAGON_BALLS = "dragon_balls"


class Critical(enum.Enum):
    """The choices after 5+ Life Cards of damage from one unstopped attack."""

    CAPTURE = "capture"
    DISCARD_ALLY = "discard_ally"
    LOWER_ANGER = "lower_anger"


@dataclass(frozen=True)
class AttackTable:
    """Power Level brackets and the Physical Attack damage table (mostly invented data)."""

    brackets: tuple[str, ...]
    floors: tuple[int, ...]
    damage: tuple[tuple[int, ...], ...]

    def bracket(self, power_level: int) -> int:
        """The index of the bracket ``power_level`` falls in."""
        index = 0
        for i, floor in enumerate(self.floors):
            if power_level >= floor:
                index = i
        return index

    def physical_damage(self, attacker_power_level: int, defender_power_level: int) -> int:
        """Power Stages of damage of a Physical Attack (attacker row, defender column)."""
        return self.damage[self.bracket(attacker_power_level)][self.bracket(defender_power_level)]


@dataclass(frozen=True)
class DbzData:
    """The mode's numbers."""

    life_deck: int
    levels: int
    start_level: int
    start_stages: int
    max_stages: int
    anger_to_level: int
    level_up_stages: int
    draw_step_cards: int
    combat_draw_cards: int
    hand_limit: int
    critical_life_cards: int
    dragon_balls: int
    attack_table: AttackTable


@dataclass(frozen=True)
class Personality:
    """One player's numbers."""

    name: str
    life: int
    level: int
    stages: int
    anger: int = 0
    dragon_balls: tuple[int, ...] = ()
    critical_available: bool = False
    drill_discards: int = 0  # how many times this player's Drills were discarded by a level change


@dataclass(frozen=True)
class DbzState:
    """The whole game as the table knows it."""

    data: DbzData
    fighters: tuple[Personality, Personality]
    turn: str
    step: Step = Step.DRAW
    turn_number: int = 1
    combat_declared: bool = False
    pur_gained: bool = False
    winner: str | None = None
    victory: Victory | None = None
    rules_revision: int = RULES_REVISION

    def fighter(self, name: str) -> Personality:
        """The numbers of ``name``."""
        for f in self.fighters:
            if f.name == name:
                return f
        raise UnknownNameError(f"no player {short_repr(name)} in this game")

    def opponent(self, name: str) -> str:
        """The other player."""
        return next(f.name for f in self.fighters if f.name != name)


# --- actions ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Draw(CompanionAction):
    """A player draws cards from their Life Deck."""

    DO = "draw"
    player: Player
    cards: Cards


@dataclass(frozen=True)
class Pur(CompanionAction):
    """The turn player's Main Personality gains its Power Up Rating (Planning Step)."""

    DO = "pur"
    player: Player
    amount: Stages


@dataclass(frozen=True)
class Anger(CompanionAction):
    """A player's Anger goes up or down."""

    DO = "anger"
    player: Player
    delta: AngerChange


@dataclass(frozen=True)
class Level(CompanionAction):
    """A card's effect advances (``delta`` over 0) or lowers a player's Main Personality
    by Levels (rule text 003 l.55); Anger reaching five is ``anger``'s level-up."""

    DO = "level"
    player: Player
    delta: LevelChange


@dataclass(frozen=True)
class StageDamage(CompanionAction):
    """Power Stages of damage from one unstopped attack (or effect)."""

    DO = "stage_damage"
    player: Player
    amount: Stages


@dataclass(frozen=True)
class LifeDamage(CompanionAction):
    """Life Cards of damage from one unstopped attack (or effect)."""

    DO = "life_damage"
    player: Player
    amount: Cards


@dataclass(frozen=True)
class PhysicalAttack(CompanionAction):
    """An unstopped Physical Attack on ``player``: the Attack Table gives the stages of damage."""

    DO = "physical_attack"
    player: Player
    attacker_power_level: int
    defender_power_level: int


@dataclass(frozen=True)
class GainStages(CompanionAction):
    """A player's Main Personality gains Power Stages besides the PUR (a card's effect:
    rule text 003, "Gain and lose stages by moving your Scouter up and down")."""

    DO = "gain_stages"
    player: Player
    amount: Stages


@dataclass(frozen=True)
class PayStages(CompanionAction):
    """``player`` lowers their Main Personality's Power Stages to pay an Energy Attack."""

    DO = "pay_stages"
    player: Player
    amount: Stages


@dataclass(frozen=True)
class DragonBall(CompanionAction):
    """The turn player plays a Dragon Ball (Planning Step)."""

    DO = "dragon_ball"
    player: Player
    number: Cards


@dataclass(frozen=True)
class DiscardDragonBall(CompanionAction):
    """A Dragon Ball ``player`` controls is discarded or destroyed (to their Life Deck's bottom)."""

    DO = "discard_dragon_ball"
    player: Player
    number: Cards


@dataclass(frozen=True)
class DeclareCombat(CompanionAction):
    """The turn player declares combat."""

    DO = "declare_combat"
    player: Player


@dataclass(frozen=True)
class Rejuvenate(CompanionAction):
    """The turn player rejuvenates one card (only without combat this turn)."""

    DO = "rejuvenate"
    player: Player


@dataclass(frozen=True)
class UseCritical(CompanionAction):
    """The attacker's critical damage choice after 5+ Life Cards from one unstopped attack."""

    DO = "critical"
    player: Player
    choice: Critical
    number: Cards | None = None  # the Dragon Ball captured


@dataclass(frozen=True)
class EndTurn(CompanionAction):
    """The turn player ends the turn (Discard Step and Rejuvenation Step included)."""

    DO = "end_turn"


DbzAction = (
    Draw | Pur | Anger | StageDamage | LifeDamage | DragonBall | DeclareCombat | Rejuvenate
) | (UseCritical | EndTurn | PhysicalAttack | GainStages | PayStages | DiscardDragonBall | Level)
ACTIONS: dict[str, type[Any]] = {
    c.DO: c
    for c in (
        Draw,
        Pur,
        Anger,
        Level,
        StageDamage,
        LifeDamage,
        PhysicalAttack,
        GainStages,
        PayStages,
        DragonBall,
        DiscardDragonBall,
        DeclareCombat,
        Rejuvenate,
        UseCritical,
        EndTurn,
    )
}


# --- data ------------------------------------------------------------------------------


def _whole(x: object, highest: int) -> bool:
    """Whether ``x`` is a whole number within ``0..highest``."""
    return isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= highest


def _attack_table(raw: Mapping[str, Any] | None, problems: Problems) -> AttackTable | None:
    """The table (None: a problem was noted, or ``raw`` is None, its problem noted already)."""
    if raw is None:
        return None
    entry = "attack_table"
    mark = problems.mark()
    problems.unknown_keys(raw, {"brackets", "floors", "damage"}, entry)
    names = raw.get("brackets")
    if not isinstance(names, list) or not names or not all(isinstance(n, str) for n in names):
        problems.add(entry, "brackets", f"expected a list of names, got {short_repr(names)}")
        return None
    if len(names) > MAX_BRACKETS:
        problems.add(entry, "brackets", f"expected 1..{MAX_BRACKETS} names, got {len(names)}")
        return None
    for i, name in enumerate(names):
        if not name.strip():
            problems.add(
                entry, f"brackets[{i}]", f"expected a bracket's name, got {short_repr(name)}"
            )
        elif (why := name_problem(name)) is not None:
            problems.add(entry, f"brackets[{i}]", why)
    size = len(names)
    floors = raw.get("floors")
    if (
        not isinstance(floors, list)
        or len(floors) != size
        or not all(_whole(x, MAX_FLOOR) for x in floors)
        or floors != sorted(floors)
    ):
        problems.add(entry, "floors", f"expected {size} rising whole numbers 0..{MAX_FLOOR}")
    rows = raw.get("damage")
    if not isinstance(rows, list) or len(rows) != size:
        problems.add(entry, "damage", f"expected {size} rows")
        return None
    for i, row in enumerate(rows):
        if (
            not isinstance(row, list)
            or len(row) != size
            or not all(_whole(x, MAX_COUNT) for x in row)
        ):
            problems.add(entry, f"damage[{i}]", f"expected {size} whole numbers 0..{MAX_COUNT}")
    if problems.since(mark) or not isinstance(floors, list):
        return None
    return AttackTable(tuple(names), tuple(floors), tuple(tuple(r) for r in rows))


def load_data(overrides: Mapping[str, Any] | None = None, source: str = "script") -> DbzData:
    """The mode's data file, with a script's overrides.

    Raises:
        DataError: every problem of the file or the overrides.
    """
    table, problems = mode_data("dbz_tcg", overrides, source)

    def num(key: str, lowest: int, highest: int) -> int | None:
        return whole_number(table, key, problems, lowest, highest)

    def capped(key: str, lowest: int, highest: int, other: str, limit: int | None) -> int | None:
        return at_most(table, key, problems, (lowest, highest), other, limit)

    life_deck = num("life_deck", 1, DECK)
    levels = num("levels", 1, MAX_COUNT)
    max_stages = num("max_stages", 1, MAX_COUNT)
    numbers = {
        "start_level": capped("start_level", 1, MAX_COUNT, "levels", levels),
        "start_stages": capped("start_stages", 0, MAX_COUNT, "max_stages", max_stages),
        "anger_to_level": num("anger_to_level", 1, MAX_COUNT),
        "level_up_stages": capped("level_up_stages", 0, MAX_COUNT, "max_stages", max_stages),
        "draw_step_cards": capped("draw_step_cards", 1, DECK, "life_deck", life_deck),
        "combat_draw_cards": capped("combat_draw_cards", 0, DECK, "life_deck", life_deck),
        "hand_limit": capped("hand_limit", 0, DECK, "life_deck", life_deck),
        "critical_life_cards": capped("critical_life_cards", 1, DECK, "life_deck", life_deck),
        "dragon_balls": num("dragon_balls", 1, DECK),
    }
    attack_table = _attack_table(
        problems.table(table.get("attack_table"), ENTRY, "attack_table"), problems
    )
    checked = {key: problems.checked(value) for key, value in numbers.items()}
    return DbzData(
        life_deck=problems.checked(life_deck),
        levels=problems.checked(levels),
        max_stages=problems.checked(max_stages),
        attack_table=problems.checked(attack_table),
        **checked,
    )
