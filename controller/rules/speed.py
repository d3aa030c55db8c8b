"""The defences an attack's speed allows (docs/rules.md §3, §4, §8).

The speed itself and the kinds of defence are :mod:`controller.core.symbols`'
:class:`AttackSpeed` and :class:`Defence` (one definition for the rules, the table
and the devices).
"""

from __future__ import annotations

from controller.core.symbols import AttackSpeed, Defence
from controller.rules.scoring import CardDefence
from controller.rules.variants import DEFAULT_VARIANTS, Variants


def allowed_defences(
    speed: AttackSpeed,
    variants: Variants = DEFAULT_VARIANTS,
    *,
    attacker_denies_dice: bool = False,
    card_defence: CardDefence = CardDefence.ANY,
    dodge_barred: bool = False,
) -> tuple[Defence, ...]:
    """The answers the defender may give.

    ``attacker_denies_dice``: the attacker has *no defence dice for the
    defender* (cards only, no dodge; its cards stay, A l.118). ``card_defence``: what
    the attack card played allows ("no defence possible" beats every speed;
    "invulnerable card only" leaves the cards, and the game checks the card is
    invulnerable). ``dodge_barred``: no dodge roll for another reason (a green-space
    warrior before the third reroll, with B's variant).
    """
    if speed is AttackSpeed.LIGHTNING or card_defence is CardDefence.NONE:
        return (Defence.NONE,)
    if speed is AttackSpeed.SURPRISE:
        cards = Defence.ANY_CARDS if variants.surprise_any_card else Defence.DEFENCE_CARDS
        return (cards,)
    answers = [Defence.ANY_CARDS]
    if (
        not attacker_denies_dice
        and not dodge_barred
        and card_defence is not CardDefence.INVULNERABLE_ONLY
    ):
        answers.append(Defence.DODGE)
    return tuple(answers)


__all__ = ["AttackSpeed", "Defence", "allowed_defences"]
