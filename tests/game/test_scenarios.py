"""Every scenario file under tests/data/scenarios/game/ (movement, landing, cards, ends, variants)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.game.helpers import run_scenario, scenario_files


def test_there_are_scenarios() -> None:
    assert len(scenario_files()) >= 10


@pytest.mark.timeout(30)
@pytest.mark.parametrize("path", scenario_files(), ids=lambda p: p.stem)
def test_scenario(path: Path) -> None:
    run_scenario(path)
