"""Roll tracking across rerolls: which dice stayed put, how many throws, what speed.

Between two settled throws, a die is *kept* when a die of the previous throw
lay at the same place (centres closer than ``max_shift`` die sides) showing the
same face; every other die was *rerolled*. A new attack's first throw is told
from the dice that lay in the tray before it too: a read whose every die lay so
is no throw (a hand passed over them, some were lifted out). The number of
throws gives the attack speed (docs/rules.md §3): 1 throw (no reroll) is a
lightning attack, 2 a surprise attack, 3 or more a normal attack.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from controller.core.symbols import speed_after_throws


def attack_speed(throws: int) -> str:
    """The attack speed's name given by ``throws`` throws (1 = first roll only): the
    rules' own (:func:`controller.core.symbols.speed_after_throws`)."""
    return speed_after_throws(throws).value


@dataclass(frozen=True)
class TrackedDie:
    """What tracking needs of a die: its centre, size and face."""

    center: tuple[float, float]
    side: float
    face: str | None


@dataclass(frozen=True)
class RollStep:
    """The outcome of one throw: its number, kept and rerolled dice (indices), speed."""

    roll_no: int
    kept: tuple[int, ...]
    rerolled: tuple[int, ...]
    speed: str


class RollTracker:
    """Counts the throws of one attack and tells kept dice from rerolled ones."""

    def __init__(self, max_shift: float = 0.25) -> None:
        self.max_shift = max_shift
        self._previous: list[TrackedDie] = []
        self.throws = 0

    def new_attack(self) -> None:
        """Start counting a new attack: the next throw is roll 1 (the dice lying in the
        tray are still those its dice are told from)."""
        self.throws = 0

    def lying(self, dice: Sequence[TrackedDie]) -> None:
        """The dice lying in the tray now (a camera back, a still tray at start): what the
        next throw is told from; no throw is counted."""
        self._previous = list(dice)

    def step(self, dice: Sequence[TrackedDie]) -> RollStep:
        """Record a settled read and say which of its dice were kept; one with none
        rerolled is no throw (not counted)."""
        kept: list[int] = []
        if self._previous:
            used: set[int] = set()
            pairs = sorted(
                (math.dist(d.center, p.center) / max(1.0, min(d.side, p.side)), i, j)
                for i, d in enumerate(dice)
                for j, p in enumerate(self._previous)
                if d.face == p.face  # a cocked die (None) lying still is kept too
            )
            taken: set[int] = set()
            for shift, i, j in pairs:
                if shift > self.max_shift:
                    break
                if i in taken or j in used:
                    continue
                taken.add(i)
                used.add(j)
            kept = sorted(taken)
        self._previous = list(dice)
        rerolled = tuple(i for i in range(len(dice)) if i not in kept)
        if rerolled:
            self.throws += 1
        return RollStep(self.throws, tuple(kept), rerolled, attack_speed(self.throws))
