"""``toptable bench advisor``: milliseconds per advice, and a Monte Carlo check.

The issue's case: 6 dice, 4 rerolls left, 2 warrior combos and 3 card combos,
against a defender that may dodge (demo data: Anilaza with 1 support die
against Jiren). Figures printed:

- cold: a new :class:`Advisor` and its first advice (solves the whole DP;
  module-level tables already built, as in a running table);
- first ever: the same with every module cache cleared (the table's start);
- warm: later advice in the same attack (a lookup);
- the team planner (``toptable odds --all``) over the demo roster;
- exact expected damage and P(KO) against a vectorised Monte Carlo run of the
  same policy (10^6 attempts; 10^5 with ``--quick``);
- what comes back: the same attacker, having taken 25, against a defender that
  counter-attacks (Pirina): cold advice time, and the exact four numbers (damage
  dealt, P(KO), damage taken, P(own KO)) against 10^6 whole combats played
  through the rules' combat sequence (:func:`~controller.advisor.simulate.simulate_combat`);
- a Story square (:mod:`controller.bench.advisor_story`): cold advice time, and green's
  exact chance of taking it against squares played by both sides' advised policies.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from controller.advisor.advisor import Advisor
from controller.advisor.defence import dodge_chance
from controller.advisor.multisets import outcome_distribution, tables
from controller.advisor.odds import team_table
from controller.bench.advisor_story import story_case
from controller.core.symbols import Symbol
from controller.gamedata import data_dir, data_file
from controller.gamedata.warriors import load_warriors
from controller.rules.dice import dice_of
from controller.rules.scoring import CardCombo
from controller.rules.warriors import Fighter

COUNTER_CASE_DAMAGE = 25  # the attacker's damage taken in the counter-attack case
Throw = tuple[Symbol, ...]

CARDS = (
    CardCombo("Kamehameha", (Symbol.SPHERE, Symbol.SPHERE, Symbol.PUNCH), 30),
    CardCombo("Rush", (Symbol.KICK, Symbol.KICK, Symbol.KICK, Symbol.PUNCH), 28),
    CardCombo("Instant Move", (Symbol.TELEPORT, Symbol.TELEPORT, Symbol.STRENGTH), 14),
)


def _ms(samples: list[float]) -> str:
    s = sorted(samples)
    p95 = s[min(len(s) - 1, int(0.95 * len(s)))]
    return f"median {1000 * statistics.median(s):.2f} ms, p95 {1000 * p95:.2f} ms, n={len(s)}"


def main(argv: list[str]) -> int:
    """Print the advisor's figures; return 0."""
    ap = argparse.ArgumentParser(prog="toptable bench advisor")
    ap.add_argument(
        "--quick", action="store_true", help="fewer repetitions, 10^5 simulated attempts"
    )
    args = ap.parse_args(argv)
    reps = 10 if args.quick else 50
    roster = load_warriors(data_file(data_dir(None), "warriors.toml")).roster
    attacker, defender = roster.fighter("Anilaza"), roster.fighter("Jiren")

    def build() -> Advisor:
        return Advisor(attacker, 1, defender, 20, CARDS)

    adv = build()
    t = adv.tables
    throws = [dice_of(t.states[i]) for i in np.random.default_rng(1).integers(0, t.n_states, reps)]
    print(
        f"case: {attacker.name} ({adv.pool} dice, {adv.rerolls} rerolls left, "
        f"{len(attacker.combos)} combos + {len(CARDS)} card combos) vs {defender.name}"
    )

    first: list[float] = []
    for throw in throws[: max(3, reps // 10)]:
        tables.cache_clear()
        outcome_distribution.cache_clear()
        dodge_chance.cache_clear()
        t0 = time.perf_counter()
        build().advise(throw, 0)
        first.append(time.perf_counter() - t0)
    cold, cpu = _time_cold(build, throws)
    adv = build()
    adv.advise(throws[0], 0)
    warm: list[float] = []
    for i, throw in enumerate(throws):
        t0 = time.perf_counter()
        adv.advise(throw, i % (adv.rerolls + 1))
        warm.append(time.perf_counter() - t0)
    print(f"advice, first ever (caches cleared): {_ms(first)}")
    print(
        f"advice, cold (new Advisor, full DP):  {_ms(cold)}   (target <= 20 ms; "
        f"CPU median {1000 * statistics.median(cpu):.2f} ms)"
    )
    print(f"advice, warm (same attack):           {_ms(warm)}")

    t0 = time.perf_counter()
    rows = team_table(roster)
    print(f"team planner: {len(rows)} fighters in {1000 * (time.perf_counter() - t0):.0f} ms")

    n = 100_000 if args.quick else 1_000_000
    from controller.advisor.simulate import simulate

    t0 = time.perf_counter()
    dealt, ko = simulate(adv, n, seed=5)
    secs = time.perf_counter() - t0
    e, p = adv.start_value()
    se = dealt.std() / np.sqrt(n)
    print(
        f"Monte Carlo, {n} attempts in {secs:.1f} s: E exact {e:.3f} vs simulated "
        f"{dealt.mean():.3f} (±{se:.3f} s.e.); P(KO) exact {p:.4f} vs {ko.mean():.4f}"
    )
    _counter_case(roster.fighter("Pirina"), attacker, throws, n)
    story_case(n // 10, reps)
    return 0


def _time_cold(
    build: Callable[[], Advisor], throws: list[Throw]
) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds of advising each throw with a new Advisor (full DP each time)."""
    cold: list[float] = []
    cpu: list[float] = []
    for throw in throws:
        t0, c0 = time.perf_counter(), time.process_time()
        build().advise(throw, 0)
        cold.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return cold, cpu


def _counter_case(defender: Fighter, attacker: Fighter, throws: list[Throw], n: int) -> None:
    from controller.advisor.simulate import simulate_combat

    def build() -> Advisor:
        return Advisor(attacker, 1, defender, 0, CARDS, attacker_damage=COUNTER_CASE_DAMAGE)

    left = attacker.warrior.endurance - COUNTER_CASE_DAMAGE
    print(
        f"counter case: {attacker.name} ({left} endurance left) vs {defender.name} "
        f"({defender.ability.kind})"
    )
    build().advise(throws[0], 0)
    cold, cpu = _time_cold(build, throws)
    print(
        f"advice with counter-attack, cold:     {_ms(cold)}   (target <= 20 ms; "
        f"CPU median {1000 * statistics.median(cpu):.2f} ms)"
    )
    adv = build()
    exact = adv.start_values()
    t0 = time.perf_counter()
    sample = simulate_combat(adv, n, seed=5)
    secs = time.perf_counter() - t0
    print(
        f"Monte Carlo through the combat sequence, {n} combats in {secs:.1f} s "
        f"({sample.engine_calls} distinct combats resolved):"
    )
    rows = (
        ("E damage dealt", exact.expected_damage, sample.dealt),
        ("P(KO)", exact.p_eliminate or 0.0, sample.defender_out.astype(np.float64)),
        ("E damage taken", exact.expected_taken, sample.taken),
        ("P(own KO)", exact.p_attacker_eliminated or 0.0, sample.attacker_out.astype(np.float64)),
    )
    for name, x, sim in rows:
        se = float(sim.std() / np.sqrt(n))
        z = (float(sim.mean()) - x) / se if se > 0 else 0.0
        print(
            f"  {name:<15} exact {x:.4f} vs simulated {sim.mean():.4f} (±{se:.4f} s.e., z {z:+.1f})"
        )
