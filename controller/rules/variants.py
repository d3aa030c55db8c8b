"""The rule variants of docs/rules.md: the one place that names them.

Where the two rulebook translations disagree, docs/rules.md names a variant: the
engine plays the default (A's reading in the Tournament mode, B's in Story mode;
every flag False) and a game can switch any of them on.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields, replace

from controller.core.errors import TopTableError


class UnknownVariantError(TopTableError, ValueError):
    """A variant name that docs/rules.md does not define."""


@dataclass(frozen=True)
class Variants:
    """Which variants of docs/rules.md are switched on. Field names are the variant names."""

    star_counts_for_double: bool = False
    """§3: stars count as the repeated symbol for the special-combo doubling."""
    surprise_any_card: bool = False
    """§3 (B): after a surprise attack the defender may answer with any of its cards."""
    eliminate_only_when_exceeded: bool = False
    """§7: eliminated only when damage exceeds endurance (default: when it reaches it)."""
    green_reward_one: bool = False
    """§10 (B): eliminating a green-space warrior earns 1 card (default 2)."""
    six_warriors_in_short_game: bool = False
    """§11 (A): teams of 6 in the 5-round game too (default 4)."""
    fusion_pairs_drafted_together: bool = False
    """§11 (B): Kale+Caulifla and Koichiarator+Paparoni are drafted as pairs."""
    fusion_for_one_attack: bool = False
    """§11 (B): a Fusion card fuses for one attack (default: until the end of the game)."""

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
            if key not in cls.names():
                raise UnknownVariantError(
                    f"unknown rule variant {key!r}: expected one of {', '.join(cls.names())}"
                )
            on[key] = True
        return replace(cls(), **on)

    def enabled(self) -> tuple[str, ...]:
        """The names of the variants switched on."""
        return tuple(n for n in self.names() if getattr(self, n))


DEFAULT_VARIANTS = Variants()
