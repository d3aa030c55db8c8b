"""A scenario file's values of the wrong kind are refused with the key that holds them,
not read as something else (``bool("no")`` is true)."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from controller.cli.main import main
from controller.core.errors import UnknownNameError
from controller.gamedata.scenario import ScenarioError, parse_scenario
from tests.rules.helpers import scenario_roster

COMBAT: dict[str, Any] = {
    "attacker": {"warrior": "Kefla", "transform_roll": 6},
    "defender": {"warrior": "Cabba", "damage": 4},
    "throws": [["sphere", "punch", "kick", "teleport", "star", "punch"]],
    "attack": "best",
    "dodge_throws": [["teleport", "kick", "kick"]],
}
CARD = {"name": "Rapid Punches", "symbols": ["punch", "punch"], "damage": 2}


def _with(path: str, value: object) -> dict[str, Any]:
    data = copy.deepcopy(COMBAT)
    *parents, last = path.split(".")
    at = data
    for key in parents:
        at = at.setdefault(key, {})
    at[last] = value
    return data


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("flee", "no", "'flee': expected true or false, got 'no'"),
        ("flee", 0, "'flee': expected true or false, got 0"),
        ("defender.cards", [CARD | {"invulnerable": "no"}],
         "'defender.cards[0].invulnerable': expected true or false, got 'no'"),
        ("attacker.cards", [CARD | {"sphere_only": 1}],
         "'attacker.cards[0].sphere_only': expected true or false, got 1"),
        ("variants", [5], "'variants': expected a list of variant names"),
        ("variants", [None], "'variants': expected a list of variant names"),
        ("attacker.form", 5, "'attacker.form': expected a form name"),
        ("defender.damage", 21, "'defender.damage': 21, but Cabba has 21 endurance (a warrior "
         "with that much damage is out); expected 0..20"),
        ("attacker.support", 100, "'attacker.support': 100 support dice; expected 0..6"),
        ("attacker.cards", [CARD | {"colour": "red"}], "'attacker.cards[0].colour': unknown "
         "key; expected one of damage, defence, invulnerable, name, sphere_only, symbols"),
        ("attacker.cards", [CARD | {"symbols": ["punch", "star"]}], "'attacker.cards[0]"
         ".symbols': a combo cannot ask for a star: the star is wild (docs/rules.md §1)"),
        ("attacker.cards", [CARD | {"damage": 10**30}],
         f"'attacker.cards[0].damage': {10**30}; expected 0..200"),
        ("attacker.cards", [CARD | {"name": " "}], "'attacker.cards[0].name': expected the "
         "card's name, got ' '"),
        ("defence_card", {"card": CARD, "dek": "attack", "throws": [["punch"]]},
         "'defence_card.dek': unknown key; expected one of card, deck, throws"),
        ("reflect_card", {"card": CARD | {"name": ""}, "throws": [["punch"]]},
         "'reflect_card.card.name': expected the card's name, got ''"),
        ("attacker.cards", [CARD | {"name": "Big\x00Bang"}], "'attacker.cards[0].name': "
         "expected a name without a NUL character (\\u0000), got 'Big\\x00Bang'"),
        ("defence_card", {"card": CARD | {"name": "\x00"}, "throws": [["punch"]]},
         "'defence_card.card.name': expected a name without a NUL character (\\u0000), "
         "got '\\x00'"),
    ],
)  # fmt: skip
def test_a_value_of_the_wrong_kind_is_named(path: str, value: object, message: str) -> None:
    with pytest.raises(ScenarioError) as err:
        parse_scenario(_with(path, value), scenario_roster())
    assert str(err.value) == message


def test_an_unknown_warrior_names_its_side() -> None:
    with pytest.raises(UnknownNameError, match=r"^'defender': unknown warrior 'Nobody'"):
        parse_scenario(_with("defender.warrior", "Nobody"), scenario_roster())


def test_the_same_values_of_the_right_kind_are_read() -> None:
    combat = parse_scenario(_with("flee", False), scenario_roster())
    assert combat.attack.flee is False
    with_card = _with("defender.cards", [CARD | {"invulnerable": True}])
    assert parse_scenario(with_card, scenario_roster()).defender.cards[0].invulnerable


def test_damage_equal_to_endurance_stands_under_the_variant_that_says_so() -> None:
    # eliminate_only_when_exceeded (docs/rules.md): a warrior is out only past its endurance
    data = _with("defender.damage", 21) | {"variants": ["eliminate_only_when_exceeded"]}
    assert parse_scenario(data, scenario_roster()).defender.damage == 21
    data = _with("defender.damage", 22) | {"variants": ["eliminate_only_when_exceeded"]}
    with pytest.raises(ScenarioError, match=r"'defender.damage': 22, .*expected 0\.\.21$"):
        parse_scenario(data, scenario_roster())


HUGE = "y" * 100_000


@pytest.mark.parametrize(
    ("path", "value", "piece"),
    [
        ("attacker.warrior", HUGE, "'attacker': unknown warrior 'yyy"),
        ("attacker.form", HUGE, "has no form 'yyy"),
        ("attacker.damage", HUGE, "'attacker.damage': expected a whole number >= 0, got 'yyy"),
        ("defender.damage", [1] * 5000, "'defender.damage': expected a whole number >= 0, got [1"),
        ("defender.damage", 10**4000, "'defender.damage': 1000"),
        ("attacker.support", 10**4000, "'attacker.support': 1000"),
        ("attacker.cards", [CARD | {"damage": 10**4000}], "'attacker.cards[0].damage': 1000"),
        ("attacker.cards", [CARD | {"name": " " * 100_000}], "got '    "),
        ("attacker.transform_roll", [1] * 5000, "Kefla transforms with 1 die (1..6 each), got [1"),
        ("defender.transform_roll", 10**4000, "Cabba transforms with 1 die: a roll of 1000"),
        ("attack", HUGE, "the final throw does not make 'yyy"),
        ("flee", HUGE, "'flee': expected true or false, got 'yyy"),
        (HUGE, 1, "unknown key 'yyy"),
        ("counter", {HUGE: 1}, "'counter': unknown key 'yyy"),
    ],
)
def test_a_huge_value_is_shown_in_part(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], path: str, value: object, piece: str
) -> None:
    """The one line of ``toptable combat`` quotes a huge value's start and its size, never
    the whole of it (a 100,000-character name, a list of 5,000 dice, a 4,000-digit number)."""
    scenario = tmp_path / "s.json"
    scenario.write_text(json.dumps(_with(path, value)), encoding="utf-8")
    assert main(["combat", str(scenario)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"toptable: error: {scenario}: ") and err.count("\n") == 1
    assert piece in err and len(err) < 400
