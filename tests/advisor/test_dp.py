"""The exact DP against brute force on small pools, and the dodge DP against its closed form."""

from __future__ import annotations

import numpy as np
import pytest

from controller.advisor.advisor import Advisor, DiceAction
from controller.advisor.defence import CardStopOdds, dodge_chance, greedy_dodge_chance
from controller.advisor.dp import LevelValues, solve
from controller.advisor.multisets import outcome_distribution, tables
from controller.advisor.values import Objective
from controller.core.symbols import Symbol, speed_after_rerolls
from controller.rules.dice import TOURNAMENT_DIE, Die, counts_of
from controller.rules.warriors import AbilityKind
from tests.advisor.helpers import SP, STAR, K, P, T, ability, brute_force, fighter

LOADED = Die("loaded", (K, K, P, SP, STAR, T))  # two kick faces: probabilities from the faces


def _brute_stop(adv: Advisor):  # type: ignore[no-untyped-def]
    """The stop value of a sorted throw at a level, through the scalar (non-vector) path."""

    def stop(dice: tuple[Symbol, ...], m: int) -> tuple[float, float]:
        v = adv.valuer.best_option(
            counts_of(dice), speed_after_rerolls(m) if adv.defender else speed_after_rerolls(0)
        )
        return adv.valuer.key(v)

    return stop


CASES = [
    # (pool, technique, defender kwargs or None, objective, die)
    (2, 1, None, Objective.DAMAGE, TOURNAMENT_DIE),
    (2, 2, None, Objective.DAMAGE, LOADED),
    (3, 2, None, Objective.DAMAGE, TOURNAMENT_DIE),
    (3, 2, {"endurance": 14, "dodge": 1}, Objective.KO, TOURNAMENT_DIE),
    (3, 2, {"endurance": 14, "dodge": 1}, Objective.DAMAGE, TOURNAMENT_DIE),
    (2, 2, {"endurance": 20, "dodge": 2, "divisor": 2}, Objective.KO, LOADED),
]


@pytest.mark.timeout(60)
@pytest.mark.parametrize(("pool", "technique", "dkw", "objective", "die"), CASES)
def test_dp_equals_brute_force(pool, technique, dkw, objective, die) -> None:  # type: ignore[no-untyped-def]
    attacker = fighter(power=pool, technique=technique)
    defender = fighter("Target", **dkw) if dkw is not None else None
    adv = Advisor(attacker, 0, defender, 3, objective=objective, die=die)
    assert adv.pool == pool and adv.rerolls == technique
    (bp, bs), reroll_value = brute_force(pool, technique, _brute_stop(adv), die)
    sol = adv.solution()
    t = sol.tables
    dp_p = float(t.first_throw @ sol.value_p[0])
    dp_s = float(t.first_throw @ sol.value_s[0])
    assert dp_p == pytest.approx(bp, abs=1e-9)
    assert dp_s == pytest.approx(bs, abs=1e-9)
    # Every reroll choice of a few throws equals the brute-force value of rerolling those dice.
    for throw in [(K, P, SP)[:pool], (STAR, T, K)[:pool], (P, P, P)[:pool]]:
        advice = adv.advise(throw, 0)
        for ch in advice.choices:
            if ch.action is DiceAction.STOP:
                continue
            rest = list(throw)
            for s in ch.keep:
                rest.remove(s)
            ordered = tuple(sorted(throw))
            positions: list[int] = []
            for s in ch.reroll:  # positions in the sorted throw of the dice rerolled
                positions.append(
                    next(i for i, d in enumerate(ordered) if d == s and i not in positions)
                )
            vp, vs = reroll_value(ordered, 0, tuple(positions))
            got = adv.valuer.key_pair(ch.expected_damage, ch.p_eliminate)
            assert got == pytest.approx((vp, vs), abs=1e-9)


def test_first_throw_and_outcomes_are_distributions() -> None:
    for die in (TOURNAMENT_DIE, LOADED):
        for n in range(1, 7):
            t = tables(die, n)
            assert t.first_throw.sum() == pytest.approx(1.0)
            assert t.transition.sum(axis=1) == pytest.approx(1.0)
    # Two kicks on the loaded die: P(one die shows kick) = 2/6.
    dist = dict(outcome_distribution(LOADED, 1))
    assert dist[counts_of([K])] == pytest.approx(2 / 6)
    assert counts_of([Symbol.STRENGTH]) not in dist


def test_sub_multisets_of_a_throw() -> None:
    t = tables(TOURNAMENT_DIE, 3)
    si = t.state_index[counts_of([K, K, P])]
    subs = {t.keeps[k] for k in t.sub[si] if k < t.n_keeps}
    # {}, {K}, {P}, {K,K}, {K,P}: 5 proper sub-multisets of K K P.
    assert subs == {counts_of(x) for x in [(), (K,), (P,), (K, K), (K, P)]}


@pytest.mark.parametrize("pool", [1, 2, 3, 4, 5, 6])
@pytest.mark.parametrize("rerolls", [0, 1, 3])
@pytest.mark.parametrize("needed", [1, 2, 3, 4, 6])
def test_dodge_dp_equals_greedy_keep(pool: int, rerolls: int, needed: int) -> None:
    exact = dodge_chance(pool, rerolls, needed)
    assert exact == pytest.approx(greedy_dodge_chance(pool, rerolls, needed, 2 / 6), abs=1e-12)


def test_dodge_edge_cases() -> None:
    assert dodge_chance(3, 2, 0) == 1.0
    assert dodge_chance(3, 2, 4) == 0.0
    # One die, no reroll: a teleport or a star.
    assert dodge_chance(1, 0, 1) == pytest.approx(2 / 6)
    # One die, one reroll: 1 - (4/6)^2.
    assert dodge_chance(1, 1, 1) == pytest.approx(1 - (4 / 6) ** 2)


def test_speed_trade_off_lightning_beats_a_dodged_normal_attack() -> None:
    """A throw worth a KO after 1 reroll should stop: one more and the defender may dodge."""
    attacker = fighter(power=3, technique=3)
    defender = fighter("Target", endurance=12, dodge=1)  # dodges often
    adv = Advisor(attacker, 0, defender, 0)
    advice = adv.advise((K, K, T), 1)  # Double Kick: 12 damage, a KO at surprise speed
    assert advice.best.action is DiceAction.STOP
    assert advice.best.p_eliminate == pytest.approx(1.0)
    assert all(
        c.p_eliminate is not None and c.p_eliminate < 1.0
        for c in advice.choices
        if c.action is DiceAction.REROLL
    )
    # With rerolls made 0, one more reroll is still a surprise attack: keep K K, reroll T.
    early = adv.advise((K, K, T), 0)
    assert early.best.action is DiceAction.REROLL and early.best.p_eliminate == pytest.approx(1.0)
    assert early.best.keep == (K, K)
    # After two rerolls the same throw is dodged with the defender's dodge chance.
    late = adv.advise((K, K, T), 2)
    assert late.best.p_eliminate == pytest.approx(1 - adv.valuer.dodge)
    assert 0 < adv.valuer.dodge < 1


def test_card_defence_assumption_lowers_surprise_value() -> None:
    attacker = fighter(power=3, technique=2)
    defender = fighter("Target", endurance=40)
    plain = Advisor(attacker, 0, defender, 0).advise((K, K, T), 1)
    carded = Advisor(attacker, 0, defender, 0, card_defence=CardStopOdds(0.5)).advise((K, K, T), 1)
    stop_plain = next(c for c in plain.choices if c.action is DiceAction.STOP)
    stop_carded = next(c for c in carded.choices if c.action is DiceAction.STOP)
    assert stop_plain.expected_damage == pytest.approx(12.0)
    assert stop_carded.expected_damage == pytest.approx(6.0)


def test_attacker_fewer_rerolls_and_dice_come_from_the_defender() -> None:
    attacker = fighter(power=4, technique=3)
    d1 = fighter("Slow", ability=ability(AbilityKind.ATTACKER_FEWER_REROLLS, 2))
    d2 = fighter("Small", ability=ability(AbilityKind.ATTACKER_FEWER_DICE, 1))
    assert Advisor(attacker, 0, d1).rerolls == 1
    assert Advisor(attacker, 0, d2).pool == 3


def test_sizes_outside_the_documented_ranges_are_refused() -> None:
    """``tables`` takes a pool of 1..6 dice and ``solve`` 0 or more rerolls; anything else is a
    ValueError (not an IndexError or a KeyError from inside the tables)."""
    for pool in (0, 7):
        with pytest.raises(ValueError, match=r"pool must be 1\.\.6"):
            tables(TOURNAMENT_DIE, pool)
    t = tables(TOURNAMENT_DIE, 2)
    zeros = np.zeros(t.n_states)
    with pytest.raises(ValueError, match="rerolls must be >= 0"):
        solve(t, -1, lambda _m: LevelValues(zeros, zeros))
