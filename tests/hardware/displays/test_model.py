"""TableView: loading from JSON with errors that name the field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.core.errors import DataError
from controller.core.symbols import AttackSpeed, Defence, Symbol
from hardware.displays.gallery import cases
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


def test_story_advice_shows_the_chance_of_the_square() -> None:
    """A Story attempt's advice: the chance of taking the square, no KO (docs/rules.md §12)."""
    data = _example()
    data["combat"]["advice"] = {"keep": ["kick"], "expected_damage": 22.4, "win_chance": 0.42}
    v = view_from_dict(data)
    assert v.combat is not None and v.combat.advice is not None
    assert (v.combat.advice.win_chance, v.combat.advice.ko_chance) == (0.42, None)


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
        "s.json: combat.attacker: field 'endurance_left': expected a whole number 0..9999, got -1"
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
        (
            lambda d: d["clock"].update(round_no=14),
            "clock: field 'round_no': 14 is past rounds=10 and the 3 extra rounds of a tie",
        ),
        (
            lambda d: d["clock"].update(round_no=14, rounds=None, extra_round=4),
            "clock: field 'extra_round': expected a whole number 1..3, got 4",
        ),
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
            lambda d: d["prompt"].update(marked=[0, len(d["prompt"]["dice"])]),
            "prompt: field 'marked': 5 but only 5 dice",
        ),
        (
            lambda d: d["prompt"].update(choices=[]),
            "prompt: field 'choices': a confirm_read prompt offers its choices; got none",
        ),
        (
            lambda d: d["combat"]["advice"].update(ko_chance=1.5),
            "field 'ko_chance': expected a number from 0 to 1",
        ),
        (
            lambda d: d["combat"]["advice"].update(win_chance=1.5),
            "field 'win_chance': expected a number from 0 to 1",
        ),
        (lambda d: d.update(seats={}), "field 'seats': expected a list"),
        (lambda d: d.update(clock=3), "field 'clock': expected an object"),
        (lambda d: d.update(turn=True), "field 'turn': expected a whole number 1..9999"),
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


# ---------------------------------------------------------------- fuzzed inputs
# Each class of input a fuzz run of ``toptable screens --state`` found drawing a traceback,
# hanging, or passing silently: each is now one problem naming its field.


def _set(d: Any, path: str, value: Any) -> None:
    """Set ``value`` at ``path`` (``combat.options[0].damage``) in the JSON tree ``d``."""
    *parents, last = path.replace("[", ".").replace("]", "").split(".")
    for key in parents:
        d = d[int(key)] if key.isdigit() else d[key]
    d[int(last) if last.isdigit() else last] = value


def _get(d: Any, path: str) -> Any:
    for key in path.replace("[", ".").replace("]", "").split("."):
        d = d[int(key)] if key.isdigit() else d[key]
    return d


def _problems(d: Any) -> list[str]:
    with pytest.raises(DataError) as err:
        view_from_dict(d, "s.json")
    return [str(p) for p in err.value.problems]


def _changed(path: str, value: Any) -> dict[str, Any]:
    d = _example()
    _set(d, path, value)
    return d


@pytest.mark.parametrize(
    ("text", "got"),
    [("NaN", "nan"), ("Infinity", "inf"), ("1e308", "1e+308")],
)
def test_a_number_that_is_no_number_is_refused_not_a_traceback(
    tmp_path: Path, text: str, got: str
) -> None:
    # JSON's NaN and Infinity reach Python as floats: the options screen's round() raised
    # ValueError (NaN) or OverflowError (Infinity); 1e308 passed and was drawn cut
    path = tmp_path / "state.json"
    raw = json.dumps(_changed("combat.advice.expected_damage", 0.5)).replace("0.5", text)
    path.write_text(raw, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_view(path)
    assert str(err.value) == (
        f"{path}: combat.advice: field 'expected_damage': "
        f"expected a number from 0 to 9999, got {got}"
    )


LIMITS = [
    ("turn", "expected a whole number 1..9999", 9_999),
    ("clock.rounds", "expected a whole number 1..9999", 9_999),
    ("clock.seconds_left", "expected a whole number 0..86400", 86_400),
    ("seats[0].warriors_total", "expected a whole number 0..6", 6),
    ("seats[1].cards_in_hand", "expected a whole number 0..9999", 9_999),
    ("seats[2].victory_points", "expected a whole number 0..9999", 9_999),
    ("combat.attacker.endurance_max", "expected a whole number 1..9999", 9_999),
    ("combat.options[1].damage", "expected a whole number 0..9999", 9_999),
    ("combat.rolls_max", "expected a whole number 1..9999", 9_999),
    ("prompt.steps", "expected a whole number 1..9999", 9_999),
    ("combat.advice.expected_damage", "expected a number from 0 to 9999", 9_999),
]


@pytest.mark.parametrize(("path", "expected", "most"), LIMITS)
def test_numbers_are_refused_past_what_the_screens_show(
    path: str, expected: str, most: int
) -> None:
    # 2**62 warriors raised a SystemError in PIL, 10**9 hung; a timestamp as seconds_left,
    # a damage of 10**9 were drawn cut; the largest allowed still draws on every screen
    for case in cases(view_from_dict(_changed(path, most), "s.json")):
        case.render()
    entry, _, field = path.rpartition(".")
    where = f"s.json: {entry}: " if entry else "s.json: "
    assert _problems(_changed(path, most + 1)) == [
        f"{where}field '{field}': {expected}, got {most + 1}"
    ]


@pytest.mark.parametrize(
    ("path", "item", "n", "message"),
    [
        ("seats", "seats[0]", 7, "field 'seats': 7 seats; a game seats at most 6 players"),
        ("prompt.choices", "OK", 5, "prompt: field 'choices': 5 choices; at most 4 buttons fit"),
        ("combat.advice.keep", "star", 7, "combat.advice: field 'keep': 7 dice; a pool holds"),
        ("combat.defences", "dodge", 4, "combat: field 'defences': 4 defences; there are 3"),
        ("combat.options", "combat.options[0]", 100, "combat: field 'options': 100 options; "),
        ("faults", "faults[0]", 100, "field 'faults': 100 faults; expected at most 99"),
        ("combat.dice", "fist", 10_000, "combat: field 'dice': 10000 dice; a pool holds"),
    ],
)
def test_a_list_longer_than_a_screen_holds_is_one_problem(
    path: str, item: str, n: int, message: str
) -> None:
    # 10,000 seats drew 20,000 screens (15 s); 65 choices raised a ValueError in PIL; a list
    # of 10,000 wrong items was 10,000 problems: the length is one, the items are not read
    d = _example()
    sample = _get(d, item) if "[" in item else item  # an item of the example, or a value
    _set(d, path, [sample] * n)
    problems = _problems(d)
    assert len(problems) == 1 and problems[0].startswith(f"s.json: {message}")


@pytest.mark.parametrize(
    "path",
    ["phase", "player", "seats[0].name", "prompt.text", "prompt.title", "faults[1].message"],
)
def test_a_text_longer_than_a_screen_shows_is_refused(path: str) -> None:
    # a million-character phase took 30 s to draw
    d = _changed(path, "W " * 250_000)
    entry, _, field = path.rpartition(".")
    where = f"s.json: {entry}: " if entry else "s.json: "
    assert f"{where}field '{field}': expected at most 500 characters, got 500000" in _problems(d)


NAMES = [
    "player",
    "phase",
    "seats[1].name",
    "combat.attacker.name",
    "combat.attacker.form",
    "combat.options[0].label",
    "prompt.choices[1]",
    "faults[0].source",
]


@pytest.mark.parametrize("path", NAMES)
@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_name_is_refused(path: str, blank: str) -> None:
    entry, _, field = path.rpartition(".")
    if "[" in field and "." not in path:  # a list item at the top: no entry
        entry, field = "", path
    where = f"s.json: {entry}: " if entry else "s.json: "
    problem = f"{where}field '{field}': expected a non-empty string, got {blank!r}"
    assert problem in _problems(_changed(path, blank))


@pytest.mark.parametrize("path", NAMES)
def test_a_name_with_a_nul_character_is_refused(path: str) -> None:
    assert any(
        "expected a name without a NUL character" in p and path.rpartition(".")[2] in p
        for p in _problems(_changed(path, "Ana\x00"))
    )


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda d: d.update(player="Ben"),
            "s.json: field 'player': 'Ben' but seats[0] is 'Ana'",
        ),
        (
            lambda d: d["seats"][2].update(name="Ana"),
            "s.json: seats[2]: field 'name': 'Ana' is seats[0]'s name too",
        ),
        (
            lambda d: d["clock"].update(round_no=12, extra_round=1),
            "s.json: clock: field 'extra_round': 1 but round_no=12 is not rounds=10 + 1",
        ),
        (
            lambda d: d["prompt"].update(step=43, steps=42),
            "s.json: prompt: field 'step': 43 > steps=42",
        ),
        (
            lambda d: d["combat"].update(defences=["dodge", "any_card", "dodge"]),
            "s.json: combat: field 'defences[2]': 'dodge' is listed twice",
        ),
        (
            lambda d: d["combat"]["advice"].update(keep=["star", "star", "kick"]),
            "s.json: combat.advice: field 'keep': keeps 2 star but combat.dice shows 1",
        ),
        (
            lambda d: d["combat"]["advice"].update(keep=["teleport"]),
            "s.json: combat.advice: field 'keep': keeps 1 teleport but combat.dice shows 0",
        ),
    ],
)
def test_fields_that_contradict_each_other_are_refused(change: Any, message: str) -> None:
    d = _example()
    change(d)
    assert _problems(d) == [message]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("clock", None, "s.json: field 'clock': expected an object, got null"),
        ("combat.attacker", [], "s.json: combat: field 'attacker': expected an object, got a list"),
        ("seats", {}, "s.json: field 'seats': expected a list, got an object"),
        ("faults", "camera", "s.json: field 'faults': expected a list, got text"),
        ("prompt.dice", True, "s.json: prompt: field 'dice': expected a list, got true"),
    ],
)
def test_a_wrong_kind_is_named_in_json_words(path: str, value: Any, message: str) -> None:
    # not Python's: "got NoneType", "got dict"
    assert _problems(_changed(path, value)) == [message]


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["combat"]["advice"].update(expected_damage="x" * 100_000), "expected_damage"),
        (lambda d: d["combat"]["advice"].update(ko_chance=list(range(10_000))), "ko_chance"),
        (lambda d: d["combat"].update(defences=["y" * 100_000]), "defences[0]"),
        (lambda d: d["seats"][0].update(name=" " * 400), "name"),  # blank, under the 500 cap
    ],
)
def test_a_huge_wrong_value_is_shown_cut_short(change: Any, field: str) -> None:
    d = _example()
    change(d)
    with pytest.raises(DataError) as err:
        view_from_dict(d, "s.json")
    message = str(err.value)
    assert f"field '{field}'" in message and len(message) < 300 and "\n" not in message
    assert "characters)" in message or "items)" in message
