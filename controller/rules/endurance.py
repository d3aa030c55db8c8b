"""Damage, transformation rolls and elimination (docs/rules.md §6, §7, §8 health)."""

from __future__ import annotations

from collections.abc import Sequence

from controller.core.errors import InvalidThrowError
from controller.core.quoting import short_repr
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import Form, Warrior

HEALTH_PER_TURN = 5
"""The damage the *Health* ability removes at the start of its owner's turn (§8)."""


def divided_damage(damage: int, divisor: int) -> int:
    """Damage a transformed warrior receives: divided by its divisor, rounded up (§6)."""
    if damage <= 0:
        return 0
    return -(-damage // max(1, divisor))


def is_eliminated(damage_taken: int, endurance: int, variants: Variants = DEFAULT_VARIANTS) -> bool:
    """Whether accumulated damage eliminates a warrior (§7 and its variant)."""
    if variants.eliminate_only_when_exceeded:
        return damage_taken > endurance
    return damage_taken >= endurance


def damage_still_standing(endurance: int, variants: Variants = DEFAULT_VARIANTS) -> int:
    """The most damage a warrior of ``endurance`` carries and stays in the game (the
    largest that :func:`is_eliminated` does not eliminate)."""
    return endurance if variants.eliminate_only_when_exceeded else endurance - 1


def transformation_total(warrior: Warrior, roll: int | Sequence[int]) -> int:
    """The total of a transformation roll: 1 die, or 2 dice summed for Goku and Vegeta.

    Raises:
        InvalidThrowError: the roll does not fit the warrior's transformation dice.
    """
    dice = warrior.transform_dice
    if isinstance(roll, int):
        total = roll
        if not dice <= total <= 6 * dice:
            raise InvalidThrowError(
                f"{warrior.name} transforms with {dice} {'die' if dice == 1 else 'dice'}: "
                f"a roll of {short_repr(total)} is impossible (expected {dice}..{6 * dice})"
            )
        return total
    values = list(roll)
    if len(values) != dice or any(not 1 <= v <= 6 for v in values):
        raise InvalidThrowError(
            f"{warrior.name} transforms with {dice} {'die' if dice == 1 else 'dice'} (1..6 each), got {short_repr(values)}"
        )
    return sum(values)


def transform(warrior: Warrior, roll: int | Sequence[int] | None) -> Form | None:
    """The form a warrior fights in after its transformation roll (None: base form).

    Raises:
        InvalidThrowError: an impossible roll.
    """
    if roll is None or not warrior.forms:
        if roll is not None:
            transformation_total(warrior, roll)
        return None
    return warrior.form_for_roll(transformation_total(warrior, roll))


def heal(damage_taken: int) -> int:
    """Damage left after the *Health* ability at the start of a turn (up to 5 removed)."""
    return max(0, damage_taken - HEALTH_PER_TURN)
