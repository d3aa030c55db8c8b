"""Pools, rerolls and support dice, with the abilities that change them (§2, §5, §8)."""

from __future__ import annotations

from collections.abc import Iterable

from controller.rules.dice import clamp_pool
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import Ability, AbilityKind, Fighter


def support_dice(teammates: Iterable[Ability]) -> int:
    """Support dice from the abilities of the teammates adjacent to a fighter.

    Each gives 1 die, 2 with *two more support dice*, 0 with *Solo* (docs/rules.md §5).
    The pool clamp (max 6) applies later.
    """
    total = 0
    for ability in teammates:
        if ability.kind is AbilityKind.SOLO:
            continue
        total += 2 if ability.kind is AbilityKind.DOUBLE_SUPPORT else 1
    return total


def attack_pool(
    attacker: Fighter, support: int, defender: Fighter | None = None, capped_first: bool = True
) -> int:
    """Dice the attacker throws: power + support + one more attack die, at most 6; less the
    defender's *attacker has fewer dice*, taken from the dice it would throw (A l.128: "the
    opponent attacks with 1 less die", 6 being the most, l.275); never fewer than 1.
    Not ``capped_first``: the die taken from the uncapped sum (how games journalled before
    rules revisions were recorded, rules revision 1, were played until 2026-11-30)."""
    size = attacker.power + support
    if attacker.has(AbilityKind.EXTRA_ATTACK_DIE):
        size += 1
    if capped_first:
        size = clamp_pool(size)
    if defender is not None and defender.has(AbilityKind.ATTACKER_FEWER_DICE):
        size -= defender.ability.n
    return clamp_pool(size)


def defence_pool(defender: Fighter, support: int, variants: Variants = DEFAULT_VARIANTS) -> int:
    """Dice the defender throws for a dodge or a defence card: power + support + one more
    defence die; clamped to 1..6. Support dice join a defence unless B's variant
    ``support_for_attack_only`` says they are for attacks only (docs/rules.md §5)."""
    size = defender.power + (0 if variants.support_for_attack_only else support)
    if defender.has(AbilityKind.EXTRA_DEFENCE_DIE):
        size += 1
    return clamp_pool(size)


def attack_rerolls(attacker: Fighter, defender: Fighter | None = None) -> int:
    """Rerolls the attacker may make: technique + one more reroll - the defender's
    *attacker has fewer rerolls*; never below 0."""
    n = attacker.technique
    if attacker.has(AbilityKind.EXTRA_REROLL):
        n += 1
    if defender is not None and defender.has(AbilityKind.ATTACKER_FEWER_REROLLS):
        n -= defender.ability.n
    return max(0, n)


def defence_rerolls(defender: Fighter) -> int:
    """Rerolls the defender may make in a dodge or defence: technique + one more reroll."""
    n = defender.technique
    if defender.has(AbilityKind.EXTRA_REROLL):
        n += 1
    return max(0, n)
