"""The Story objective (docs/rules.md §12): take the square, not knock anyone out.

A Story square is two attack attempts, green's then red's, each side's own dice and
rerolls, no defence, no dodge, nothing coming back; the damage of each is the option
cashed in (the engine records it as is), and the square goes to the side the rules'
:func:`controller.game.story.takes` names (green only by more damage, a tie to red).
So the striker's stop value for a throw is its chance of taking the square with the
damage it would cash in:

- the other side has attempted already (the striker is red): 1 or 0, its damage
  known;
- the other side attempts after the striker (the striker is green): the other side
  then knows the damage to beat and plays for it, so the striker's chance is
  1 - P(the other side, playing optimally for that goal, makes a damage that takes
  the square). :func:`reach_chances` solves the other side's reroll DP for every
  goal at once (one column per damage level it can make). This is the striker's exact
  chance of taking the square, which neither the expected damage (a 25 that the other
  side seldom reaches is worth more than a gamble on 30) nor a defender model sees.

Nothing else counts: damage beyond what takes the square wins nothing, so on a tie
in the chance the advisor stops (the DP's rule) rather than reroll a square already
won for more damage; a throw stopped cashes in its most damaging option.
:class:`StoryValuer` is the Tournament's :class:`~controller.advisor.values.AttackValuer`
with no defender (raw damage, every speed alike) ranked by that chance instead of a
knock-out.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from controller.advisor.multisets import FloatArray, Tables, tables
from controller.advisor.values import AttackValuer, Objective, OptionValue
from controller.game.story import StorySide, StoryStakes, takes
from controller.rules.dice import TOURNAMENT_DIE, Die
from controller.rules.scoring import CardCombo
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import Fighter


def other_side(side: StorySide) -> StorySide:
    """Green's other side is red, and red's green."""
    return StorySide.RED if side is StorySide.GREEN else StorySide.GREEN


def reach_chances(t: Tables, rerolls: int, goal: npt.NDArray[np.bool_]) -> FloatArray:
    """For each column of ``goal`` ((S, L): the throws that reach goal ``l`` when cashed
    in), the chance of ending on such a throw, playing optimally for that goal with
    ``rerolls`` rerolls (the DP of :mod:`controller.advisor.dp` on the primary value,
    every goal at once; no speed in Story, so one stop value at every level)."""
    stop = goal.astype(np.float64)
    v = stop
    pad = np.zeros((1, stop.shape[1]))
    for _ in range(rerolls):
        after = np.vstack([t.transition @ v, pad])  # the padding keep: worth 0 <= any stop
        v = np.maximum(stop, after[t.sub].max(axis=1))
    out: FloatArray = t.first_throw @ v
    return out


def best_damage(
    fighter: Fighter,
    cards: Sequence[CardCombo],
    pool: int,
    variants: Variants = DEFAULT_VARIANTS,
    die: Die = TOURNAMENT_DIE,
    sum_allowed: bool = True,
) -> FloatArray:
    """(S,) the most damage each throw of ``pool`` dice can cash in (what the engine
    offers: rules.scoring.cashable)."""
    v = AttackValuer(
        fighter, None, 0, cards, variants, objective=Objective.DAMAGE, die=die,
        sum_allowed=sum_allowed,
    )  # fmt: skip
    return v.stop_table(tables(die, pool), 0).raw


class WinChances:
    """The striker's chance of taking the square with each damage it may cash in."""

    def __init__(
        self,
        stakes: StoryStakes,
        variants: Variants = DEFAULT_VARIANTS,
        die: Die = TOURNAMENT_DIE,
        sum_allowed: bool = True,
    ) -> None:
        self.stakes = stakes
        self._cache: dict[int, float] = {}
        self.levels: FloatArray = np.zeros(0)
        self.reach: FloatArray = np.zeros(0)
        if stakes.other_damage is None:
            t = tables(die, stakes.other_pool)
            best = best_damage(
                stakes.other, stakes.other_cards, stakes.other_pool, variants, die, sum_allowed
            )
            self.levels = np.unique(best)  # ascending: goal l = "cash in levels[l] or more"
            self.reach = reach_chances(
                t, stakes.other_rerolls, best[:, None] >= self.levels[None, :]
            )

    def __call__(self, mine: int) -> float:
        """The chance of taking the square when the striker cashes in ``mine``."""
        hit = self._cache.get(mine)
        if hit is None:
            hit = self._cache[mine] = self._chance(mine)
        return hit

    def _chance(self, mine: int) -> float:
        s = self.stakes
        if s.other_damage is not None:
            return 1.0 if takes(s.side, mine, s.other_damage) else 0.0
        # the damages that take the square from the striker: an upper set, the rule being
        # monotone (more damage never loses), so the other side plays for the least of them
        other = other_side(s.side)
        hits = [j for j, r in enumerate(self.levels) if takes(other, int(r), mine)]
        return 1.0 if not hits else 1.0 - float(self.reach[hits[0]])


class StoryValuer(AttackValuer):
    """Values a Story attempt's options: no defender (the raw damage, recorded as is),
    ranked by the chance of taking the square (then, within a throw, by raw damage)."""

    def __init__(
        self,
        attacker: Fighter,
        stakes: StoryStakes,
        cards: Sequence[CardCombo] = (),
        variants: Variants = DEFAULT_VARIANTS,
        *,
        die: Die = TOURNAMENT_DIE,
        sum_allowed: bool = True,
    ) -> None:
        super().__init__(
            attacker, None, 0, cards, variants, objective=Objective.DAMAGE, die=die,
            sum_allowed=sum_allowed,
        )  # fmt: skip
        self.objective = Objective.STORY
        self.stakes = stakes
        self.win = WinChances(stakes, variants, die, sum_allowed)

    def key(self, v: OptionValue) -> tuple[float, float]:
        """(chance of taking the square, 0): no second aim, a tie stops."""
        return (self.win(v.option.damage), 0.0)
