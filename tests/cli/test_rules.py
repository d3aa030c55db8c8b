"""The combat command end to end: a scenario file in, JSON or text out, bad input exits 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from controller.cli.main import main
from tests.rules.helpers import SCENARIOS

ISSUE_EXAMPLE = {
    "attacker": {"warrior": "Kefla", "damage": 0, "support": 1, "transform_roll": 6},
    "defender": {"warrior": "Cabba", "damage": 4, "support": 0, "transform_roll": 5},
    "throws": [
        ["sphere", "punch", "kick", "teleport", "star", "punch"],
        ["sphere", "punch", "punch", "teleport", "star", "punch"],
        ["sphere", "punch", "punch", "sphere", "star", "punch"],
    ],
    "attack": "best",
    "dodge_throws": [["teleport", "kick", "star"], ["teleport", "teleport", "star"]],
}


def _run(
    tmp_path: Path, scenario: object, *extra: str
) -> tuple[int, str, str, pytest.CaptureFixture[str] | None]:
    path = tmp_path / "scenario.json"
    path.write_text(
        json.dumps(scenario) if not isinstance(scenario, str) else scenario, encoding="utf-8"
    )
    return main(["combat", str(path), "--data", str(SCENARIOS), *extra]), str(path), "", None


def test_combat_json_has_the_documented_keys(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, _, _ = _run(tmp_path, ISSUE_EXAMPLE, "--json")
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["speed"] == "normal"
    assert out["attack"] == {"kind": "combo", "name": "Enchainement", "damage": 23}
    assert out["dodged"] is True  # two teleports and a star against Cabba's dodge 2
    assert out["damage_dealt"] == 0
    assert out["attacker"]["form"] == "Super Saiyan Kefla"
    assert out["attacker"]["endurance_left"] == 31  # the form's cost
    assert out["defender"] == {
        "warrior": "Cabba",
        "form": "Super Saiyan Cabba",
        "damage_taken": 5,
        "endurance_left": 16,
        "eliminated": False,
    }
    assert out["counter_attack"] is False


def test_combat_text_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, _, _ = _run(tmp_path, ISSUE_EXAMPLE)
    out = capsys.readouterr().out
    assert code == 0
    assert (
        "Super Saiyan Kefla attacks Super Saiyan Cabba: 6 dice, 2 reroll(s), normal attack" in out
    )


@pytest.mark.parametrize(
    ("scenario", "message"),
    [
        (
            {**ISSUE_EXAMPLE, "throws": [["sphere"] * 7]},
            "throw 1 has 7 dice, but the pool is 6 dice",
        ),
        (
            {**ISSUE_EXAMPLE, "throws": [["sphere", "punch"] * 3, ["sphere"] * 5]},
            "throw 2 has 5 dice",
        ),
        ({**ISSUE_EXAMPLE, "attacker": {"warrior": "Kaflo"}}, "unknown warrior 'Kaflo'"),
        (
            {**ISSUE_EXAMPLE, "throws": [["sphere", "punch", "kick", "teleport", "star", "fist"]]},
            "'throws[0]': unknown symbol 'fist'",
        ),
        ({**ISSUE_EXAMPLE, "attackr": {}}, "unknown key 'attackr'"),
        ('{"attacker": ', "line 1 column 14"),
    ],
)
def test_bad_scenarios_exit_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], scenario: object, message: str
) -> None:
    code, path, _, _ = _run(tmp_path, scenario)
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert path in err
    assert len(err.strip().splitlines()) == 1
