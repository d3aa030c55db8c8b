"""The defender's counter-attack (docs/rules.md §8), for the attacker's risk.

A defender with the *counter-attack* ability attacks back at once when both
warriors still stand after the attack and it did not flee
(:func:`controller.rules.combat.may_strike_back`). The advisor assumes it
always does, with its whole attack pool and rerolls and no card combos (its
hand is unknown), playing the advisor's own optimal policy against the
attacker: maximise P(eliminate the attacker), ties broken by expected damage
(its own risk from a reflected sphere is not part of its choice). The attacker
answers it as any defender does (its exact dodge chance, Shield, the
card-defence assumption, Solar Flare). When the attacker has *reflect sphere*,
a counter combo holding a sphere comes back to the defender, which dodges it
with its exact dodge chance.

All exact: one DP per damage the attacker has taken before the counter (one
in practice), then a policy evaluation per damage the defender has taken.
"""

from __future__ import annotations

import numpy as np

from controller.advisor.defence import NO_CARD_DEFENCE, CardStopOdds, fighter_dodge_chance
from controller.advisor.dp import Solution, evaluate, solve
from controller.advisor.multisets import FloatArray, Tables, tables
from controller.advisor.values import AttackValuer, Objective
from controller.rules.dice import TOURNAMENT_DIE, Die
from controller.rules.endurance import is_eliminated
from controller.rules.pools import attack_pool, attack_rerolls
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import AbilityKind, Fighter


def eliminated(total: FloatArray, endurance: int, variants: Variants) -> FloatArray:
    """:func:`controller.rules.endurance.is_eliminated` over an array of damage totals, as 0/1."""
    if variants.eliminate_only_when_exceeded:
        return (total > endurance).astype(np.float64)
    return (total >= endurance).astype(np.float64)


class CounterModel:
    """The counter-attack of ``striker`` (the first attack's defender) on ``target``."""

    def __init__(
        self,
        striker: Fighter,
        striker_support: int,
        target: Fighter,
        target_support: int,
        variants: Variants = DEFAULT_VARIANTS,
        card_defence: CardStopOdds = NO_CARD_DEFENCE,
        die: Die = TOURNAMENT_DIE,
    ) -> None:
        self.striker = striker
        self.target = target
        self.striker_support = striker_support
        self.target_support = target_support
        self.variants = variants
        self.card_defence = card_defence
        self.die = die
        self.pool = attack_pool(striker, striker_support, target)
        self.rerolls = attack_rerolls(striker, target)
        self.reflects = target.has(AbilityKind.REFLECT_SPHERE)
        self.back_dodge = (
            fighter_dodge_chance(striker, striker_support, die, variants) if self.reflects else 0.0
        )
        self._solved: dict[int, tuple[AttackValuer, Solution]] = {}
        self._out: dict[tuple[int, int], tuple[float, float, float, float]] = {}

    @property
    def tables(self) -> Tables:
        """The transition tables of the counter-attack's pool."""
        return tables(self.die, self.pool)

    def solved(self, a: int) -> tuple[AttackValuer, Solution]:
        """The counter's valuer and solved policy when the target has taken ``a``."""
        hit = self._solved.get(a)
        if hit is None:
            v = AttackValuer(
                self.striker,
                self.target,
                a,
                (),
                self.variants,
                defender_support=self.target_support,
                card_defence=self.card_defence,
                objective=Objective.KO,
                die=self.die,
            )
            t = self.tables
            sol = solve(t, self.rerolls, lambda m: v.stop_table(t, m).values)
            hit = self._solved[a] = (v, sol)
        return hit

    def outcome(self, a: int, d: int) -> tuple[float, float, float, float]:
        """(E damage to the target, P(target eliminated), E damage back to the striker,
        P(striker eliminated)) when the counter-attack happens, the target having taken
        ``a`` and the striker ``d`` before it (costs are charged here, at the end)."""
        key = (a, d)
        hit = self._out.get(key)
        if hit is None:
            hit = self._out[key] = self._outcome(a, d)
        return hit

    def _outcome(self, a: int, d: int) -> tuple[float, float, float, float]:
        v, sol = self.solved(a)
        t = sol.tables
        p_target = float(t.first_throw @ sol.value_p[0])  # objective KO: (P(KO), E damage)
        e_target = float(t.first_throw @ sol.value_s[0])
        s = self.striker
        d_cost = s.cost if s.form is not None else 0
        if not self.reflects:
            out = float(is_eliminated(d + d_cost, s.warrior.endurance, self.variants))
            return e_target, p_target, 0.0, out
        q = 1.0 - self.back_dodge

        def stop(m: int) -> FloatArray:
            st = v.stop_table(t, m)
            back = np.ceil(st.raw / max(1, s.divisor)) * st.reflected
            stays = eliminated(np.full(t.n_states, float(d + d_cost)), s.warrior.endurance,
                               self.variants)  # fmt: skip
            hit = eliminated(d + d_cost + back, s.warrior.endurance, self.variants)
            p_out = np.where(st.reflected, (1.0 - q) * stays + q * hit, stays)
            return np.stack([q * back, p_out], axis=1)

        values, _ = evaluate(sol, stop)
        e_back, p_striker = t.first_throw @ values[0]
        return e_target, p_target, float(e_back), float(p_striker)
