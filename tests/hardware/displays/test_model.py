"""TableView: loading from JSON with errors that name the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.core.errors import DataError
from controller.core.symbols import AttackSpeed, Defence, Symbol
from hardware.displays.model import PromptKind
from hardware.displays.view_json import EXAMPLE_STATE, load_view, view_from_dict

pytestmark = pytest.mark.timeout(30)


def _example() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(EXAMPLE_STATE.read_text(encoding="utf-8"))
    return data


def test_example_loads_typed() -> None:
    v = load_view(EXAMPLE_STATE)
    assert v.player == "Ana" and v.clock.rounds == 10 and v.clock.seconds_left == 1754
    assert v.combat is not None
    assert v.combat.dice[0] is Symbol.STAR
    assert v.combat.speed is AttackSpeed.NORMAL
    assert v.combat.defences == (Defence.ANY_CARDS, Defence.DODGE)
    assert v.combat.best is not None and v.combat.best.label == "Kamehameha"
    assert v.prompt is not None and v.prompt.kind is PromptKind.CONFIRM_READ
    assert len(v.faults) == 2 and v.seats[2].name == "Chloé"


def test_minimal_view_defaults() -> None:
    v = view_from_dict(
        {"turn": 1, "seat": 0, "player": "A", "clock": {"round_no": 1}, "phase": "move"}
    )
    assert v.combat is None and v.prompt is None and v.faults == () and v.seats == ()


def test_every_problem_is_reported_with_its_field() -> None:
    d = _example()
    d["combat"]["attacker"]["endurance_left"] = -1
    d["combat"]["dice"][1] = "fist"
    d["bogus"] = 1
    d["prompt"]["kind"] = "quiz"
    del d["player"]
    with pytest.raises(DataError) as err:
        view_from_dict(d, "s.json")
    text = str(err.value)
    assert len(err.value.problems) == 5
    assert (
        "s.json: combat.attacker: field 'endurance_left': expected a whole number >= 0, got -1"
        in text
    )
    assert "s.json: combat: field 'dice[1]': expected one of kick, punch" in text
    assert "s.json: field 'bogus': unknown key; expected one of clock" in text
    assert "s.json: prompt: field 'kind': expected one of confirm_read" in text
    assert "s.json: field 'player': missing" in text


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(seat=3), "field 'seat': 3 but only 3 seats"),
        (lambda d: d["clock"].update(round_no=11), "clock: field 'round_no': 11 is past rounds=10"),
        (lambda d: d["seats"][0].update(warriors_left=7), "seats[0]: field 'warriors_left'"),
        (
            lambda d: d["combat"]["defender"].update(endurance_left=46),
            "combat.defender: field 'endurance_left'",
        ),
        (lambda d: d["combat"].update(roll_no=5), "combat: field 'roll_no': 5 > rolls_max=4"),
        (
            lambda d: d["prompt"].update(selected=2),
            "prompt: field 'selected': 2 but only 2 choices",
        ),
        (
            lambda d: d["prompt"].update(choices=[]),
            "prompt: field 'choices': a confirm_read prompt offers its choices; got none",
        ),
        (
            lambda d: d["combat"]["advice"].update(ko_chance=1.5),
            "field 'ko_chance': expected a number from 0 to 1",
        ),
        (lambda d: d.update(seats={}), "field 'seats': expected a list"),
        (lambda d: d.update(clock=3), "field 'clock': expected an object"),
        (lambda d: d.update(turn=True), "field 'turn': expected a whole number >= 1"),
    ],
)
def test_bad_values_name_the_field(change: Any, message: str) -> None:
    d = _example()
    change(d)
    with pytest.raises(DataError, match=None) as err:
        view_from_dict(d, "s.json")
    assert message in str(err.value)


def test_a_plain_choice_may_offer_no_buttons() -> None:
    d = _example()
    d["prompt"].update(kind="choose", choices=[], selected=0)
    view = view_from_dict(d, "s.json")
    assert view.prompt is not None and view.prompt.choices == ()


def test_unreadable_and_non_json_files(tmp_path: Path) -> None:
    with pytest.raises(DataError, match="cannot read"):
        load_view(tmp_path / "absent.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{turn: 1", encoding="utf-8")
    with pytest.raises(DataError, match=r"bad.json: line 1 column \d+: not valid JSON: "):
        load_view(bad)
