"""A whole combat, resolved from the throws that actually happened (docs/rules.md §2–§8).

The camera delivers every full dice state of an attempt; the engine checks
them against the pools and rerolls the rules allow, scores the final throw,
applies the defender's answer (dodge, defence card, shield, reflect sphere,
Solar Flare), divides damage for forms, charges transformation costs, decides
eliminations and resolves a counter-attack when one is given.
"""

from __future__ import annotations

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.rules.attack import resolve_attack
from controller.rules.combat_types import AttackResult, CombatInput, CombatResult, SideResult
from controller.rules.endurance import is_eliminated, transform
from controller.rules.variants import Variants
from controller.rules.warriors import AbilityKind, Fighter, Warrior


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
        green=combat.green,
    )
    a_damage = a_side.damage + first.damage_reflected
    d_damage = d_side.damage + first.damage_dealt
    notes = list(first.notes)

    d_down = is_eliminated(d_damage, d_side.warrior.endurance, variants)
    a_down = is_eliminated(a_damage, a_side.warrior.endurance, variants)
    can_counter = defender.has(AbilityKind.COUNTER_ATTACK) and may_strike_back(first, d_down, False)
    counter: AttackResult | None = None
    if combat.counter is not None:
        if not can_counter:
            raise IllegalActionError(
                f"{defender.name} cannot counter-attack (needs the counter-attack ability and to still stand)"
            )
        if not may_strike_back(first, d_down, a_down):
            raise IllegalActionError(f"{attacker.name} is already eliminated: no counter-attack")
        counter = resolve_attack(
            defender, d_side.support, attacker, a_side.support,
            a_side.warrior.endurance - a_damage, combat.counter, (), variants,
        )  # fmt: skip
        a_damage += counter.damage_dealt
        d_damage += counter.damage_reflected
        notes.extend(f"counter-attack: {n}" for n in counter.notes)

    a_result = after_combat(a_side.warrior, attacker, a_damage, variants, notes)
    d_result = after_combat(d_side.warrior, defender, d_damage, variants, notes)
    return CombatResult(first, a_result, d_result, can_counter, counter, tuple(notes))


def may_strike_back(first: AttackResult, target_down: bool, striker_down: bool) -> bool:
    """Whether the target of ``first`` may counter-attack (§8): both still stand and it did not
    flee. (It also needs the ability or a Counter-Attack card: the caller knows which.)"""
    return not first.fled and not target_down and not striker_down


def after_combat(
    warrior: Warrior,
    fighter: Fighter,
    damage: int,
    variants: Variants,
    notes: list[str] | None = None,
) -> SideResult:
    """One side once the combat's attacks are over, having taken ``damage``: the form's
    endurance cost charged (§6) and elimination decided (§7)."""
    cost = fighter.cost if fighter.form is not None else 0
    if cost and notes is not None:
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
