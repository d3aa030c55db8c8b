"""The Story objective (docs/rules.md §12, controller/advisor/story.py): one attempt per side,
no defence; the striker plays for the square (green only by more damage, a tie to red)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from controller.advisor.advisor import Advisor, AdvisorInputError, DiceAction, summary_line
from controller.advisor.dp import LevelValues, solve
from controller.advisor.multisets import tables
from controller.advisor.story import WinChances, best_damage, reach_chances
from controller.advisor.values import Objective
from controller.core.symbols import Symbol
from controller.game.story import StorySide, StoryStakes, takes
from controller.rules.dice import TOURNAMENT_DIE
from controller.rules.scoring import CardCombo, ThrowScorer, cashable
from controller.rules.warriors import Combo, Fighter
from tests.advisor.helpers import SP, ST, STAR, K, P, T, brute_force, fighter

pytestmark = pytest.mark.timeout(120)

SQUARE = (CardCombo("Square Combo", (K, K, ST), 19),)
GREEN = fighter("Greeny", power=3, technique=2)
RED = fighter("Reddy", power=4, technique=2, combos=(Combo("Triple", (P, P, P), 26),))


def _stakes(
    side: StorySide, other: Fighter, pool: int, rerolls: int, damage: int | None
) -> StoryStakes:
    return StoryStakes(side, other, pool, rerolls, SQUARE, damage)


def _start_win(adv: Advisor) -> float:
    sol = adv.solution()
    win = float(sol.tables.first_throw @ sol.value_p[0])
    assert adv.start_values().p_win == pytest.approx(win)  # as the advisor reports it
    return win


def _best(f: Fighter, dice: Sequence[Symbol]) -> int:
    """The most damage the rules let ``f`` cash in (independent of the advisor's tables)."""
    return max(o.damage for o in cashable(ThrowScorer(f, SQUARE).score(tuple(dice)).options))


def test_the_other_sides_reach_is_the_dp_for_every_goal_at_once() -> None:
    t = tables(TOURNAMENT_DIE, 4)
    best = best_damage(RED, SQUARE, 4)
    levels = np.unique(best)
    reach = reach_chances(t, 2, best[:, None] >= levels[None, :])
    for j, level in enumerate(levels):
        stop = LevelValues((best >= level).astype(float), np.zeros(t.n_states))

        def at(m: int, stop: LevelValues = stop) -> LevelValues:
            return stop

        sol = solve(t, 2, at)
        assert reach[j] == pytest.approx(float(t.first_throw @ sol.value_p[0]), abs=1e-12)


def test_red_second_plays_to_reach_greens_damage_not_more() -> None:
    """Red knows green's 19: a throw worth 26 already takes the square (stop, P(win) 1);
    a throw worth 19 takes it too (a tie goes to red); one worth 18 does not."""
    adv = Advisor(
        RED, cards=SQUARE, pool=4, rerolls=2, story=_stakes(StorySide.RED, GREEN, 3, 2, 19)
    )
    assert adv.objective is Objective.STORY and adv.defender is None
    for throw, damage in (((SP, P, P, P), 26), ((K, K, ST, T), 19)):
        assert _best(RED, throw) == damage
        a = adv.advise(throw, 0)
        assert a.best.action is DiceAction.STOP and a.best.p_win == 1.0
        assert a.best.p_eliminate is None  # no knock-out in Story mode
    a = adv.advise((SP, SP, P, P), 0)  # worth 5 + 5 + 4 + 4 = 18
    assert a.best.action is DiceAction.REROLL and 0.0 < (a.best.p_win or 0.0) < 1.0
    assert "P(win)" in summary_line(a) and "P(KO)" not in summary_line(a)
    assert a.to_json()["best"]["p_win"] == pytest.approx(a.best.p_win)  # type: ignore[index]


def test_green_first_chance_is_one_minus_reds_best_answer() -> None:
    """Green's chance with damage d is 1 - red's chance of taking the square when red, second,
    knows d and plays for it (its own Story advisor), for every d green can cash in."""
    win = WinChances(_stakes(StorySide.GREEN, RED, 4, 2, None))
    for d in sorted({int(x) for x in best_damage(GREEN, SQUARE, 3)}):
        red = Advisor(
            RED, cards=SQUARE, pool=4, rerolls=2, story=_stakes(StorySide.RED, GREEN, 3, 2, d)
        )
        assert win(d) == pytest.approx(1.0 - _start_win(red), abs=1e-12)


def test_green_first_matches_a_brute_force_of_both_attempts() -> None:
    """Two dice each, one reroll each, exhaustive over ordered dice and reroll positions:
    red answers each damage of green's optimally, green plays for the square."""
    red_f, green_f = fighter("R", power=2, technique=1), fighter("G", power=2, technique=1)

    def red_takes(g: int) -> float:
        (p, _), _ = brute_force(
            2, 1, lambda dice, m: (float(takes(StorySide.RED, _best(red_f, dice), g)), 0.0)
        )
        return p

    chance = {g: 1.0 - red_takes(g) for g in {_best(green_f, d) for d in _pairs()}}
    (want, _), _ = brute_force(2, 1, lambda dice, m: (chance[_best(green_f, dice)], 0.0))
    adv = Advisor(
        green_f, cards=SQUARE, pool=2, rerolls=1, story=_stakes(StorySide.GREEN, red_f, 2, 1, None)
    )
    assert _start_win(adv) == pytest.approx(want, abs=1e-12)


def _pairs() -> list[tuple[Symbol, Symbol]]:
    faces = TOURNAMENT_DIE.faces
    return [(a, b) for a in faces for b in faces]


def test_a_story_attempt_has_no_defender_and_needs_its_stakes() -> None:
    stakes = _stakes(StorySide.RED, GREEN, 3, 2, 10)
    with pytest.raises(AdvisorInputError):
        Advisor(RED, defender=GREEN, story=stakes)
    with pytest.raises(AdvisorInputError):
        Advisor(RED, objective=Objective.STORY)
    with pytest.raises(AdvisorInputError):
        Advisor(RED, objective=Objective.KO, story=stakes)


def test_tournament_advice_carries_no_story_chance() -> None:
    adv = Advisor(GREEN, defender=RED)
    a = adv.advise((K, K, STAR), 0)
    assert a.best.p_win is None and "p_win" not in a.to_json()["best"]  # type: ignore[operator]
    assert adv.start_values().p_win is None


def test_a_damage_the_other_side_cannot_reach_takes_the_square_for_sure() -> None:
    """Green first, with one more damage than red's best throw can cash in: red never takes
    the square (green wins by more damage); with red's best itself, a tie red may reach."""
    win = WinChances(_stakes(StorySide.GREEN, RED, 4, 2, None))
    top = int(best_damage(RED, SQUARE, 4).max())
    assert win(top + 1) == 1.0 and win(top + 50) == 1.0
    assert 0.0 < win(top) < 1.0
