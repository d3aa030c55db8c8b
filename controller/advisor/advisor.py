"""The reroll advisor's Python API: what to keep, when to stop.

The table loop builds one :class:`Advisor` per attack (attacker, support,
defender, cards, assumptions) and calls :meth:`Advisor.advise` after each
settled throw; the DP is solved once per advisor and every later call is a
lookup. Every choice (stop now, or keep a sub-multiset and reroll the rest)
comes with its exact expected damage and chance of eliminating the defender
under optimal play afterwards.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import NamedTuple

import numpy as np

from controller.advisor.counter import CounterModel
from controller.advisor.defence import NO_CARD_DEFENCE, CardStopOdds
from controller.advisor.dp import STOP, LevelValues, Solution, evaluate, solve
from controller.advisor.errors import AdvisorError
from controller.advisor.multisets import FloatArray, IntArray, Tables, tables
from controller.advisor.story import StoryValuer
from controller.advisor.values import AttackValuer, Objective, OptionValue
from controller.core.errors import InvalidThrowError
from controller.core.symbols import MAX_POOL, MIN_POOL, Symbol
from controller.game.story import StoryStakes
from controller.rules.dice import TOURNAMENT_DIE, Counts, Die, counts_of, dice_of
from controller.rules.pools import attack_pool, attack_rerolls
from controller.rules.scoring import CardCombo
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import AbilityKind, Fighter


class AdvisorInputError(AdvisorError, ValueError):
    """A negative damage or support count, or a pool outside 1..6."""


class DiceAction(StrEnum):
    """What a choice does."""

    STOP = "stop"
    REROLL = "reroll"


@dataclass(frozen=True)
class Choice:
    """One thing the attacker can do now, with its value under optimal play afterwards."""

    action: DiceAction
    keep: tuple[Symbol, ...]  # the dice kept (all of them when stopping)
    reroll: tuple[Symbol, ...]  # the dice thrown again (none when stopping)
    expected_damage: float
    p_eliminate: float | None  # None: no defender given
    option: OptionValue | None = None  # stop: the option cashed in
    # what comes back to the attacker (reflected sphere, counter-attack); None: no defender
    expected_taken: float = 0.0
    p_attacker_eliminated: float | None = None
    p_win: float | None = None  # a Story attempt: the chance of taking the square

    @property
    def expected_net(self) -> float:
        """Expected damage dealt minus expected damage taken."""
        return self.expected_damage - self.expected_taken

    def to_json(self) -> dict[str, object]:
        """The choice as ``toptable advise --json`` prints it."""
        out: dict[str, object] = {
            "action": str(self.action),
            "keep": [str(s) for s in self.keep],
            "expected_damage": round(self.expected_damage, 6),
            "p_eliminate": None if self.p_eliminate is None else round(self.p_eliminate, 6),
            "reroll": [str(s) for s in self.reroll],
            "expected_taken": round(self.expected_taken, 6),
            "expected_net": round(self.expected_net, 6),
            "p_attacker_eliminated": None
            if self.p_attacker_eliminated is None
            else round(self.p_attacker_eliminated, 6),
        }
        if self.p_win is not None:
            out["p_win"] = round(self.p_win, 6)
        if self.option is not None:
            o = self.option
            out["cash_in"] = {
                "kind": str(o.option.kind),
                "name": o.option.name,
                "damage": o.option.damage,
                "speed": str(o.speed),
                "damage_if_landed": o.damage,
                "p_land": round(o.p_land, 6),
                "shielded": o.shielded,
                "reflected": o.reflected,
                "taken": round(o.taken, 6),
                "p_attacker_eliminated": round(o.p_attacker_ko, 6),
            }
        return out


@dataclass(frozen=True)
class Summary:
    """The structured form of the combat screen's one line (the display draws its icons)."""

    action: DiceAction
    keep: tuple[Symbol, ...]
    option: str | None  # stop: the option's name
    option_damage: int | None
    p_eliminate: float | None
    expected_damage: float
    expected_taken: float = 0.0
    p_attacker_eliminated: float | None = None
    p_win: float | None = None


DEFAULT_ICONS: Mapping[Symbol, str] = {
    Symbol.KICK: "🦶",
    Symbol.PUNCH: "👊",
    Symbol.SPHERE: "🔵",
    Symbol.STRENGTH: "💪",
    Symbol.STAR: "★",
    Symbol.TELEPORT: "🌀",
}


@dataclass(frozen=True)
class Advice:
    """Every choice for the current throw (best first) and the best one."""

    choices: tuple[Choice, ...]
    best: Choice
    objective: Objective
    pool: int
    rerolls_made: int
    rerolls_left: int

    def to_json(self) -> dict[str, object]:
        """The advice as ``toptable advise --json`` prints it."""
        return {
            "choices": [c.to_json() for c in self.choices],
            "best": self.best.to_json(),
            "objective": str(self.objective),
            "pool": self.pool,
            "rerolls_made": self.rerolls_made,
            "rerolls_left": self.rerolls_left,
        }

    def summary(self) -> Summary:
        """The best choice, in the structured form of the one-line summary."""
        b = self.best
        name = b.option.option.name if b.option is not None else None
        dmg = b.option.option.damage if b.option is not None else None
        return Summary(
            b.action,
            b.keep,
            name,
            dmg,
            b.p_eliminate,
            b.expected_damage,
            b.expected_taken,
            b.p_attacker_eliminated,
            b.p_win,
        )


def summary_line(advice: Advice, icons: Mapping[Symbol, str] | None = DEFAULT_ICONS) -> str:
    """One line for the combat screen, e.g. ``keep ★👊👊 · P(KO) 64% · E 21``; when
    something may come back, the attacker's risk follows: ``· back 4 · own KO 12%``.

    ``icons``: the text drawn for each symbol (``None``: the symbols' names,
    separated by spaces).
    """
    s = advice.summary()
    if s.action is DiceAction.STOP:
        head = f"stop: {s.option} {s.option_damage}"
    elif s.keep:
        if icons is None:
            head = "keep " + " ".join(str(d) for d in s.keep)
        else:
            head = "keep " + "".join(icons.get(d, str(d)) for d in s.keep)
    else:
        head = "reroll all"
    parts = [head]
    if s.p_win is not None:
        parts.append(f"P(win) {s.p_win:.0%}")
    if s.p_eliminate is not None:
        parts.append(f"P(KO) {s.p_eliminate:.0%}")
    parts.append(f"E {s.expected_damage:.0f}")
    if round(s.expected_taken) >= 1:  # as printed: 0.5 rounds to 0 (half to even), no "back 0"
        parts.append(f"back {s.expected_taken:.0f}")
    if s.p_attacker_eliminated is not None and s.p_attacker_eliminated >= 0.005:
        parts.append(f"own KO {s.p_attacker_eliminated:.0%}")
    return " · ".join(parts)


class StartValues(NamedTuple):
    """The attack's value before its first throw, under the optimal policy."""

    expected_damage: float
    p_eliminate: float | None
    expected_taken: float
    p_attacker_eliminated: float | None
    p_win: float | None = None  # a Story attempt: the chance of taking the square


def _stop_quantities(valuer: AttackValuer, t: Tables, m: int) -> FloatArray:
    st = valuer.stop_table(t, m)
    return np.stack([st.expected, st.p_eliminate, st.taken, st.p_attacker_ko], axis=1)


def _chance(x: float) -> float:
    """``x``, a probability, within 0..1 (a rounding past either end undone)."""
    return min(1.0, max(0.0, float(x)))


def _sub(c: Counts, k: Counts) -> Counts:
    return (c[0] - k[0], c[1] - k[1], c[2] - k[2], c[3] - k[3], c[4] - k[4], c[5] - k[5])


class Advisor:
    """Advice for one attack; solve once, then answer every settled throw of the attempt."""

    def __init__(
        self,
        attacker: Fighter,
        support: int = 0,
        defender: Fighter | None = None,
        defender_damage: int = 0,
        cards: Sequence[CardCombo] = (),
        variants: Variants = DEFAULT_VARIANTS,
        *,
        defender_support: int = 0,
        card_defence: CardStopOdds = NO_CARD_DEFENCE,
        objective: Objective = Objective.AUTO,
        pool: int | None = None,
        rerolls: int | None = None,
        die: Die = TOURNAMENT_DIE,
        attacker_damage: int = 0,
        risk: bool = True,
        sum_allowed: bool = True,
        story: StoryStakes | None = None,
        flight: bool = True,
        countered: bool = True,
    ) -> None:
        """``attacker_damage``: what the attacker has taken already (its risk).
        ``risk``: count what comes back to the attacker (reflected sphere, counter-attack);
        ``False``: the model without it. ``sum_allowed``: False when the game allows no
        symbol sum (a Story attempt with ``story_combos_only``: the engine's
        ``sum_allowed``, cashed in by rules.scoring.cashable as the engine does).
        ``story``: a Story attempt (the engine's ``story_stakes``): no defender, no defence,
        nothing comes back; the objective is the chance of taking the square
        (:mod:`controller.advisor.story`), reported as each choice's ``p_win``. ``flight``:
        False where the defender may not flee with Solar Flare (``engine.flight_open``: a
        tie's duel, no space to go); ``countered``: False where no counter-attack may
        follow (``engine.may_be_countered``: a tie's duel, a counter-attack).

        Raises:
            AdvisorInputError: negative damage or support, a pool outside 1..6, or a
                defender or the Story objective given with the wrong kind of attack.
        """
        if min(support, defender_support, defender_damage, attacker_damage) < 0:
            raise AdvisorInputError("support dice and damage taken must be >= 0")
        if pool is not None and not MIN_POOL <= pool <= MAX_POOL:
            raise AdvisorInputError(f"a pool is {MIN_POOL}..{MAX_POOL} dice, got {pool}")
        if (story is None and objective is Objective.STORY) or (
            story is not None
            and (defender is not None or objective not in (Objective.AUTO, Objective.STORY))
        ):
            raise AdvisorInputError(
                "a Story attempt has no defender and the objective story (give story=)"
            )
        self.attacker = attacker
        self.defender = defender
        self.pool = pool if pool is not None else attack_pool(attacker, support, defender)
        # the game may know better (an event card's extra reroll...): it passes its own count
        self.rerolls = rerolls if rerolls is not None else attack_rerolls(attacker, defender)
        self.counter = (
            CounterModel(defender, defender_support, attacker, support, variants, card_defence, die)
            if risk
            and countered
            and defender is not None
            and defender.has(AbilityKind.COUNTER_ATTACK)
            else None
        )
        self.valuer = (
            AttackValuer(
                attacker,
                defender,
                defender_damage,
                cards,
                variants,
                defender_support=defender_support,
                card_defence=card_defence,
                objective=objective,
                die=die,
                risk=risk,
                attacker_damage=attacker_damage,
                support=support,
                counter=self.counter.outcome if self.counter is not None else None,
                sum_allowed=sum_allowed,
                flight=flight,
            )
            if story is None
            else StoryValuer(attacker, story, cards, variants, die=die, sum_allowed=sum_allowed)
        )
        self.story = story
        self.die = die
        self.support, self.defender_support = support, defender_support
        self.cards = tuple(cards)
        self._solution: Solution | None = None
        self._quantities: tuple[tuple[FloatArray, ...], tuple[FloatArray, ...]] | None = None

    @property
    def objective(self) -> Objective:
        """The objective actually maximised (AUTO resolved)."""
        return self.valuer.objective

    @property
    def risky(self) -> bool:
        """Whether something may come back to the attacker (risk model on, and the defender
        counter-attacks or reflects spheres)."""
        d = self.defender
        return (
            self.valuer.risk
            and d is not None
            and (d.has(AbilityKind.COUNTER_ATTACK) or d.has(AbilityKind.REFLECT_SPHERE))
        )

    @property
    def tables(self) -> Tables:
        """The transition tables of this pool."""
        return tables(self.die, self.pool)

    def solution(self) -> Solution:
        """The DP solved for this attack (computed on first use, then reused)."""
        if self._solution is None:
            t = self.tables
            self._solution = solve(t, self.rerolls, lambda m: self._stop_levels(t, m))
        return self._solution

    def _stop_levels(self, t: Tables, m: int) -> LevelValues:
        return self.valuer.stop_table(t, m).values

    def quantities(self) -> tuple[tuple[FloatArray, ...], tuple[FloatArray, ...]]:
        """Under the optimal policy, per level: (S, 4) values of every state and (K, 4)
        values of every keep; columns: expected damage dealt, P(eliminate), expected damage
        taken, P(attacker eliminated)."""
        if self._quantities is None:
            sol = self.solution()
            t = sol.tables
            self._quantities = evaluate(sol, lambda m: _stop_quantities(self.valuer, t, m))
        return self._quantities

    def _choice_numbers(self, q: FloatArray) -> tuple[float, float | None, float, float | None]:
        """Expected damage, P(defender eliminated), expected taken, P(attacker eliminated);
        a chance summed in floating point may pass 1 by a rounding (1.0000000000000002,
        seen in a demo game), which no screen nor reader takes for a chance: kept to 0..1."""
        if self.defender is None:
            return float(q[0]), None, 0.0, None
        return float(q[0]), _chance(q[1]), float(q[2]), _chance(q[3])

    def check(self, dice: Sequence[Symbol], rerolls_made: int) -> Counts:
        """The counts of a throw after checking it fits this attack.

        Raises:
            InvalidThrowError: another number of dice than the pool, or more
                rerolls made than the attacker's technique and abilities allow.
        """
        if len(dice) != self.pool:
            raise InvalidThrowError(
                f"{self.attacker.name} throws {self.pool} dice in this attack, got {len(dice)}"
            )
        if not 0 <= rerolls_made <= self.rerolls:
            raise InvalidThrowError(
                f"{rerolls_made} rerolls made, but {self.attacker.name} may make "
                f"0..{self.rerolls} (technique and abilities)"
            )
        return counts_of(dice)

    def advise(self, dice: Sequence[Symbol], rerolls_made: int) -> Advice:
        """Every choice for the throw ``dice`` after ``rerolls_made`` rerolls, best first.

        Raises:
            InvalidThrowError: see :meth:`check`.
        """
        c = self.check(dice, rerolls_made)
        sol = self.solution()
        t = sol.tables
        si = t.state_index[c]
        stop = self.valuer.stop_table(t, rerolls_made)
        keeps = self.quantities()[1]
        choices: list[tuple[tuple[float, float, int], Choice]] = []
        sp, ss = float(stop.values.primary[si]), float(stop.values.secondary[si])
        e, k, et, ka = self._choice_numbers(_stop_quantities(self.valuer, t, rerolls_made)[si])
        win = self.story is not None  # the primary value is then the chance of the square
        stop_choice = Choice(
            DiceAction.STOP, dice_of(c), (), e, k, self.valuer.stop_option(stop, si), et, ka,
            sp if win else None,
        )  # fmt: skip
        choices.append(((sp, ss, 1), stop_choice))
        if rerolls_made < sol.last:
            wp, ws = sol.keep_p[rerolls_made], sol.keep_s[rerolls_made]
            for ki in t.sub[si]:
                if ki >= t.n_keeps:
                    break
                keep = t.keeps[ki]
                e, k, et, ka = self._choice_numbers(keeps[rerolls_made][ki])
                ch = Choice(
                    DiceAction.REROLL, dice_of(keep), dice_of(_sub(c, keep)), e, k, None, et, ka,
                    float(wp[ki]) if win else None,
                )  # fmt: skip
                choices.append(((float(wp[ki]), float(ws[ki]), 0), ch))
        action = int(sol.action[rerolls_made][si])
        if action == STOP:
            best = stop_choice
        else:
            best = next(
                ch
                for _, ch in choices
                if ch.action is DiceAction.REROLL and counts_of(ch.keep) == t.keeps[action]
            )
        ordered = [best] + [
            ch for _, ch in sorted(choices, key=lambda x: x[0], reverse=True) if ch is not best
        ]
        return Advice(
            tuple(ordered),
            best,
            self.objective,
            self.pool,
            rerolls_made,
            self.rerolls - rerolls_made,
        )

    def start_value(self) -> tuple[float, float | None]:
        """(expected damage, P(eliminate)) before the first throw, playing optimally."""
        o = self.start_values()
        return o.expected_damage, o.p_eliminate

    def start_values(self) -> StartValues:
        """Before the first throw, playing optimally: both sides' numbers."""
        sol = self.solution()
        t = sol.tables
        e, k, et, ka = self._choice_numbers(t.first_throw @ self.quantities()[0][0])
        # a Story attempt's primary value is its chance of taking the square
        win = _chance(float(t.first_throw @ sol.value_p[0])) if self.story is not None else None
        return StartValues(e, k, et, ka, win)

    def policy(self) -> tuple[IntArray, ...]:
        """The optimal action per level (rerolls made) and state: STOP or a keep index."""
        return self.solution().action
