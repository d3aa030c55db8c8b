"""Perft: the legal decision sequences from fixed states match the stored counts.

``tests/data/legal_counts/STATE.json`` holds what ``toptable game perft STATE --depth 3
--json`` printed when the counts were last checked by hand; regenerating them is a
deliberate act (a rule change), never a way to make this test pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.game import perft
from controller.game.events import ChooseAttack, DiceThrown
from controller.game.legal import legal_actions
from controller.gamedata import DEMO_DIR
from controller.gamedata.bundle import load_game_data
from tests.paths import DATA

COUNTS = DATA / "legal_counts"
FILES = sorted(COUNTS.glob("*.json"))


def test_every_state_has_a_counts_file() -> None:
    assert sorted(p.stem for p in FILES) == sorted(perft.STATES)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_counts_match_the_data_file(path: Path) -> None:
    stored = json.loads(path.read_text())
    depth = max(int(d) for d in stored["counts"])
    assert depth >= 3
    found = perft.counts(stored["state"], depth, str(DEMO_DIR)).to_json()
    assert found == stored


def test_throw_outcomes_are_distinct_multisets() -> None:
    throws = perft.throw_outcomes(5)
    assert len(throws) == 12
    assert len({tuple(sorted(t)) for t in throws}) == 12
    assert len(perft.throw_outcomes(1)) == 6
    assert all(len(t) == 5 for t in throws)


def test_die_outcomes_count_the_multisets() -> None:
    assert len(perft.die_outcomes(1)) == 6
    assert len(perft.die_outcomes(2)) == 21


def test_the_attack_state_branches_on_throws_and_options() -> None:
    state, _ = perft.build("attack", load_game_data(DEMO_DIR))
    throws = list(perft.inputs(state))
    assert throws and all(isinstance(e, DiceThrown) for e in throws)
    options = list(legal_actions(state))
    assert options and all(isinstance(a, ChooseAttack) for a in options)
    assert perft.perft(state, 1) == len(throws) + len(options)
