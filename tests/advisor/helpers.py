"""Helpers for the advisor tests: small fighters and a brute-force solver.

The brute force is written independently of the advisor's multiset tables: it
enumerates ordered dice and every subset of positions to reroll.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from itertools import product

from controller.advisor.dp import TIE
from controller.core.symbols import Symbol
from controller.rules.dice import TOURNAMENT_DIE, Die
from controller.rules.warriors import (
    NO_ABILITY,
    Ability,
    AbilityKind,
    Combo,
    Fighter,
    Form,
    Warrior,
)

K, P, SP, ST, STAR, T = (
    Symbol.KICK,
    Symbol.PUNCH,
    Symbol.SPHERE,
    Symbol.STRENGTH,
    Symbol.STAR,
    Symbol.TELEPORT,
)
VALUES = {K: 3, P: 4, SP: 5, ST: 2}


def fighter(
    name: str = "Tester",
    *,
    power: int = 3,
    technique: int = 2,
    endurance: int = 30,
    dodge: int = 2,
    ability: Ability = NO_ABILITY,
    combos: Sequence[Combo] = (
        Combo("Double Kick", (K, K), 12),
        Combo("Sphere Punch", (SP, P, P), 20),
    ),
    divisor: int = 1,
    cost: int = 0,
) -> Fighter:
    """A made-up fighter (a form when ``divisor`` > 1, so the divisor applies)."""
    forms: tuple[Form, ...] = ()
    if divisor > 1:
        forms = (Form(f"Super {name}", 2, power, technique, divisor, cost),)
    w = Warrior(
        name, endurance, power, technique, VALUES, dodge, ability, tuple(combos), forms=forms
    )
    return w.fighter(forms[0] if forms else None)


def ability(kind: AbilityKind, n: int = 0) -> Ability:
    """An ability by kind."""
    return Ability(kind, n)


Pair = tuple[float, float]


def _better(a: Pair, b: Pair) -> bool:
    """Whether ``a`` is lexicographically better than ``b`` (beyond the tie tolerance)."""
    if a[0] > b[0] + TIE:
        return True
    return abs(a[0] - b[0]) <= TIE and a[1] > b[1] + TIE


def brute_force(
    pool: int,
    rerolls: int,
    stop: Callable[[tuple[Symbol, ...], int], Pair],
    die: Die = TOURNAMENT_DIE,
) -> tuple[Pair, Callable[[tuple[Symbol, ...], int, tuple[int, ...]], Pair]]:
    """Optimal (primary, secondary) before the first throw, by exhaustive expectimax
    over ordered dice and every set of positions to reroll; also a function giving
    the value of rerolling given positions of a throw at a level."""
    faces = die.faces
    nf = len(faces)

    def reroll_value(dice: tuple[Symbol, ...], m: int, positions: tuple[int, ...]) -> Pair:
        kept = [d for i, d in enumerate(dice) if i not in positions]
        tp = ts = 0.0
        outs = list(product(faces, repeat=len(positions)))
        for out in outs:
            vp, vs = value(tuple(sorted([*kept, *out])), m + 1)
            tp += vp
            ts += vs
        return tp / len(outs), ts / len(outs)

    @cache
    def value(dice: tuple[Symbol, ...], m: int) -> Pair:
        best = stop(dice, m)
        if m < rerolls:
            for r in range(1, pool + 1):
                for positions in _subsets(pool, r):
                    v = reroll_value(dice, m, positions)
                    if _better(v, best):
                        best = v
        return best

    tp = ts = 0.0
    throws = list(product(faces, repeat=pool))
    for throw in throws:
        vp, vs = value(tuple(sorted(throw)), 0)
        tp += vp
        ts += vs
    return (tp / nf**pool, ts / nf**pool), reroll_value


def _subsets(n: int, r: int) -> list[tuple[int, ...]]:
    from itertools import combinations

    return list(combinations(range(n), r))
