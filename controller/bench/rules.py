"""``toptable bench rules``: throws scored per second (all options, 6 dice,
two warrior combos and three card combos), on one core.

Two figures: the scorer as the advisor and the simulations use it (memoised per
multiset of faces: a 6-dice throw is one of 462 multisets), and every throw
scored from scratch (no memo), so the cost of the matching itself is visible.
"""

from __future__ import annotations

import argparse
import random
import time

from controller.core.symbols import Symbol
from controller.rules.scoring import CardCombo, ThrowScorer
from controller.rules.warriors import NO_ABILITY, Combo, Warrior

TARGET_PER_SECOND = 200_000


def bench_warrior() -> Warrior:
    """A fixed warrior for the benchmark (values invented; only the shape matters)."""
    s = Symbol
    return Warrior(
        name="Bench",
        endurance=30,
        power=6,
        technique=3,
        values={s.KICK: 2, s.PUNCH: 4, s.SPHERE: 3, s.STRENGTH: 1},
        dodge=4,
        ability=NO_ABILITY,
        combos=(
            Combo("Enchainement", (s.SPHERE, s.SPHERE, s.PUNCH, s.PUNCH), 23),
            Combo("Ki Storm", (s.SPHERE, s.SPHERE, s.SPHERE, s.STRENGTH, s.STRENGTH), 35),
        ),
    )


BENCH_CARDS = (
    CardCombo("Kamehameha", (Symbol.SPHERE, Symbol.SPHERE, Symbol.SPHERE, Symbol.TELEPORT), 30),
    CardCombo("Dodge", (Symbol.TELEPORT, Symbol.TELEPORT), 0),
    CardCombo("Kick Storm", (Symbol.KICK, Symbol.KICK, Symbol.KICK, Symbol.PUNCH), 26),
)


def _throws(n: int, seed: int = 7) -> list[tuple[Symbol, ...]]:
    rng = random.Random(seed)
    faces = list(Symbol)
    return [tuple(rng.choice(faces) for _ in range(6)) for _ in range(n)]


def measure(n: int) -> tuple[float, float]:
    """(memoised throws/s, from-scratch throws/s) over ``n`` random 6-dice throws."""
    fighter = bench_warrior().fighter()
    throws = _throws(n)
    scorer = ThrowScorer(fighter, BENCH_CARDS)
    for t in throws[:2000]:  # warm the memo as an attack's first throws would
        scorer.score(t)
    start = time.perf_counter()
    for t in throws:
        scorer.score(t)
    memo = n / (time.perf_counter() - start)

    cold_n = max(1, n // 5)
    start = time.perf_counter()
    for t in throws[:cold_n]:
        ThrowScorer(fighter, BENCH_CARDS).score(t)
    cold = cold_n / (time.perf_counter() - start)
    return memo, cold


def main(argv: list[str]) -> int:
    """Print the figures; exit 0 (figures are read, not asserted)."""
    parser = argparse.ArgumentParser(prog="toptable bench rules")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--throws", type=int, default=None)
    args = parser.parse_args(argv)
    n = args.throws or (50_000 if args.quick else 500_000)
    memo, cold = measure(n)
    verdict = "meets" if memo >= TARGET_PER_SECOND else "MISSES"
    print("throws scored per second (6 dice, 2 combos + 3 card combos, all options, one core):")
    print(f"  memoised scorer (as used by the advisor and simulations): {memo:,.0f}/s  "
          f"[{verdict} the target of {TARGET_PER_SECOND:,}/s]")  # fmt: skip
    print(f"  from scratch (new scorer per throw, no memo):             {cold:,.0f}/s")
    return 0
