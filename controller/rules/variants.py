"""The rule variants of docs/rules.md: the one place that names them.

Where the two rulebook translations disagree, docs/rules.md names a variant: the
engine plays the default (A's reading in the Tournament mode, B's in Story mode; where a
book contradicts itself, the line docs/rules.md names; every flag False) and a game can
switch any of them on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace

from controller.core.errors import TopTableError
from controller.core.quoting import short_repr

RETIRED = {"six_warriors_in_short_game": "A's reading, the default since docs/rules.md §11"}
"""Variant names a config or journal may still hold, now plain defaults: accepted, no effect."""


class UnknownVariantError(TopTableError, ValueError):
    """A variant name that docs/rules.md does not define."""


@dataclass(frozen=True)
class Variants:
    """Which variants of docs/rules.md are switched on. Field names are the variant names;
    each docstring names the section and the book's line it plays."""

    star_counts_for_double: bool = False
    """§3 (neither book): stars count as the repeated symbol for the special-combo doubling."""
    surprise_any_card: bool = False
    """§3 (A l.255, B l.169, l.331): after a surprise attack the defender may answer with any
    card (default: A l.197, B l.177, its Defence cards only; each book contradicts itself)."""
    green_dodge_after_three_rerolls: bool = False
    """§3 (B l.311): a green-space warrior may dodge only after 3 rerolls (A: 2)."""
    dodge_needs_every_die: bool = False
    """§4 (B l.335): a dodge needs as many teleports as dice thrown (A: the card's number)."""
    support_for_attack_only: bool = False
    """§5 (B l.101, l.281): support dice join attacks only (A: defences too)."""
    transformation_card_when_dissatisfied: bool = False
    """§6 (B l.423): a Transformation card may follow any roll short of the last form."""
    eliminate_only_when_exceeded: bool = False
    """§7 (A l.59, B l.59): eliminated only when damage exceeds endurance (default: reaches)."""
    shield_any_sphere: bool = False
    """§8 (B l.103): Shield stops a sphere whatever its damage (A: less than 20)."""
    two_attack_or_special_cards: bool = False
    """§9 (B l.351): the player whose turn it is plays at most two Attack or Special cards,
    a third card only if it is a Defence card."""
    green_reward_one: bool = False
    """§10 (B l.313): eliminating a green-space warrior earns 1 card (A: 2)."""
    one_combat_in_45_minutes: bool = False
    """§10 (B l.249): no second combat in the 45-minute game (counter-attacks still)."""
    time_up_ends_turn: bool = False
    """§11 (B l.249): when the 45 minutes are up, the turn being played ends the game
    (A: the round being played)."""
    four_warriors_in_short_game: bool = False
    """§11 (B l.248): teams of 4 in the 5-round game (A: 6)."""
    fusion_pairs_drafted_together: bool = False
    """§11 (B l.259): Kale+Caulifla and Koichiarator+Paparoni are drafted as pairs."""
    fusion_partners_adjacent: bool = False
    """§10 (B l.287): fusion partners fuse one space apart (A: on the same space)."""
    fusion_for_one_attack: bool = False
    """§11 (B l.287): a fusion lasts one attack (A: until the end of the game)."""
    story_combos_only: bool = False
    """§12 (B l.188, l.213): a Story attempt is worth one of the warrior card's two combos
    or the square's combo, never a symbol sum; one making neither inflicts 0 (default:
    B l.137, l.157, the sum allowed as in the Tournament mode)."""

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """Every variant name, in the order of docs/rules.md."""
        return tuple(f.name for f in fields(cls))

    @classmethod
    def from_names(cls, names: Iterable[str]) -> Variants:
        """Variants with exactly ``names`` switched on.

        Raises:
            UnknownVariantError: a name docs/rules.md does not define.
        """
        on: dict[str, bool] = {}
        for name in names:
            key = name.strip()
            if key in RETIRED:
                continue
            if key not in cls.names():
                raise UnknownVariantError(
                    f"unknown rule variant {short_repr(key)}: expected one of "
                    f"{', '.join(cls.names())}"
                )
            on[key] = True
        return replace(cls(), **on)

    def enabled(self) -> tuple[str, ...]:
        """The names of the variants switched on."""
        return tuple(n for n in self.names() if getattr(self, n))


DEFAULT_VARIANTS = Variants()
