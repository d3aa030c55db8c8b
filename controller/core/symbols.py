"""The dice symbols of the Tournament of Power: the one source of truth for them.

docs/rules.md §1: every die shows kick, punch, sphere, strength, star and teleport.
Kick, punch, sphere and strength are attack symbols with a value on each warrior
card; star is wild (worth 0 in a sum); teleport is worth 0 and serves dodges.
"""

from __future__ import annotations

from enum import StrEnum

from controller.core.errors import InvalidThrowError
from controller.core.quoting import short_repr


class Symbol(StrEnum):
    """A face symbol. The value is the name used in data files, JSON and the CLI."""

    KICK = "kick"
    PUNCH = "punch"
    SPHERE = "sphere"
    STRENGTH = "strength"
    STAR = "star"
    TELEPORT = "teleport"

    def __str__(self) -> str:
        return self.value


ALL_SYMBOLS: tuple[Symbol, ...] = tuple(Symbol)
ATTACK_SYMBOLS: tuple[Symbol, ...] = (Symbol.KICK, Symbol.PUNCH, Symbol.SPHERE, Symbol.STRENGTH)
SYMBOL_NAMES: tuple[str, ...] = tuple(s.value for s in Symbol)

MAX_POOL = 6
MIN_POOL = 1


class AttackSpeed(StrEnum):
    """How fast an attack was cashed in (docs/rules.md §3); it decides the defences allowed."""

    LIGHTNING = "lightning"  # the first throw (no reroll)
    SURPRISE = "surprise"  # after 1 reroll
    NORMAL = "normal"  # after 2 or more

    def __str__(self) -> str:
        return self.value


class Defence(StrEnum):
    """A kind of answer the defender may give to an attack (the names the CLI's JSON uses)."""

    NONE = "none"  # no defence at all
    DEFENCE_CARDS = "defence_cards"  # Defence cards only
    ANY_CARDS = "any_cards"  # Attack, Defence or Special cards
    DODGE = "dodge"  # a dodge roll

    def __str__(self) -> str:
        return self.value


def speed_after_rerolls(rerolls_made: int) -> AttackSpeed:
    """The speed of an attack cashed in after ``rerolls_made`` rerolls (0: lightning).

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


def speed_after_throws(throws: int) -> AttackSpeed:
    """The speed of an attack cashed in after ``throws`` throws (the first throw
    counts: 1 or fewer is lightning)."""
    return speed_after_rerolls(max(throws - 1, 0))


def parse_symbol(text: str) -> Symbol:
    """Return the symbol named ``text`` (case-insensitive).

    Raises:
        InvalidThrowError: ``text`` names no symbol; the message lists the known ones.
    """
    try:
        return Symbol(text.strip().lower())
    except ValueError:
        raise InvalidThrowError(
            f"unknown symbol {short_repr(text)}: expected one of {', '.join(SYMBOL_NAMES)}"
        ) from None


def parse_symbols(items: str | list[str] | tuple[str, ...]) -> tuple[Symbol, ...]:
    """Parse a comma-separated string or a list of names into symbols.

    Raises:
        InvalidThrowError: an item names no symbol.
    """
    parts = items.split(",") if isinstance(items, str) else list(items)
    return tuple(parse_symbol(p) for p in parts if p.strip())
