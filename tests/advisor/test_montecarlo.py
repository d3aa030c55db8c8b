"""The exact values against a Monte Carlo run of the same policy on real (pseudo-random) dice.

10^6 attempts per case, vectorised with numpy (a second or so each); the
tolerance is 5 standard errors of the simulated mean.
"""

from __future__ import annotations

import numpy as np
import pytest

from controller.advisor.advisor import Advisor
from controller.advisor.defence import fighter_dodge_chance
from controller.advisor.odds import planner_row
from controller.advisor.simulate import simulate
from controller.advisor.values import Objective
from controller.rules.scoring import CardCombo
from controller.rules.variants import Variants
from controller.rules.warriors import AbilityKind
from tests.advisor.helpers import SP, ST, K, P, T, ability, fighter

THROWS = 1_000_000


def _check(adv: Advisor, throws: int, seed: int) -> None:
    dealt, ko = simulate(adv, throws, seed)
    e, p = adv.start_value()
    se_e = dealt.std() / np.sqrt(throws)
    assert abs(dealt.mean() - e) < 5 * se_e + 1e-9, (dealt.mean(), e, se_e)
    if p is not None:
        se_p = np.sqrt(max(p * (1 - p), 1e-12) / throws)
        assert abs(ko.mean() - p) < 5 * se_p + 1e-9, (ko.mean(), p, se_p)


@pytest.mark.timeout(60)
def test_small_run_matches_exact_value() -> None:
    """A fast check (10^5 attempts) of a 4-dice attack against a dodging defender."""
    adv = Advisor(fighter(power=4, technique=3), 0, fighter("D", endurance=20, dodge=2), 2)
    _check(adv, 100_000, seed=7)


@pytest.mark.timeout(60)
def test_small_run_against_a_form_whose_cost_decides_the_ko() -> None:
    """A defender in a form (divisor 2, cost 2) with 8 of 20 taken: 10 landed knock it out
    with its cost, 12 without; the run counts the cost as the rules do."""
    giant = fighter("G", endurance=20, dodge=2, divisor=2, cost=2)
    adv = Advisor(fighter(power=4, technique=2), 0, giant, 8)
    p = adv.start_value()[1]
    assert p is not None and 0.05 < p < 0.95
    _check(adv, 100_000, seed=8)


@pytest.mark.timeout(60)
def test_a_run_under_a_variant_plays_its_dodge() -> None:
    """Review tests2 F1: the Monte Carlo check (and the planner, and a counter-attack's
    dodge) threw the dodge under the default rules whatever the game's variants: with
    B's "as many teleports as dice" a dodge is far harder."""
    every = Variants(dodge_needs_every_die=True)
    dodger = fighter("D", endurance=20, dodge=2)
    adv = Advisor(fighter(power=4, technique=3), 0, dodger, 2, variants=every)
    _check(adv, 100_000, seed=7)
    assert adv.start_value() != Advisor(fighter(power=4, technique=3), 0, dodger, 2).start_value()
    row, hard = planner_row(dodger), planner_row(dodger, every)
    assert hard.p_dodge == pytest.approx(fighter_dodge_chance(dodger, 0, variants=every))
    assert hard.p_dodge < row.p_dodge / 2
    assert (row.dodge, hard.dodge) == (dodger.dodge, hard.dodge_pool)  # the column too


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    "case",
    ["raw-6-dice", "ko-vs-dodger", "damage-vs-giant-with-cards"],
)
def test_million_throws_match_exact_values(case: str) -> None:
    cards = (
        CardCombo("Kame", (SP, SP, P), 30),
        CardCombo("Rush", (K, K, K, P), 28),
        CardCombo("Tele", (T, T), 10),
    )
    if case == "raw-6-dice":
        adv = Advisor(fighter(power=6, technique=4), objective=Objective.DAMAGE, cards=cards)
    elif case == "ko-vs-dodger":
        adv = Advisor(
            fighter(power=5, technique=4),
            1,
            fighter("Dodger", endurance=30, dodge=2, ability=ability(AbilityKind.SHIELD)),
            10,
            cards,
        )
    else:
        adv = Advisor(
            fighter(power=5, technique=3, combos=()),
            0,
            fighter("Giant", endurance=40, dodge=3, divisor=2, cost=1),
            0,
            (*cards, CardCombo("Strong", (ST, ST), 16)),
            objective=Objective.DAMAGE,
        )
    _check(adv, THROWS, seed=11)
