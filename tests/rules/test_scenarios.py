"""The rules scenarios as data (python-chess's perft idea): every case of
tests/data/scenarios/rules/*.json, through the CLI for single throws and through the
engine for whole combats."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.cli.main import main
from controller.core.errors import TopTableError
from controller.gamedata.scenario import parse_scenario
from controller.rules.combat import resolve_combat
from tests.rules.helpers import SCENARIOS, load_cases, mismatch, scenario_roster

THROWS = load_cases("throws.json")
COMBATS = load_cases("combats.json")


def _roll_argv(case: dict[str, Any]) -> list[str]:
    argv = [
        "roll",
        "--warrior",
        case["warrior"],
        "--dice",
        case["dice"],
        "--rerolls",
        str(case["rerolls"]),
    ]
    argv += ["--data", str(SCENARIOS), "--json"]
    if "support" in case:
        argv += ["--support", str(case["support"])]
    for card in case.get("card", []):
        argv += ["--card", card]
    for variant in case.get("variants", []):
        argv += ["--variant", variant]
    return argv


@pytest.mark.parametrize("case", THROWS, ids=[c["name"] for c in THROWS])
def test_throw_scenario(case: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    code = main(_roll_argv(case))
    out, err = capsys.readouterr()
    if "error" in case:
        assert code == 2
        assert case["error"] in err
        assert len(err.strip().splitlines()) == 1, "an error is one clear line"
    else:
        assert code == 0, err
        problem = mismatch(case["expect"], json.loads(out))
        assert problem is None, problem


@pytest.mark.parametrize("case", COMBATS, ids=[c["name"] for c in COMBATS])
def test_combat_scenario(case: dict[str, Any]) -> None:
    roster = scenario_roster()
    if "error" in case:
        with pytest.raises(TopTableError) as info:
            resolve_combat(parse_scenario(case["scenario"], roster))
        assert case["error"] in str(info.value)
    else:
        result = resolve_combat(parse_scenario(case["scenario"], roster)).to_json()
        problem = mismatch(case["expect"], result)
        assert problem is None, problem


def test_there_are_enough_scenarios() -> None:
    assert len(THROWS) + len(COMBATS) >= 45
