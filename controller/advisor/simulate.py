"""A Monte Carlo run of the advisor's policy on thrown dice, to check the exact values.

It shares nothing with the DP's transition tables: every attempt throws its
dice (faces drawn uniformly from the die's faces), follows the optimal policy
of :meth:`Advisor.policy` from the first throw, cashes in the chosen option,
and the defender's dodge is thrown for real (keep teleports and stars, reroll
the rest) whenever the speed and abilities allow it. The card-defence
assumption is not simulated (use ``none``). Vectorised with numpy: 10^6
attempts take about a second. It counts the attack's damage only (no risk).

:func:`simulate_combat` plays whole combats, counter-attack and reflected
spheres included, and lets the rules' combat sequence
(:func:`controller.rules.combat.resolve_combat`) decide what every combat does.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from controller.advisor.advisor import Advisor
from controller.advisor.dp import STOP
from controller.advisor.multisets import FloatArray, IntArray, Tables
from controller.advisor.values import AttackValuer
from controller.core.symbols import Defence, Symbol, speed_after_rerolls
from controller.rules.attack import dodge_needed, fit_answers
from controller.rules.combat import may_strike_back, resolve_combat
from controller.rules.combat_types import Attack, CombatInput, Side
from controller.rules.dice import dice_of
from controller.rules.endurance import is_eliminated
from controller.rules.pools import defence_pool, defence_rerolls
from controller.rules.scoring import CardDefence, Option
from controller.rules.speed import allowed_defences
from controller.rules.variants import Variants
from controller.rules.warriors import AbilityKind, Fighter

N_SYMBOLS = len(Symbol)


def simulate(
    advisor: Advisor, attempts: int, seed: int = 1
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.bool_]]:
    """Play ``attempts`` attacks; return (damage the defender took, eliminated) per attack."""
    rng = np.random.default_rng(seed)
    t = advisor.tables
    last = advisor.rerolls
    faces = advisor.die.faces
    idx, level = _play(rng, t, advisor.policy(), faces, attempts)

    valuer = advisor.valuer
    d = advisor.defender
    damage = np.zeros(attempts)
    dodge_ok = np.zeros(attempts, dtype=bool)
    for m in range(last + 1):
        at = level == m
        if not at.any():
            continue
        table = valuer.stop_table(t, m)
        for s in np.unique(idx[at]):
            ov = valuer.stop_option(table, int(s))
            sel = at & (idx == s)
            damage[sel] = ov.damage
            if d is not None:
                card = ov.option.card
                answers = allowed_defences(
                    speed_after_rerolls(m),
                    valuer.variants,
                    attacker_denies_dice=advisor.attacker.has(AbilityKind.NO_DEFENCE_DICE),
                    card_defence=card.defence if card is not None else CardDefence.ANY,
                )
                dodge_ok[sel] = Defence.DODGE in answers
    ko = np.zeros(attempts, dtype=bool)
    if d is None:
        return damage, ko
    dodged = _dodges(rng, d, 0, faces, attempts, valuer.variants)
    dealt = np.where(dodge_ok & dodged, 0.0, damage)
    already = valuer.defender_damage + (d.cost if d.form is not None else 0)
    for v in np.unique(dealt):
        ko[dealt == v] = is_eliminated(already + int(v), d.warrior.endurance, valuer.variants)
    return dealt, ko


def _play(
    rng: np.random.Generator, t: Tables, policy: tuple[IntArray, ...], faces: tuple[Symbol, ...],
    attempts: int,
) -> tuple[IntArray, IntArray]:  # fmt: skip
    """Throw ``attempts`` attempts following ``policy``: (final state index, rerolls made)."""
    pool, last = t.pool, len(policy) - 1
    face_sym = np.array([list(Symbol).index(f) for f in faces])
    weights = (N_SYMBOLS + 1) ** np.arange(N_SYMBOLS)
    code_of = np.full((N_SYMBOLS + 1) ** N_SYMBOLS, -1, dtype=np.int64)
    for i, c in enumerate(t.states):
        code_of[int(np.dot(c, weights))] = i
    keeps = np.array(t.keeps, dtype=np.int64)

    def throw(n_dice: IntArray) -> IntArray:
        shown = face_sym[rng.integers(0, len(face_sym), size=(len(n_dice), pool))]
        used = np.arange(pool)[None, :] < n_dice[:, None]
        out: IntArray = ((shown[:, :, None] == np.arange(N_SYMBOLS)) & used[:, :, None]).sum(axis=1)
        return out

    counts = throw(np.full(attempts, pool, dtype=np.int64))
    idx: IntArray = code_of[counts @ weights]
    level: IntArray = np.full(attempts, -1, dtype=np.int64)
    active = np.ones(attempts, dtype=bool)
    for m in range(last + 1):
        act = policy[m][idx]
        stopping = active & (act == STOP)
        level[stopping] = m
        active &= ~stopping
        if not active.any():
            break
        k = keeps[act[active]]
        counts[active] = k + throw(pool - k.sum(axis=1))
        idx = np.where(active, code_of[counts @ weights], idx)
    return idx, level


def _dodges(
    rng: np.random.Generator,
    who: Fighter,
    support: int,
    faces: tuple[Symbol, ...],
    n: int,
    variants: Variants,
) -> npt.NDArray[np.bool_]:
    """``n`` dodge rolls of ``who`` (keep teleports and stars, reroll the rest), under the
    game's ``variants`` (its pool, the teleports it needs): made or not."""
    pool, rerolls = defence_pool(who, support, variants), defence_rerolls(who)
    needed = dodge_needed(who, pool, variants)
    p_good = sum(f in (Symbol.TELEPORT, Symbol.STAR) for f in faces) / len(faces)
    good = rng.binomial(pool, p_good, size=n)
    for _ in range(rerolls):
        good = np.where(good < needed, good + rng.binomial(pool - good, p_good), good)
    out: npt.NDArray[np.bool_] = good >= needed
    return out


@dataclass(frozen=True)
class CombatSample:
    """Per simulated combat: damage each side took in it (costs apart) and who is out."""

    dealt: FloatArray  # to the defender (the attack, and a counter-attack reflected back)
    defender_out: npt.NDArray[np.bool_]
    taken: FloatArray  # by the attacker (a reflected sphere, the counter-attack)
    attacker_out: npt.NDArray[np.bool_]
    engine_calls: int  # distinct combats resolved by the rules' combat sequence


def simulate_combat(advisor: Advisor, attempts: int, seed: int = 1) -> CombatSample:
    """Play ``attempts`` whole combats through the rules' combat sequence.

    The dice are thrown here (vectorised): the attacker follows the advisor's policy, the
    defender dodges whenever the speed lets it (or flees with Solar Flare), the attacker
    dodges a reflected sphere, the defender counter-attacks with the policy of
    :class:`~controller.advisor.counter.CounterModel` and the attacker dodges it when
    allowed. What those throws do is decided by
    :func:`controller.rules.combat.resolve_combat` (shield, reflect, divisors, who may
    strike back, costs, eliminations), once per distinct combat: two attempts cashing in
    the same option at the same speed with the same answers are the same combat.
    Needs a defender, ``card_defence`` none and the advisor's own pool and rerolls.
    """
    d = advisor.defender
    if d is None or advisor.valuer.card_defence.p != 0.0:
        raise ValueError("simulate_combat needs a defender and card defence 'none'")
    a = advisor.attacker
    v = advisor.valuer
    variants = v.variants
    rng = np.random.default_rng(seed)
    faces = advisor.die.faces
    t = advisor.tables
    idx, level = _play(rng, t, advisor.policy(), faces, attempts)

    def code(
        tab: Tables, valuer: AttackValuer, lv: IntArray, ix: IntArray
    ) -> tuple[IntArray, IntArray, list[tuple[int, Option]]]:
        """(option code, dodge allowed) per attempt, and per code: (a state making the
        option, the option)."""
        options: dict[Option, int] = {}
        rep: list[tuple[int, Option]] = []
        oc = np.zeros(len(ix), dtype=np.int64)
        dodge_ok = np.zeros(len(ix), dtype=np.int64)
        pairs = np.unique(np.stack([lv, ix], axis=1), axis=0)
        for m, s in pairs:
            ov = valuer.stop_option(valuer.stop_table(tab, int(m)), int(s))
            key = ov.option
            if key not in options:
                options[key] = len(rep)
                rep.append((int(s), key))
            sel = (lv == m) & (ix == s)
            oc[sel] = options[key]
            card = key.card
            answers = allowed_defences(
                speed_after_rerolls(int(m)),
                variants,
                attacker_denies_dice=valuer.attacker.has(AbilityKind.NO_DEFENCE_DICE),
                card_defence=card.defence if card is not None else CardDefence.ANY,
            )
            dodge_ok[sel] = Defence.DODGE in answers
        return oc, dodge_ok, rep

    cols: list[IntArray] = []
    oc, dodge_ok, reps = code(t, v, level, idx)
    flee = v.fled()
    cols += [level, oc, dodge_ok * (not flee) * _dodges(rng, d, advisor.defender_support, faces,
             attempts, variants)]  # fmt: skip
    if d.has(AbilityKind.REFLECT_SPHERE):
        cols.append(_dodges(rng, a, advisor.support, faces, attempts, variants).astype(np.int64))
    cm = advisor.counter
    c_tables: Tables | None = None
    creps: list[tuple[int, Option]] = []
    if cm is not None:
        cv, csol = cm.solved(v.attacker_damage)
        c_tables = csol.tables
        cidx, clevel = _play(rng, c_tables, csol.action, faces, attempts)
        coc, cdodge_ok, creps = code(c_tables, cv, clevel, cidx)
        a_flees = cv.fled()
        cols += [clevel, coc, cdodge_ok * (not a_flees) * _dodges(rng, a, advisor.support, faces,
                 attempts, variants)]  # fmt: skip
        if a.has(AbilityKind.REFLECT_SPHERE):
            cols.append(
                _dodges(rng, d, advisor.defender_support, faces, attempts, variants).astype(
                    np.int64
                )
            )
    keys, inverse = np.unique(np.stack(cols, axis=1).astype(np.int64), axis=0, return_inverse=True)
    out = np.zeros((len(keys), 4))
    attacker_side = Side(a.warrior, v.attacker_damage, advisor.support, form=a.form,
                         cards=advisor.cards)  # fmt: skip
    defender_side = Side(d.warrior, v.defender_damage, advisor.defender_support, form=d.form)
    d_reflects, a_reflects = d.has(AbilityKind.REFLECT_SPHERE), a.has(AbilityKind.REFLECT_SPHERE)
    for row, key in enumerate(keys):
        k = [int(x) for x in key]
        m = k[0]
        s, option = reps[k[1]]
        final = dice_of(t.states[s])
        attack = Attack(
            (final,) * (m + 1),
            option.name,
            dodge_throws=_dodge_throw(d, advisor.defender_support, k[2], variants) if k[2] >= 0 and
            _dodge_allowed(v, m, option) and not flee else None,
            flee=flee,
            reflect_dodge_throws=_dodge_throw(a, advisor.support, k[3], variants) if d_reflects else None,
        )  # fmt: skip
        attack = fit_answers(attack, d, option, variants)  # drawn before the sphere is known
        combat = CombatInput(attacker_side, defender_side, attack, None, variants)
        res = resolve_combat(combat)
        if cm is not None and c_tables is not None and res.counter_attack:
            a_down = is_eliminated(
                v.attacker_damage + res.attack.damage_reflected, a.warrior.endurance, variants
            )
            if may_strike_back(res.attack, False, a_down):
                j = 3 + d_reflects
                cm_ = k[j]
                cs, coption = creps[k[j + 1]]
                cfinal = dice_of(c_tables.states[cs])
                cv, _ = cm.solved(v.attacker_damage)
                counter = Attack(
                    (cfinal,) * (cm_ + 1),
                    coption.name,
                    dodge_throws=_dodge_throw(a, advisor.support, k[j + 2], variants)
                    if _dodge_allowed(cv, cm_, coption) and not cv.fled() else None,
                    flee=cv.fled(),
                    reflect_dodge_throws=_dodge_throw(d, advisor.defender_support, k[j + 3], variants)
                    if a_reflects else None,
                )  # fmt: skip
                counter = fit_answers(counter, a, coption, variants)
                res = resolve_combat(replace(combat, counter=counter))
        out[row] = (
            res.defender.damage_taken - res.defender.cost_paid - v.defender_damage,
            res.defender.eliminated,
            res.attacker.damage_taken - res.attacker.cost_paid - v.attacker_damage,
            res.attacker.eliminated,
        )
    per = out[inverse.reshape(-1)]
    return CombatSample(per[:, 0], per[:, 1] > 0.5, per[:, 2], per[:, 3] > 0.5, len(keys))


def _dodge_allowed(valuer: AttackValuer, m: int, option: Option) -> bool:
    card = option.card
    return Defence.DODGE in allowed_defences(
        speed_after_rerolls(m),
        valuer.variants,
        attacker_denies_dice=valuer.attacker.has(AbilityKind.NO_DEFENCE_DICE),
        card_defence=card.defence if card is not None else CardDefence.ANY,
    )


def _dodge_throw(
    who: Fighter, support: int, made: int, variants: Variants
) -> tuple[tuple[Symbol, ...], ...]:
    """One dodge throw of ``who``'s defence pool that makes the dodge (``made``) or not,
    under the game's ``variants`` (its pool, the teleports it needs)."""
    pool = defence_pool(who, support, variants)
    good = min(pool, dodge_needed(who, pool, variants)) if made else 0
    return ((Symbol.TELEPORT,) * good + (Symbol.KICK,) * (pool - good),)
