"""The exact dynamic programme over multisets of faces, with a lexicographic objective.

Level ``m`` = rerolls made so far (0..R). At each state (a multiset of the
pool) and level the player either stops, cashing in a value given by the
caller, or keeps a proper sub-multiset and rerolls the rest (when ``m < R``).
Values are pairs (primary, secondary): the policy maximises the primary value
and, among actions within :data:`TIE` of the best, the secondary one; on a
tie between stopping and rerolling it stops (a faster attack is never worse).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from controller.advisor.multisets import FloatArray, IntArray, Tables

TIE = 1e-9
STOP = -1  # the action code for "stop" in the policy arrays


@dataclass(frozen=True)
class LevelValues:
    """Stop values of every state at one level (primary and secondary)."""

    primary: FloatArray
    secondary: FloatArray


@dataclass(frozen=True)
class Solution:
    """Optimal values and actions for levels ``0..last`` (index = rerolls made)."""

    tables: Tables
    last: int
    value_p: tuple[FloatArray, ...]  # (S,) per level
    value_s: tuple[FloatArray, ...]
    keep_p: tuple[FloatArray, ...]  # (K,) per level < last: value of keeping k, rerolling the rest
    keep_s: tuple[FloatArray, ...]
    action: tuple[IntArray, ...]  # (S,) per level: STOP or the keep index


def solve(tables: Tables, last: int, stop: Callable[[int], LevelValues]) -> Solution:
    """Solve the reroll problem with ``last`` rerolls in all; ``stop(m)`` gives stop values.

    Raises:
        ValueError: a negative ``last``.
    """
    if last < 0:
        raise ValueError(f"rerolls must be >= 0, got {last}")
    n = tables.n_states
    rows = np.arange(n)
    vp: list[FloatArray] = [np.empty(0)] * (last + 1)
    vs: list[FloatArray] = [np.empty(0)] * (last + 1)
    kp: list[FloatArray] = [np.empty(0)] * last
    ks: list[FloatArray] = [np.empty(0)] * last
    act: list[IntArray] = [np.empty(0, dtype=np.int64)] * (last + 1)
    top = stop(last)
    vp[last], vs[last] = top.primary, top.secondary
    act[last] = np.full(n, STOP, dtype=np.int64)
    for m in range(last - 1, -1, -1):
        wp = tables.transition @ vp[m + 1]
        ws = tables.transition @ vs[m + 1]
        kp[m], ks[m] = wp, ws
        gp = np.append(wp, -np.inf)[tables.sub]
        gs = np.append(ws, -np.inf)[tables.sub]
        best_p = gp.max(axis=1)
        masked = np.where(gp >= best_p[:, None] - TIE, gs, -np.inf)
        j = masked.argmax(axis=1)
        rp, rs = gp[rows, j], gs[rows, j]
        here = stop(m)
        reroll = (rp > here.primary + TIE) | (
            (np.abs(rp - here.primary) <= TIE) & (rs > here.secondary + TIE)
        )
        vp[m] = np.where(reroll, rp, here.primary)
        vs[m] = np.where(reroll, rs, here.secondary)
        act[m] = np.where(reroll, tables.sub[rows, j], STOP)
    return Solution(tables, last, tuple(vp), tuple(vs), tuple(kp), tuple(ks), tuple(act))


def stop_mass(solution: Solution, start: FloatArray, first: int = 0) -> list[FloatArray]:
    """Where the optimal policy stops: the probability mass of stopping in each state,
    per level ``first..last``, when the throw at level ``first`` is distributed as ``start``."""
    t = solution.tables
    out: list[FloatArray] = []
    mass = start
    for m in range(first, solution.last + 1):
        action = solution.action[m]
        stops = action == STOP
        out.append(np.where(stops, mass, 0.0))
        if m == solution.last:
            break
        keep_mass = np.zeros(t.n_keeps, dtype=np.float64)
        np.add.at(keep_mass, action[~stops], mass[~stops])
        mass = keep_mass @ t.transition
    return out


def evaluate(
    solution: Solution, stop: Callable[[int], FloatArray]
) -> tuple[tuple[FloatArray, ...], tuple[FloatArray, ...]]:
    """Expected values of other quantities under the solved policy (policy evaluation).

    ``stop(m)`` gives, per state, the quantities cashed in when stopping at level ``m``, as an
    (S, Q) array. Returns the values per level (S, Q) and, for levels before the last, the
    value of every keep (K, Q).
    """
    t = solution.tables
    last = solution.last
    values: list[FloatArray] = [np.empty(0)] * (last + 1)
    keeps: list[FloatArray] = [np.empty(0)] * last
    values[last] = stop(last)
    for m in range(last - 1, -1, -1):
        kv = t.transition @ values[m + 1]
        keeps[m] = kv
        act = solution.action[m]
        values[m] = np.where((act == STOP)[:, None], stop(m), kv[np.maximum(act, 0)])
    return tuple(values), tuple(keeps)
