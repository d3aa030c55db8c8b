"""Combo matching with wild stars against a brute-force reference (hypothesis)."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from controller.core.symbols import Symbol
from controller.rules.dice import counts_of
from controller.rules.scoring import makes, need_vector, symbol_sum
from controller.rules.variants import Variants

NON_STAR = [s for s in Symbol if s is not Symbol.STAR]
dice_st = st.lists(st.sampled_from(list(Symbol)), min_size=1, max_size=6)
combo_st = st.lists(st.sampled_from(NON_STAR), min_size=1, max_size=6)


def brute_force_makes(dice: list[Symbol], combo: list[Symbol]) -> bool:
    """Try every symbol each star could stand for; the combo is made if the dice then contain it."""
    plain = [d for d in dice if d is not Symbol.STAR]
    stars = len(dice) - len(plain)
    need: Counter[Symbol] = Counter(combo)
    for chosen in itertools.product(NON_STAR, repeat=stars):
        have: Counter[Symbol] = Counter(plain + list(chosen))
        if all(have[s] >= n for s, n in need.items()):
            return True
    return False


@settings(max_examples=400, deadline=None)
@given(dice_st, combo_st)
def test_matching_equals_brute_force(dice: list[Symbol], combo: list[Symbol]) -> None:
    assert makes(counts_of(dice), need_vector(combo)) == brute_force_makes(dice, combo)


@settings(max_examples=200, deadline=None)
@given(dice_st, st.lists(st.integers(0, 9), min_size=4, max_size=4), st.booleans())
def test_symbol_sum_equals_reference(
    dice: list[Symbol], vals: list[int], stars_count: bool
) -> None:
    values = [*vals, 0, 0]  # kick, punch, sphere, strength, star, teleport
    expected = sum(values[list(Symbol).index(d)] for d in dice)
    attack = [d for d in dice if d not in (Symbol.STAR, Symbol.TELEPORT)]
    same = len(set(attack)) == 1 and all(
        d in attack or (stars_count and d is Symbol.STAR) for d in dice
    )
    total, doubled = symbol_sum(
        counts_of(dice), values, Variants(star_counts_for_double=stars_count)
    )
    assert doubled == same
    assert total == (expected * 2 if same else expected)


def test_order_of_dice_does_not_matter() -> None:
    combo = need_vector([Symbol.SPHERE, Symbol.SPHERE, Symbol.PUNCH])
    for perm in itertools.permutations([Symbol.STAR, Symbol.SPHERE, Symbol.PUNCH, Symbol.KICK]):
        assert makes(counts_of(perm), combo)
