"""Dice faces and pool sizes (docs/rules.md §1, §2, §5)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from controller.core.errors import InvalidThrowError
from controller.core.quoting import short_repr
from controller.core.symbols import MAX_POOL, MIN_POOL, Symbol

# Index of each symbol in a counts vector; the order of the Symbol enum.
SYMBOL_INDEX: dict[Symbol, int] = {s: i for i, s in enumerate(Symbol)}
STAR_INDEX = SYMBOL_INDEX[Symbol.STAR]
TELEPORT_INDEX = SYMBOL_INDEX[Symbol.TELEPORT]
SPHERE_INDEX = SYMBOL_INDEX[Symbol.SPHERE]

Counts = tuple[int, int, int, int, int, int]


@dataclass(frozen=True)
class Die:
    """A die described by its faces; the game's die has one face of each symbol."""

    name: str
    faces: tuple[Symbol, ...]

    def __post_init__(self) -> None:
        if not self.faces:
            raise InvalidThrowError(f"die {short_repr(self.name)} has no faces")

    def check_faces(self, dice: Iterable[Symbol], what: str = "throw") -> None:
        """Check that every die shows a face this die has.

        Raises:
            InvalidThrowError: a symbol no face of this die bears.
        """
        missing = sorted({d for d in dice if d not in self.faces}, key=list(Symbol).index)
        if missing:
            names = ", ".join(str(m) for m in missing)
            faces = ", ".join(str(f) for f in self.faces)
            raise InvalidThrowError(
                f"{what} shows {names}, but no face of the die {short_repr(self.name)} does "
                f"(its faces: {faces})"
            )

    def probabilities(self) -> dict[Symbol, float]:
        """The chance of each symbol on one throw of this die."""
        n = len(self.faces)
        return {s: self.faces.count(s) / n for s in Symbol if s in self.faces}


TOURNAMENT_DIE = Die("tournament-of-power", tuple(Symbol))


def counts_of(dice: Iterable[Symbol]) -> Counts:
    """How many dice show each symbol, in Symbol order."""
    c = [0, 0, 0, 0, 0, 0]
    for d in dice:
        c[SYMBOL_INDEX[d]] += 1
    return (c[0], c[1], c[2], c[3], c[4], c[5])


def dice_of(counts: Sequence[int]) -> tuple[Symbol, ...]:
    """The sorted dice a counts vector describes."""
    out: list[Symbol] = []
    for symbol, n in zip(Symbol, counts, strict=True):
        out.extend([symbol] * n)
    return tuple(out)


def clamp_pool(size: int) -> int:
    """A pool is never more than 6 dice and never fewer than 1 (docs/rules.md §2)."""
    return max(MIN_POOL, min(MAX_POOL, size))


def check_throw(dice: Sequence[Symbol], pool: int, what: str = "throw") -> None:
    """Check that a throw has exactly ``pool`` dice.

    Raises:
        InvalidThrowError: another number of dice.
    """
    if len(dice) != pool:
        raise InvalidThrowError(f"{what} has {len(dice)} dice, but the pool is {pool} dice")
