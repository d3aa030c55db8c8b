"""What cashing in a throw is worth to the attacker, after the defender's answer.

For one option (a warrior combo, a card combo or the symbol sum) cashed in at
one attack speed (docs/rules.md §3), :class:`AttackValuer` gives the damage the
defender takes if the attack lands, the chance it lands, the expected damage
and the chance the defender is eliminated. The rules it applies, all through
the rules core:

- speed decides the answers (:func:`controller.rules.speed.allowed_defences`,
  with the attacker's *no defence dice* and the attack card's defence text);
  the defender picks the answer most likely to stop the attack: a dodge
  (its exact chance, :mod:`controller.advisor.defence`) or a card (the
  switchable :class:`~controller.advisor.defence.CardStopOdds` assumption);
- *Solar Flare* below 10 endurance: the defender flees, nothing lands;
- *Shield*: a sphere combo under 20 damage is stopped (not from an
  invulnerable card);
- *reflect sphere*: a sphere combo comes back to the attacker; it is worth 0
  to the attacker here (never a gain), and among equal options the advisor
  prefers one that is not reflected;
- the defender's form divides damage, rounded up; elimination uses the
  defender's damage already taken plus its form's endurance cost (charged at
  the end of the combat) and the elimination variant.

The objective is a pair (primary, secondary) maximised lexicographically:
``ko`` = (P(eliminate), expected damage), ``damage`` = (expected damage,
P(eliminate)).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
import numpy.typing as npt

from controller.advisor.columns import OptionColumns
from controller.advisor.defence import NO_CARD_DEFENCE, CardStopOdds, fighter_dodge_chance
from controller.advisor.dp import TIE, LevelValues
from controller.advisor.multisets import FloatArray, IntArray, Tables
from controller.core.symbols import (
    AttackSpeed,
    Defence,
    speed_after_rerolls,
)
from controller.rules.attack import shield_stops
from controller.rules.combat_types import SOLAR_FLARE_BELOW
from controller.rules.dice import TOURNAMENT_DIE, Counts, Die
from controller.rules.endurance import divided_damage, is_eliminated
from controller.rules.scoring import (
    CardCombo,
    CardDefence,
    Option,
    ThrowScorer,
    cashable,
)
from controller.rules.speed import allowed_defences
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import AbilityKind, Fighter


class Objective(StrEnum):
    """What the advisor maximises."""

    AUTO = "auto"  # ko when a defender is given (it reduces to damage when no KO is possible)
    KO = "ko"  # P(eliminate), ties broken by expected damage
    DAMAGE = "damage"  # expected damage, ties broken by P(eliminate)
    STORY = "story"  # a Story attempt: P(take the square), ties by damage (advisor.story)


@dataclass(frozen=True)
class OptionValue:
    """One option cashed in at one speed, as the defender answers it."""

    option: Option
    speed: AttackSpeed
    damage: int  # what the defender takes if the attack lands (0: shielded or reflected)
    p_land: float  # the chance the attack is not dodged, stopped by a card or fled
    expected: float
    p_eliminate: float  # 0.0 when there is no defender
    shielded: bool = False
    reflected: bool = False
    # what comes back (the risk model; 0 without it): the attacker's expected damage taken in
    # the combat (reflected sphere, counter-attack) and its chance of being eliminated
    taken: float = 0.0
    p_attacker_ko: float = 0.0


@dataclass(frozen=True)
class StopPolicy:
    """For every state of the pool at one speed: the best option to cash in and its values."""

    values: LevelValues
    expected: FloatArray
    p_eliminate: FloatArray
    column: IntArray  # (S,) the chosen column of ``columns``
    speed: AttackSpeed
    columns: OptionColumns
    taken: FloatArray  # (S,) the attacker's expected damage taken (0 without the risk model)
    p_attacker_ko: FloatArray  # (S,) the attacker's chance of elimination
    reflected: npt.NDArray[np.bool_]  # (S,) the chosen option is reflected
    raw: FloatArray  # (S,) the chosen option's raw damage


# (a, d) -> (E damage to the attacker, P(attacker eliminated), E damage to the defender,
# P(defender eliminated)) over the counter-attack and the end of the combat, given the damage
# each side has taken before it (costs not included); see :mod:`controller.advisor.counter`
CounterOutcome = Callable[[int, int], tuple[float, float, float, float]]


class AttackValuer:
    """Values options for one attacker against one defender (or none: raw damage).

    ``risk``: the attacker's own risk enters the values (a reflected sphere's damage, dodged
    with the attacker's exact dodge chance, and ``counter``: the defender's counter-attack);
    the objective then ranks P(defender eliminated) - P(attacker eliminated) and expected
    net damage (dealt - taken). Off: the model before risk (reflected = worth 0).
    """

    def __init__(
        self,
        attacker: Fighter,
        defender: Fighter | None = None,
        defender_damage: int = 0,
        cards: Sequence[CardCombo] = (),
        variants: Variants = DEFAULT_VARIANTS,
        *,
        defender_support: int = 0,
        card_defence: CardStopOdds = NO_CARD_DEFENCE,
        objective: Objective = Objective.AUTO,
        die: Die = TOURNAMENT_DIE,
        risk: bool = False,
        attacker_damage: int = 0,
        support: int = 0,
        counter: CounterOutcome | None = None,
        sum_allowed: bool = True,
        flight: bool = True,
    ) -> None:
        self.attacker = attacker
        self.flight = flight  # False: the defender may not flee (a tie's duel, engine's)
        self.sum_allowed = sum_allowed  # False: no symbol sum (rules.scoring.cashable)
        self.risk = risk and defender is not None
        self.attacker_damage = attacker_damage
        self.counter = counter if self.risk else None
        self.reflect_dodge = (
            fighter_dodge_chance(attacker, support, die, variants)
            if self.risk and defender is not None and defender.has(AbilityKind.REFLECT_SPHERE)
            else 0.0
        )
        self.defender = defender
        self.defender_damage = defender_damage
        self.variants = variants
        self.card_defence = card_defence
        if objective is Objective.AUTO:
            objective = Objective.KO if defender is not None else Objective.DAMAGE
        if defender is None:
            objective = Objective.DAMAGE
        self.objective = objective
        self.scorer = ThrowScorer(attacker, cards, variants)
        self.dodge = (
            0.0
            if defender is None
            else fighter_dodge_chance(defender, defender_support, die, variants)
        )
        self._option_cache: dict[tuple[Option, AttackSpeed], OptionValue] = {}
        self._stop_cache: dict[tuple[int, AttackSpeed], StopPolicy] = {}
        self._columns_cache: dict[int, OptionColumns] = {}

    @property
    def endurance_left(self) -> int | None:
        """The defender's endurance minus the damage it has taken (None: no defender)."""
        if self.defender is None:
            return None
        return self.defender.warrior.endurance - self.defender_damage

    def value(self, option: Option, speed: AttackSpeed) -> OptionValue:
        """The value of cashing in ``option`` at ``speed``."""
        key = (option, speed)
        hit = self._option_cache.get(key)
        if hit is None:
            hit = self._option_cache[key] = self._value(option, speed)
        return hit

    def _value(self, option: Option, speed: AttackSpeed) -> OptionValue:
        d = self.defender
        if d is None:
            return OptionValue(option, speed, option.damage, 1.0, float(option.damage), 0.0)
        card = option.card
        invulnerable = card is not None and card.invulnerable
        shielded = reflected = False
        damage = divided_damage(option.damage, d.divisor)
        if shield_stops(d, option, self.variants):
            shielded, damage = True, 0
        elif option.holds_sphere and not invulnerable and d.has(AbilityKind.REFLECT_SPHERE):
            reflected, damage = True, 0
        p_land = 1.0 - self._p_stop(d, speed, card)
        if self.risk:
            return self._risk_value(option, speed, damage, p_land, shielded, reflected)
        taken = self.defender_damage + (d.cost if d.form is not None else 0)
        ko_hit = is_eliminated(taken + damage, d.warrior.endurance, self.variants)
        ko_miss = is_eliminated(taken, d.warrior.endurance, self.variants)
        p_ko = p_land * ko_hit + (1.0 - p_land) * ko_miss
        return OptionValue(
            option, speed, damage, p_land, p_land * damage, p_ko, shielded, reflected
        )

    def fled(self) -> bool:
        """Whether the defender flees every attack (Solar Flare below 10 endurance)."""
        d = self.defender
        return (
            d is not None
            and self.flight
            and d.has(AbilityKind.SOLAR_FLARE)
            and d.warrior.endurance - self.defender_damage < SOLAR_FLARE_BELOW
        )

    def after(self, a: int, d: int) -> tuple[float, float, float, float]:
        """The rest of the combat once the attack is resolved, the attacker having taken
        ``a`` and the defender ``d`` (costs not included): the counter-attack when the rules
        give one (both still stand, docs/rules.md §8), then the costs and eliminations (§6, §7).
        (E more damage to the attacker, P(attacker out), E more damage to the defender,
        P(defender out))."""
        att, dfd = self.attacker, self.defender
        assert dfd is not None
        v = self.variants
        a_cost = att.cost if att.form is not None else 0
        d_cost = dfd.cost if dfd.form is not None else 0
        a_down = is_eliminated(a, att.warrior.endurance, v)
        d_down = is_eliminated(d, dfd.warrior.endurance, v)
        if self.counter is not None and not a_down and not d_down:
            return self.counter(a, d)
        return (
            0.0,
            float(is_eliminated(a + a_cost, att.warrior.endurance, v)),
            0.0,
            float(is_eliminated(d + d_cost, dfd.warrior.endurance, v)),
        )

    def _risk_value(
        self,
        option: Option,
        speed: AttackSpeed,
        damage: int,
        p_land: float,
        shielded: bool,
        reflected: bool,
    ) -> OptionValue:
        """The option's value with what comes back: each way the attack can end, weighted."""
        a0, d0 = self.attacker_damage, self.defender_damage
        branches: list[tuple[float, int, int]] = []  # (probability, to attacker, to defender)
        if self.fled():
            att, dfd = self.attacker, self.defender
            assert dfd is not None  # no counter-attack after a flight (§8)
            a_cost = att.cost if att.form is not None else 0
            d_cost = dfd.cost if dfd.form is not None else 0
            pa = float(is_eliminated(a0 + a_cost, att.warrior.endurance, self.variants))
            pd = float(is_eliminated(d0 + d_cost, dfd.warrior.endurance, self.variants))
            return OptionValue(option, speed, 0, 0.0, 0.0, pd, shielded, reflected, 0.0, pa)
        if reflected:
            back = divided_damage(option.damage, self.attacker.divisor)
            branches = [(self.reflect_dodge, 0, 0), (1.0 - self.reflect_dodge, back, 0)]
        elif shielded:
            branches = [(1.0, 0, 0)]
        else:
            branches = [(p_land, 0, damage), (1.0 - p_land, 0, 0)]
        e_d = p_d = e_a = p_a = 0.0
        for p, to_a, to_d in branches:
            if p <= 0.0:
                continue
            ea, pa, ed, pd = self.after(a0 + to_a, d0 + to_d)
            e_a += p * (to_a + ea)
            p_a += p * pa
            e_d += p * (to_d + ed)
            p_d += p * pd
        return OptionValue(option, speed, damage, p_land, e_d, p_d, shielded, reflected, e_a, p_a)

    def _p_stop(self, d: Fighter, speed: AttackSpeed, card: CardCombo | None) -> float:
        left = d.warrior.endurance - self.defender_damage
        if self.flight and d.has(AbilityKind.SOLAR_FLARE) and left < SOLAR_FLARE_BELOW:
            return 1.0
        answers = allowed_defences(
            speed,
            self.variants,
            attacker_denies_dice=self.attacker.has(AbilityKind.NO_DEFENCE_DICE),
            card_defence=card.defence if card is not None else CardDefence.ANY,
        )
        p = 0.0
        for a in answers:
            if a is Defence.DODGE:
                p = max(p, self.dodge)
            elif a in (Defence.ANY_CARDS, Defence.DEFENCE_CARDS):
                p = max(p, self.card_defence.p)
        return p

    def key(self, v: OptionValue) -> tuple[float, float]:
        """(primary, secondary) of an option value under the objective."""
        if self.risk:
            ko, net = v.p_eliminate - v.p_attacker_ko, v.expected - v.taken
        else:
            ko, net = v.p_eliminate, v.expected
        if self.objective is Objective.KO:
            return (ko, net)
        return (net, ko)

    def key_pair(self, expected: float, p_eliminate: float | None) -> tuple[float, float]:
        """(primary, secondary) from an expected damage and a P(eliminate) (None: 0)."""
        k = 0.0 if p_eliminate is None else p_eliminate
        return (k, expected) if self.objective is Objective.KO else (expected, k)

    def rank(self, v: OptionValue) -> tuple[float, float, bool, int]:
        """Sort key for options: the objective, then not reflected, then raw damage."""
        p, s = self.key(v)
        return (p, s, not v.reflected, v.option.damage)

    def best_option(self, counts: Counts, speed: AttackSpeed) -> OptionValue:
        """The option to cash in for the throw ``counts`` at ``speed``."""
        options = cashable(self.scorer.score_counts(counts).options, sum_allowed=self.sum_allowed)
        return max((self.value(o, speed) for o in options), key=self.rank)

    def stop_table(self, t: Tables, rerolls_made: int) -> StopPolicy:
        """Stop values of every state of ``t`` when stopping after ``rerolls_made`` rerolls.

        Vectorised over the states: one column per warrior combo and card combo
        (made or not, by the rules' matching) and one for the symbol sum; the
        best column per state follows :meth:`rank` (objective, then not
        reflected, then raw damage). The tests check it against
        :meth:`best_option` state by state.
        """
        speed = speed_after_rerolls(rerolls_made)
        if self.defender is None:
            speed = AttackSpeed.LIGHTNING  # no defender: speed changes nothing
        key = (t.pool, speed)
        hit = self._stop_cache.get(key)
        if hit is None:
            hit = self._stop_cache[key] = self._stop_table(t, speed)
        return hit

    def _columns(self, t: Tables) -> OptionColumns:
        hit = self._columns_cache.get(t.pool)
        if hit is None:
            hit = self._columns_cache[t.pool] = OptionColumns.build(
                self.scorer, t, sum_allowed=self.sum_allowed
            )
        return hit

    def _stop_table(self, t: Tables, speed: AttackSpeed) -> StopPolicy:
        cols = self._columns(t)
        n = t.n_states
        j = len(cols.fixed)
        prim = np.full((n, j + 1), -np.inf)
        sec = np.full((n, j + 1), -np.inf)
        clean = np.zeros((n, j + 1))  # 1 when not reflected
        raw = np.zeros((n, j + 1))
        quant = np.zeros((4, n, j + 1))  # expected, p_eliminate, taken, p_attacker_ko
        for col, (option, made) in enumerate(zip(cols.fixed, cols.made, strict=True)):
            v = self.value(option, speed)
            p, s_ = self.key(v)
            prim[made, col] = p
            sec[made, col] = s_
            clean[:, col] = 0.0 if v.reflected else 1.0
            raw[:, col] = option.damage
            quant[:, :, col] = np.array([v.expected, v.p_eliminate, v.taken, v.p_attacker_ko])[
                :, None
            ]
        sums = [self.value(o, speed) for o in cols.sum_options]
        ps = np.array([self.key(v) for v in sums], dtype=np.float64)
        prim[:, j] = ps[cols.sum_code, 0]
        sec[:, j] = ps[cols.sum_code, 1]
        qs = np.array([[v.expected, v.p_eliminate, v.taken, v.p_attacker_ko] for v in sums])
        quant[:, :, j] = qs[cols.sum_code].T
        clean[:, j] = np.array([0.0 if v.reflected else 1.0 for v in sums])[cols.sum_code]
        raw[:, j] = np.array([v.option.damage for v in sums], dtype=np.float64)[cols.sum_code]
        if cols.sum_made is not None:  # no symbol sum: the last column only where nothing is made
            prim[~cols.sum_made, j] = -np.inf
            sec[~cols.sum_made, j] = -np.inf
        cand = np.ones((n, j + 1), dtype=bool)
        for crit in (prim, sec, clean, raw):
            vals = np.where(cand, crit, -np.inf)
            top = vals.max(axis=1, keepdims=True)
            cand &= vals >= top - TIE
        choice = cand.argmax(axis=1)
        rows = np.arange(n)
        p_best, s_best = prim[rows, choice], sec[rows, choice]
        q = quant[:, rows, choice]
        return StopPolicy(
            LevelValues(p_best, s_best),
            q[0],
            q[1],
            choice,
            speed,
            cols,
            q[2],
            q[3],
            clean[rows, choice] == 0.0,
            raw[rows, choice],
        )

    def stop_option(self, table: StopPolicy, state: int) -> OptionValue:
        """The option :meth:`stop_table` chose for the state with index ``state``."""
        col = int(table.column[state])
        cols = table.columns
        if col < len(cols.fixed):
            return self.value(cols.fixed[col], table.speed)
        return self.value(cols.sum_options[int(cols.sum_code[state])], table.speed)
