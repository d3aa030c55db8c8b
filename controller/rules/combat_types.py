"""What a combat is given (:class:`CombatInput`, :class:`Attack`, :class:`Side`) and what it gives back."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from controller.core.symbols import AttackSpeed, Defence, Symbol
from controller.rules.scoring import CardCombo, Option
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import Form, Warrior

SHIELD_LIMIT = 20  # Shield dodges spheres of less than 20 damage (§8; B's variant: any)
SOLAR_FLARE_BELOW = 10  # Solar Flare: below 10 endurance it may flee (§8)

Throw = tuple[Symbol, ...]


class Deck(StrEnum):
    """The four decks a card comes from (which speeds it may answer, §3); red, yellow and
    blue spaces draw from the first three."""

    ATTACK = "attack"
    DEFENCE = "defence"
    SPECIAL = "special"
    EVENT = "event"


@dataclass(frozen=True)
class Side:
    """A warrior entering a combat."""

    warrior: Warrior
    damage: int = 0  # damage already taken
    support: int = 0  # support dice (see pools.support_dice)
    transform_roll: int | tuple[int, ...] | None = None  # None: no attempt
    form: Form | None = None  # a form fixed beforehand (used when there is no roll)
    cards: tuple[CardCombo, ...] = ()  # card combos in hand the attacker may cash in


@dataclass(frozen=True)
class DefenceCardPlay:
    """A card the defender answers with: its combo thrown like a dodge prevents the damage."""

    card: CardCombo
    deck: Deck
    throws: tuple[Throw, ...]


@dataclass(frozen=True)
class Attack:
    """One attack attempt and the defender's answer to it."""

    throws: tuple[Throw, ...]
    choice: str | None = None  # an option's name (a combo's, a card's, "sum"); None: the best
    dodge_throws: tuple[Throw, ...] | None = None
    defence_card: DefenceCardPlay | None = None
    flee: bool = False  # the defender uses Solar Flare
    reflect_dodge_throws: tuple[Throw, ...] | None = None  # attacker dodging its reflected sphere
    reflect_card: DefenceCardPlay | None = None  # or answering it with a card (A l.110)


@dataclass(frozen=True)
class CombatInput:
    """What happened at the table in one combat."""

    attacker: Side
    defender: Side
    attack: Attack
    counter: Attack | None = None  # the defender's counter-attack, when it has one
    variants: Variants = DEFAULT_VARIANTS
    green: bool = False  # the defender is a green-space warrior


@dataclass(frozen=True)
class AttackResult:
    """What one attack did."""

    attacker: str
    defender: str
    pool: int
    rerolls: int
    speed: AttackSpeed
    defence: tuple[Defence, ...]
    option: Option
    options: tuple[Option, ...]
    dodged: bool = False
    card_defended: bool = False
    shielded: bool = False
    reflected: bool = False
    reflect_dodged: bool = False
    fled: bool = False
    damage_dealt: int = 0  # to the defender, after its divisor
    damage_reflected: int = 0  # to the attacker, after its divisor
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class SideResult:
    """A warrior after the combat."""

    warrior: str
    form: str | None
    damage_taken: int  # accumulated damage tokens, costs included
    endurance_left: int
    eliminated: bool
    cost_paid: int = 0


@dataclass(frozen=True)
class CombatResult:
    """The outcome of a combat."""

    attack: AttackResult
    attacker: SideResult
    defender: SideResult
    counter_attack: bool  # the defender has counter-attack and may strike back
    counter: AttackResult | None = None
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, object]:
        """The result as ``toptable combat --json`` prints it."""
        a = self.attack
        out: dict[str, object] = {
            "speed": str(a.speed),
            "defence": [str(d) for d in a.defence],
            "attack": {
                "kind": str(a.option.kind),
                "name": a.option.name,
                "damage": a.option.damage,
            },
            "dodged": a.dodged,
            "damage_dealt": a.damage_dealt,
            "attacker": _side_json(self.attacker),
            "defender": _side_json(self.defender),
            "counter_attack": self.counter_attack,
            "rerolls": a.rerolls,
            "pool": a.pool,
            "card_defended": a.card_defended,
            "shielded": a.shielded,
            "reflected": a.reflected,
            "reflect_dodged": a.reflect_dodged,
            "fled": a.fled,
            "damage_reflected": a.damage_reflected,
            "notes": list(self.notes),
        }
        if self.counter is not None:
            c = self.counter
            out["counter"] = {
                "speed": str(c.speed),
                "attack": {
                    "kind": str(c.option.kind),
                    "name": c.option.name,
                    "damage": c.option.damage,
                },
                "dodged": c.dodged,
                "damage_dealt": c.damage_dealt,
            }
        return out


def _side_json(s: SideResult) -> dict[str, object]:
    return {
        "warrior": s.warrior,
        "form": s.form,
        "damage_taken": s.damage_taken,
        "endurance_left": s.endurance_left,
        "eliminated": s.eliminated,
    }
