"""Attack speed and the defences it allows (RULES.md §3, §4, §8)."""

from __future__ import annotations

from enum import StrEnum

from controller.rules.scoring import CardDefence
from controller.rules.variants import DEFAULT_VARIANTS, Variants


class AttackSpeed(StrEnum):
    """How fast an attack was cashed in, from the rerolls made."""

    LIGHTNING = "lightning"  # 0 rerolls
    SURPRISE = "surprise"  # 1 reroll
    NORMAL = "normal"  # 2 or more


class Defence(StrEnum):
    """An answer the defender may give (the names the CLI's JSON uses)."""

    NONE = "none"  # no defence at all
    DEFENCE_CARDS = "defence_cards"  # Defence cards only
    ANY_CARDS = "any_cards"  # Attack, Defence or Special cards
    DODGE = "dodge"  # a dodge roll


def attack_speed(rerolls_made: int) -> AttackSpeed:
    """The speed of an attack whose attempt made ``rerolls_made`` rerolls.

    Raises:
        ValueError: a negative count.
    """
    if rerolls_made < 0:
        raise ValueError(f"rerolls made must be >= 0, got {rerolls_made}")
    if rerolls_made == 0:
        return AttackSpeed.LIGHTNING
    if rerolls_made == 1:
        return AttackSpeed.SURPRISE
    return AttackSpeed.NORMAL


def allowed_defences(
    speed: AttackSpeed,
    variants: Variants = DEFAULT_VARIANTS,
    *,
    attacker_denies_dice: bool = False,
    card_defence: CardDefence = CardDefence.ANY,
) -> tuple[Defence, ...]:
    """The answers the defender may give.

    ``attacker_denies_dice``: the attacker has *no defence dice for the
    defender* (cards only, no dodge). ``card_defence``: what the attack card
    played allows ("no defence possible" beats every speed; "invulnerable card
    only" leaves the cards, and the game checks the card is invulnerable).
    """
    if speed is AttackSpeed.LIGHTNING or card_defence is CardDefence.NONE:
        return (Defence.NONE,)
    if speed is AttackSpeed.SURPRISE:
        cards = Defence.ANY_CARDS if variants.surprise_any_card else Defence.DEFENCE_CARDS
        return (cards,)
    answers = [Defence.ANY_CARDS]
    if not attacker_denies_dice and card_defence is not CardDefence.INVULNERABLE_ONLY:
        answers.append(Defence.DODGE)
    return tuple(answers)
