"""The advisor bench's Story case: green's exact chance of taking square 1 agrees with
squares played by both sides' advised policies (a Monte Carlo sharing nothing with it)."""

from __future__ import annotations

import re

import pytest

from controller.bench.advisor_story import story_case


def test_the_exact_chance_of_taking_the_square_agrees_with_play(
    capsys: pytest.CaptureFixture[str],
) -> None:
    story_case(20_000, reps=1, seed=3)
    out = capsys.readouterr().out
    found = re.search(r"exact (\d\.\d+) vs simulated (\d\.\d+) \(±(\d\.\d+) s\.e\.", out)
    assert found, out
    exact, simulated, se = (float(x) for x in found.groups())
    assert 0.0 < exact < 1.0
    assert abs(simulated - exact) < 4 * se, out
