"""The defender's side: the exact chance of a dodge, and the card-defence assumption.

A dodge (docs/rules.md §4) throws the defender's pool with its own rerolls and needs
at least N teleports, stars wild. Its success chance is solved by the same
exact DP as the attack (stop value 1 when teleports + stars >= N); keeping
every teleport and star and rerolling the rest is optimal, and the tests check
the DP against that greedy closed form.

Cards in the defender's hand are unknown to the table, so their effect is an
assumption the player switches: :class:`CardStopOdds` ``none`` (cards never stop
an attack, the default) or ``p=X`` (whenever the speed lets the defender answer
with a card, it stops the attack with probability X).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from controller.advisor.dp import LevelValues, solve
from controller.advisor.errors import CardDefenceSpecError
from controller.advisor.multisets import tables
from controller.core.quoting import short_repr
from controller.rules.attack import dodge_needed
from controller.rules.dice import STAR_INDEX, TELEPORT_INDEX, TOURNAMENT_DIE, Die
from controller.rules.pools import defence_pool, defence_rerolls
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import Fighter


@dataclass(frozen=True)
class CardStopOdds:
    """The assumed chance that a card answer stops an attack (0: no card defence)."""

    p: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.p <= 1.0:
            raise CardDefenceSpecError(f"card-defence probability must be 0..1, got {self.p}")

    @classmethod
    def parse(cls, text: str) -> CardStopOdds:
        """``none`` or ``p=X`` (also a bare ``X``), 0 <= X <= 1.

        Raises:
            CardDefenceSpecError: anything else.
        """
        t = text.strip().lower()
        if t in ("none", "no", "0"):
            return cls(0.0)
        raw = t[2:] if t.startswith("p=") else t
        try:
            p = float(raw)
        except ValueError:
            raise CardDefenceSpecError(
                f"card defence {short_repr(text)}: expected 'none' or 'p=X' with 0 <= X <= 1"
            ) from None
        return cls(p)

    def __str__(self) -> str:
        return "none" if self.p == 0.0 else f"p={self.p:g}"


NO_CARD_DEFENCE = CardStopOdds()


@lru_cache(maxsize=256)
def dodge_chance(pool: int, rerolls: int, needed: int, die: Die = TOURNAMENT_DIE) -> float:
    """The exact chance that ``pool`` dice with ``rerolls`` rerolls show ``needed``
    teleports (stars wild), playing optimally.

    Raises:
        ValueError: a pool outside 1..6 or negative rerolls.
    """
    if needed <= 0:
        return 1.0
    if needed > pool:
        return 0.0
    t = tables(die, pool)
    made = (t.state_array[:, TELEPORT_INDEX] + t.state_array[:, STAR_INDEX] >= needed).astype(
        np.float64
    )
    zeros = np.zeros(t.n_states)
    sol = solve(t, rerolls, lambda _m: LevelValues(made, zeros))
    return float(t.first_throw @ sol.value_p[0])


def greedy_dodge_chance(pool: int, rerolls: int, needed: int, p_good: float) -> float:
    """The dodge chance when every teleport and star is kept and the rest rerolled.

    ``p_good`` is the chance one die shows a teleport or a star. A closed form
    over the number of good dice, used to check :func:`dodge_chance`.
    """
    from math import comb

    dist = [0.0] * (pool + 1)
    for g in range(pool + 1):
        dist[g] = comb(pool, g) * p_good**g * (1 - p_good) ** (pool - g)
    for _ in range(rerolls):
        nxt = [0.0] * (pool + 1)
        for g, pg in enumerate(dist):
            if g >= needed:
                nxt[g] += pg
                continue
            left = pool - g
            for h in range(left + 1):
                nxt[g + h] += pg * comb(left, h) * p_good**h * (1 - p_good) ** (left - h)
        dist = nxt
    return sum(dist[needed:])


def fighter_dodge_chance(
    defender: Fighter,
    support: int = 0,
    die: Die = TOURNAMENT_DIE,
    variants: Variants = DEFAULT_VARIANTS,
) -> float:
    """The chance ``defender`` dodges: its defence pool, its rerolls, the teleports it needs
    (the rules' :func:`~controller.rules.pools.defence_pool` and
    :func:`~controller.rules.attack.dodge_needed`, with the game's variants)."""
    pool = defence_pool(defender, support, variants)
    needed = dodge_needed(defender, pool, variants)
    return dodge_chance(pool, defence_rerolls(defender), needed, die)
