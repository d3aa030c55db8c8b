"""Properties of the optimal policy on random warriors (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from controller.advisor.advisor import Advisor
from controller.advisor.values import Objective
from controller.core.symbols import Symbol
from controller.rules.warriors import Combo
from tests.advisor.helpers import fighter

SYMS = st.sampled_from([s for s in Symbol if s is not Symbol.STAR])
COMBO = st.builds(
    lambda syms, dmg: Combo("C", tuple(syms), dmg),
    st.lists(SYMS, min_size=1, max_size=4),
    st.integers(0, 40),
)


@pytest.mark.timeout(60)
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    combos=st.lists(COMBO, min_size=0, max_size=2),
    power=st.integers(1, 4),
    technique=st.integers(0, 2),
    endurance=st.integers(5, 40),
    dodge=st.integers(0, 4),
    objective=st.sampled_from([Objective.KO, Objective.DAMAGE]),
    throw=st.lists(st.sampled_from(list(Symbol)), min_size=4, max_size=4),
)
def test_more_rerolls_never_hurt_and_best_dominates(  # type: ignore[no-untyped-def]
    combos, power, technique, endurance, dodge, objective, throw
) -> None:
    named = [Combo(f"C{i}", c.symbols, c.damage) for i, c in enumerate(combos)]
    defender = fighter("D", endurance=endurance, dodge=dodge)
    a = Advisor(
        fighter(power=power, technique=technique, combos=named), 0, defender, 0, objective=objective
    )
    b = Advisor(
        fighter(power=power, technique=technique + 1, combos=named),
        0,
        defender,
        0,
        objective=objective,
    )
    va, vb = a.valuer.key_pair(*a.start_value()), b.valuer.key_pair(*b.start_value())
    assert vb[0] >= va[0] - 1e-9
    advice = a.advise(tuple(throw[:power]), 0)
    best = a.valuer.key_pair(advice.best.expected_damage, advice.best.p_eliminate)
    for ch in advice.choices:
        p, s = a.valuer.key_pair(ch.expected_damage, ch.p_eliminate)
        assert p <= best[0] + 1e-9
        if abs(p - best[0]) <= 1e-9:
            assert s <= best[1] + 1e-9
        assert ch.p_eliminate is not None and 0.0 <= ch.p_eliminate <= 1.0 + 1e-12
