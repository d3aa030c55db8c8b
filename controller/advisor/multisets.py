"""Multisets of faces and the reroll transition tables the DP runs on.

A throw of ``n`` dice is a counts vector in Symbol order (462 of them for 6
dice). Keeping a sub-multiset ``k`` of ``s`` dice and rerolling the other
``n - s`` gives the next throw ``k + o``, where ``o`` is a multiset of the
rerolled dice with its multinomial probability (from the die's faces). The
tables here are built once per (die, pool size) and cached at module level:

- ``states``: every multiset of size ``n`` (rows of an ``(S, 6)`` array);
- ``keeps``: every multiset of size ``0..n-1`` (a proper keep; keeping all
  dice is no reroll);
- ``transition``: ``(K, S)`` matrix, ``transition[k, c]`` = P(next throw is
  ``c`` | keep ``k``), so values after a reroll are ``transition @ values``;
- ``sub``: for each state, the indices of its proper sub-multisets in
  ``keeps`` (padded with ``K``, a sentinel row the DP fills with -inf).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

import numpy as np
import numpy.typing as npt

from controller.core.symbols import MAX_POOL, Symbol
from controller.rules.dice import Counts, Die

N_SYMBOLS = len(Symbol)
FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def multisets(size: int) -> tuple[Counts, ...]:
    """Every counts vector with ``size`` dice, in a fixed (lexicographic) order."""
    out: list[Counts] = []
    for combo in combinations_with_replacement(range(N_SYMBOLS), size):
        c = [0] * N_SYMBOLS
        for i in combo:
            c[i] += 1
        out.append((c[0], c[1], c[2], c[3], c[4], c[5]))
    return tuple(out)


def face_probabilities(die: Die) -> tuple[float, ...]:
    """The chance of each symbol on one throw of ``die``, in Symbol order."""
    probs = die.probabilities()
    return tuple(probs.get(s, 0.0) for s in Symbol)


@lru_cache(maxsize=64)
def outcome_distribution(die: Die, size: int) -> tuple[tuple[Counts, float], ...]:
    """Every multiset ``size`` rerolled dice can show, with its multinomial probability."""
    p = face_probabilities(die)
    out: list[tuple[Counts, float]] = []
    for c in multisets(size):
        coef = math.factorial(size)
        prob = 1.0
        for n, q in zip(c, p, strict=True):
            coef //= math.factorial(n)
            prob *= q**n
        if prob > 0.0:
            out.append((c, coef * prob))
    return tuple(out)


@dataclass(frozen=True)
class Tables:
    """The transition tables for one die and one pool size (see the module docstring)."""

    pool: int
    states: tuple[Counts, ...]
    state_index: dict[Counts, int]
    state_array: IntArray  # (S, 6)
    keeps: tuple[Counts, ...]
    keep_index: dict[Counts, int]
    transition: FloatArray  # (K, S)
    first_throw: FloatArray  # (S,) distribution of the first throw of the whole pool
    sub: IntArray  # (S, M) proper sub-multiset keep indices, padded with K

    @property
    def n_states(self) -> int:
        """How many multisets of ``pool`` dice there are."""
        return len(self.states)

    @property
    def n_keeps(self) -> int:
        """How many proper keeps there are (sizes 0..pool-1)."""
        return len(self.keeps)


@lru_cache(maxsize=16)
def tables(die: Die, pool: int) -> Tables:
    """The (cached) tables for ``pool`` dice of ``die``.

    Raises:
        ValueError: a pool outside 1..6.
    """
    if not 1 <= pool <= MAX_POOL:
        raise ValueError(f"pool must be 1..{MAX_POOL}, got {pool}")
    states = multisets(pool)
    state_index = {c: i for i, c in enumerate(states)}
    keeps: list[Counts] = []
    for s in range(pool):
        keeps.extend(multisets(s))
    keep_index = {k: i for i, k in enumerate(keeps)}
    state_array = np.array(states, dtype=np.int64)
    keep_array = np.array(keeps, dtype=np.int64).reshape(len(keeps), N_SYMBOLS)
    weights = (MAX_POOL + 1) ** np.arange(N_SYMBOLS)
    code_to_state = {int(code): i for i, code in enumerate(state_array @ weights)}
    transition = np.zeros((len(keeps), len(states)), dtype=np.float64)
    sizes = keep_array.sum(axis=1)
    for size in range(pool):
        rows = np.nonzero(sizes == size)[0]
        dist = outcome_distribution(die, pool - size)
        outs = np.array([o for o, _ in dist], dtype=np.int64).reshape(len(dist), N_SYMBOLS)
        probs = np.array([p for _, p in dist], dtype=np.float64)
        codes = (keep_array[rows] @ weights)[:, None] + (outs @ weights)[None, :]
        cols = np.vectorize(code_to_state.__getitem__, otypes=[np.int64])(codes)
        np.add.at(transition, (np.repeat(rows, len(dist)), cols.ravel()), np.tile(probs, len(rows)))
    # A keep is a proper sub-multiset of a state when it fits under it (keeps are smaller).
    fits: npt.NDArray[np.bool_] = np.all(keep_array[None, :, :] <= state_array[:, None, :], axis=2)
    width = int(fits.sum(axis=1).max())
    sub = np.full((len(states), width), len(keeps), dtype=np.int64)
    for i in range(len(states)):
        found = np.nonzero(fits[i])[0]
        sub[i, : len(found)] = found
    transition.setflags(write=False)
    sub.setflags(write=False)
    state_array.setflags(write=False)
    first = transition[keep_index[(0, 0, 0, 0, 0, 0)]].copy()
    first.setflags(write=False)
    return Tables(
        pool, states, state_index, state_array, tuple(keeps), keep_index, transition, first, sub
    )
