"""The options every state of one pool can cash in, as numpy columns (the stop policy's input)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from controller.advisor.multisets import IntArray, Tables
from controller.core.symbols import ATTACK_SYMBOLS, Symbol
from controller.rules.dice import SPHERE_INDEX, STAR_INDEX, Counts
from controller.rules.scoring import (
    SUM_OPTION,
    Option,
    OptionKind,
    ThrowScorer,
    cashable,
    need_vector,
)


@dataclass(frozen=True)
class OptionColumns:
    """The options every state of one pool can cash in, as columns."""

    fixed: tuple[Option, ...]  # warrior combos then card combos, as the scorer builds them
    made: tuple[npt.NDArray[np.bool_], ...]  # (S,) per fixed option
    sum_options: tuple[Option, ...]  # the distinct symbol-sum options
    sum_code: IntArray  # (S,) index into sum_options
    sum_made: npt.NDArray[np.bool_] | None = None  # (S,) where the last column holds (None: all)

    @classmethod
    def build(cls, scorer: ThrowScorer, t: Tables, *, sum_allowed: bool = True) -> OptionColumns:
        """The columns of every state of ``t``; with ``sum_allowed`` False (the engine's
        ``sum_allowed``) the last column is not the symbol sum but what
        :func:`~controller.rules.scoring.cashable` leaves a throw making nothing, held only
        where no combo or card is made."""
        fighter = scorer.fighter
        fixed: list[Option] = []
        needs: list[Counts] = []
        for combo in fighter.combos:
            fixed.append(
                Option(OptionKind.COMBO, combo.name, combo.damage, False, combo.holds_sphere)
            )
            needs.append(need_vector(combo.symbols))
        for card in scorer.cards:
            fixed.append(
                Option(OptionKind.CARD, card.name, card.damage, False, card.holds_sphere, card)
            )
            needs.append(need_vector(card.symbols))
        counts = t.state_array
        made: list[npt.NDArray[np.bool_]] = []
        others = [i for i in range(len(Symbol)) if i != STAR_INDEX]
        for need in needs:
            lack = np.maximum(np.array(need)[others] - counts[:, others], 0).sum(axis=1)
            made.append(lack <= counts[:, STAR_INDEX])
        # the symbol sum of every state, vectorised (docs/rules.md §3; the tests check it against
        # the rules' symbol_sum): doubled when the first attack symbol shown is on every die
        # (stars too with star_counts_for_double)
        values = np.array(fighter.value_vector(), dtype=np.int64)
        attack = [list(Symbol).index(s) for s in ATTACK_SYMBOLS]
        total = counts[:, attack] @ values[attack]
        dice = counts.sum(axis=1)
        shown = counts[:, attack]
        first = shown[np.arange(t.n_states), (shown > 0).argmax(axis=1)]
        doubled = (first > 0) & (first == dice)
        if scorer.variants.star_counts_for_double:
            doubled |= (first > 0) & (first + counts[:, STAR_INDEX] == dice)
        total = np.where(doubled, 2 * total, total)
        sphere = doubled & (counts[:, SPHERE_INDEX] > 0)
        keys = np.stack([total, doubled, sphere], axis=1)
        uniq, code = np.unique(keys, axis=0, return_inverse=True)
        sum_options = tuple(
            Option(OptionKind.SUM, SUM_OPTION, int(k[0]), bool(k[1]), bool(k[2])) for k in uniq
        )
        code = code.reshape(-1).astype(np.int64)
        if not sum_allowed:
            none_made = ~np.logical_or.reduce(made) if made else np.ones(t.n_states, dtype=bool)
            (fallback,) = cashable((), sum_allowed=False)
            return cls(tuple(fixed), tuple(made), (fallback,), np.zeros_like(code), none_made)
        return cls(tuple(fixed), tuple(made), sum_options, code)
