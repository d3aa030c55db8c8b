"""A whole combat, resolved from the throws that actually happened (RULES.md §2–§8).

The camera delivers every full dice state of an attempt; the engine checks
them against the pools and rerolls the rules allow, scores the final throw,
applies the defender's answer (dodge, defence card, shield, reflect sphere,
Solar Flare), divides damage for forms, charges transformation costs, decides
eliminations and resolves a counter-attack when one is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.symbols import Symbol
from controller.rules.dice import STAR_INDEX, TELEPORT_INDEX, check_throw, counts_of
from controller.rules.endurance import divided_damage, is_eliminated, transform
from controller.rules.pools import attack_pool, attack_rerolls, defence_pool, defence_rerolls
from controller.rules.scoring import CardCombo, CardDefence, Option, makes, need_vector, scorer_for
from controller.rules.speed import AttackSpeed, Defence, allowed_defences, attack_speed
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import AbilityKind, Fighter, Form, Warrior

SHIELD_LIMIT = 20  # Shield dodges spheres of less than 20 damage (§8)
SOLAR_FLARE_BELOW = 10  # Solar Flare: below 10 endurance it may flee (§8)

Throw = tuple[Symbol, ...]


class CardDeck(StrEnum):
    """The deck a card comes from (which speeds it may answer, §3)."""

    ATTACK = "attack"
    DEFENCE = "defence"
    SPECIAL = "special"


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
    deck: CardDeck
    throws: tuple[Throw, ...]


@dataclass(frozen=True)
class Attack:
    """One attack attempt and the defender's answer to it."""

    throws: tuple[Throw, ...]
    choice: str = "best"  # a combo or card name, "sum" or "best"
    dodge_throws: tuple[Throw, ...] | None = None
    defence_card: DefenceCardPlay | None = None
    flee: bool = False  # the defender uses Solar Flare
    reflect_dodge_throws: tuple[Throw, ...] | None = None  # attacker dodging its reflected sphere


@dataclass(frozen=True)
class CombatInput:
    """What happened at the table in one combat."""

    attacker: Side
    defender: Side
    attack: Attack
    counter: Attack | None = None  # the defender's counter-attack, when it has one
    variants: Variants = DEFAULT_VARIANTS


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


def dodge_made(throw: Sequence[Symbol], needed: int) -> bool:
    """Whether a dodge throw shows at least ``needed`` teleports (stars wild, §4)."""
    c = counts_of(throw)
    return c[TELEPORT_INDEX] + c[STAR_INDEX] >= needed


def check_attempt(throws: Sequence[Throw], pool: int, max_rerolls: int, who: str) -> int:
    """Check an attempt's throws against the pool and rerolls; return rerolls made.

    Raises:
        InvalidThrowError: no throw, a throw with another dice count, too many rerolls.
    """
    if not throws:
        raise InvalidThrowError(f"{who}: an attempt needs at least one throw")
    for i, t in enumerate(throws):
        check_throw(t, pool, f"{who}: throw {i + 1}")
    made = len(throws) - 1
    if made > max_rerolls:
        raise InvalidThrowError(
            f"{who}: {made} rerolls, but only {max_rerolls} are allowed (technique and abilities)"
        )
    return made


def choose_option(options: Sequence[Option], best: Option, choice: str, who: str) -> Option:
    """The option named by ``choice`` ("best", "sum" or a combo/card name).

    Raises:
        IllegalActionError: the final throw does not make that option.
    """
    key = choice.strip().casefold()
    if key == "best":
        return best
    for opt in options:
        if opt.name.casefold() == key:
            return opt
    made = ", ".join(o.name for o in options)
    raise IllegalActionError(f"{who}: the final throw does not make {choice!r}; it makes: {made}")


def resolve_attack(
    attacker: Fighter,
    attacker_support: int,
    defender: Fighter,
    defender_support: int,
    defender_endurance_left: int,
    attack: Attack,
    cards: Sequence[CardCombo] = (),
    variants: Variants = DEFAULT_VARIANTS,
) -> AttackResult:
    """Resolve one attack and the defender's answer (no costs, no elimination).

    Raises:
        InvalidThrowError: throws that do not fit the pools and rerolls.
        IllegalActionError: an answer the attack speed or abilities do not allow.
    """
    who = f"{attacker.name} attacking {defender.name}"
    pool = attack_pool(attacker, attacker_support, defender)
    rerolls = check_attempt(attack.throws, pool, attack_rerolls(attacker, defender), who)
    score = scorer_for(attacker, cards, variants).score(attack.throws[-1])
    option = choose_option(score.options, score.best, attack.choice, who)
    card = option.card
    speed = attack_speed(rerolls)
    defence = allowed_defences(
        speed,
        variants,
        attacker_denies_dice=attacker.has(AbilityKind.NO_DEFENCE_DICE),
        card_defence=card.defence if card is not None else CardDefence.ANY,
    )
    invulnerable = card is not None and card.invulnerable
    notes: list[str] = []
    base = AttackResult(
        attacker.name, defender.name, pool, rerolls, speed, defence, option, score.options
    )
    answers = sum(x is not None for x in (attack.dodge_throws, attack.defence_card)) + attack.flee
    if answers > 1:
        raise IllegalActionError(
            f"{who}: the defender gives one answer: a dodge, a card or a flight"
        )

    if attack.flee:
        if not defender.has(AbilityKind.SOLAR_FLARE):
            raise IllegalActionError(f"{defender.name} has no Solar Flare and cannot flee")
        if defender_endurance_left >= SOLAR_FLARE_BELOW:
            raise IllegalActionError(
                f"{defender.name} may flee with Solar Flare only below {SOLAR_FLARE_BELOW} endurance "
                f"(it has {defender_endurance_left})"
            )
        notes.append(f"{defender.name} flees with Solar Flare")
        return replace(base, fled=True, notes=tuple(notes))

    if option.holds_sphere and not invulnerable:
        if defender.has(AbilityKind.SHIELD) and option.damage < SHIELD_LIMIT:
            notes.append(f"{defender.name}'s Shield stops a sphere of {option.damage}")
            return replace(base, shielded=True, notes=tuple(notes))
        if defender.has(AbilityKind.REFLECT_SPHERE):
            dodged = False
            if attack.reflect_dodge_throws is not None:
                check_attempt(
                    attack.reflect_dodge_throws,
                    defence_pool(attacker, attacker_support),
                    defence_rerolls(attacker),
                    f"{attacker.name} dodging its reflected sphere",
                )
                dodged = dodge_made(attack.reflect_dodge_throws[-1], attacker.dodge)
            back = 0 if dodged else divided_damage(option.damage, attacker.divisor)
            notes.append(
                f"{defender.name} reflects the sphere"
                + (f"; {attacker.name} dodges it" if dodged else f"; {attacker.name} takes {back}")
            )
            return replace(
                base,
                reflected=True,
                reflect_dodged=dodged,
                damage_reflected=back,
                notes=tuple(notes),
            )

    dealt = divided_damage(option.damage, defender.divisor)
    if attack.dodge_throws is not None:
        if Defence.DODGE not in defence:
            raise IllegalActionError(
                f"{defender.name} may not dodge a {speed} attack here; allowed: "
                + ", ".join(str(d) for d in defence)
            )
        check_attempt(
            attack.dodge_throws,
            defence_pool(defender, defender_support),
            defence_rerolls(defender),
            f"{defender.name} dodging",
        )
        if dodge_made(attack.dodge_throws[-1], defender.dodge):
            notes.append(f"{defender.name} dodges with {defender.dodge} teleports")
            return replace(base, dodged=True, notes=tuple(notes))
        notes.append(f"{defender.name}'s dodge fails")
    elif attack.defence_card is not None:
        play = attack.defence_card
        _check_card_answer(play, defence, card, defender.name, speed)
        check_attempt(
            play.throws,
            defence_pool(defender, defender_support),
            defence_rerolls(defender),
            f"{defender.name} playing {play.card.name}",
        )
        if makes(counts_of(play.throws[-1]), need_vector(play.card.symbols)):
            notes.append(f"{defender.name} stops the attack with {play.card.name}")
            return replace(base, card_defended=True, notes=tuple(notes))
        notes.append(f"{play.card.name} fails; {defender.name} keeps the card")
    if defender.divisor > 1 and option.damage:
        notes.append(f"{defender.name} divides {option.damage} by {defender.divisor}: {dealt}")
    return replace(base, damage_dealt=dealt, notes=tuple(notes))


def _check_card_answer(
    play: DefenceCardPlay,
    defence: tuple[Defence, ...],
    attack_card: CardCombo | None,
    defender: str,
    speed: AttackSpeed,
) -> None:
    allowed_deck = Defence.ANY_CARDS in defence or (
        Defence.DEFENCE_CARDS in defence and play.deck is CardDeck.DEFENCE
    )
    if not allowed_deck:
        raise IllegalActionError(
            f"{defender} may not answer a {speed} attack with a {play.deck} card; allowed: "
            + ", ".join(str(d) for d in defence)
        )
    if (
        attack_card is not None
        and attack_card.defence is CardDefence.INVULNERABLE_ONLY
        and not play.card.invulnerable
    ):
        raise IllegalActionError(
            f"{attack_card.name} allows only an invulnerable card; {play.card.name} is not"
        )


def resolve_combat(combat: CombatInput) -> CombatResult:
    """Resolve a whole combat: forms, the attack, the answer, a counter-attack, costs.

    Raises:
        InvalidThrowError: a transformation roll or throw that cannot have happened.
        IllegalActionError: an answer or a counter-attack the rules do not allow.
        DataError: a warrior whose card is not filled in.
    """
    variants = combat.variants
    a_side, d_side = combat.attacker, combat.defender
    a_form = (
        transform(a_side.warrior, a_side.transform_roll)
        if a_side.transform_roll is not None
        else a_side.form
    )
    d_form = (
        transform(d_side.warrior, d_side.transform_roll)
        if d_side.transform_roll is not None
        else d_side.form
    )
    attacker = a_side.warrior.fighter(a_form)
    defender = d_side.warrior.fighter(d_form)
    for side in (a_side, d_side):
        if side.damage < 0 or side.support < 0:
            raise InvalidThrowError(f"{side.warrior.name}: damage and support must be >= 0")

    d_left = d_side.warrior.endurance - d_side.damage
    first = resolve_attack(
        attacker,
        a_side.support,
        defender,
        d_side.support,
        d_left,
        combat.attack,
        a_side.cards,
        variants,
    )
    a_damage = a_side.damage + first.damage_reflected
    d_damage = d_side.damage + first.damage_dealt
    notes = list(first.notes)

    d_down = is_eliminated(d_damage, d_side.warrior.endurance, variants)
    a_down = is_eliminated(a_damage, a_side.warrior.endurance, variants)
    can_counter = defender.has(AbilityKind.COUNTER_ATTACK) and not d_down and not first.fled
    counter: AttackResult | None = None
    if combat.counter is not None:
        if not can_counter:
            raise IllegalActionError(
                f"{defender.name} cannot counter-attack (needs the counter-attack ability and to still stand)"
            )
        if a_down:
            raise IllegalActionError(f"{attacker.name} is already eliminated: no counter-attack")
        counter = resolve_attack(
            defender, d_side.support, attacker, a_side.support,
            a_side.warrior.endurance - a_damage, combat.counter, (), variants,
        )  # fmt: skip
        a_damage += counter.damage_dealt
        d_damage += counter.damage_reflected
        notes.extend(f"counter-attack: {n}" for n in counter.notes)

    a_result = _after_combat(a_side.warrior, attacker, a_damage, variants, notes)
    d_result = _after_combat(d_side.warrior, defender, d_damage, variants, notes)
    return CombatResult(first, a_result, d_result, can_counter, counter, tuple(notes))


def _after_combat(
    warrior: Warrior, fighter: Fighter, damage: int, variants: Variants, notes: list[str]
) -> SideResult:
    """Charge the form's endurance cost and decide elimination (§6, §7)."""
    cost = fighter.cost if fighter.form is not None else 0
    if cost:
        notes.append(f"{fighter.name} pays {cost} endurance and reverts to {warrior.name}")
    total = damage + cost
    return SideResult(
        warrior=warrior.name,
        form=fighter.form.name if fighter.form is not None else None,
        damage_taken=total,
        endurance_left=warrior.endurance - total,
        eliminated=is_eliminated(total, warrior.endurance, variants),
        cost_paid=cost,
    )
