"""Each problem is one line of bounded length, whatever the input holds.

A fuzz pass found three ways the shared problem code broke the rule: a key holding a
newline (or a tab, an escape) was printed as is, a wrong value was shown whole (a
10,000-item list, a million-character string), and a table of 10,000 unknown keys was
10,000 problems. Each is handled where the text is made (controller.core.errors,
controller.core.checked, controller.core.config_schema, controller.core.quoting).
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

import pytest

from controller.core.checked import Problems, name_problem
from controller.core.config_schema import Section, config_problems, integer, text
from controller.core.errors import DataError, DataProblem
from controller.core.quoting import VALUE_LIMIT, printable, short_repr
from controller.core.symbols import parse_symbol

ALLOWED = {"name", "size"}


class Colour(StrEnum):
    RED = "red"


def _problems(p: Problems) -> list[str]:
    with pytest.raises(DataError) as err:
        p.check()
    return [str(x) for x in err.value.problems]


def _one_line(p: Problems) -> str:
    with pytest.raises(DataError) as err:
        p.check()
    message = str(err.value)
    assert "\n" not in message and "\r" not in message
    return message


# ---------------------------------------------------------------- names from the input


def test_printable_keeps_ordinary_names_and_escapes_the_rest() -> None:
    for name in ("Goku", "combat.options[0]", "warrior 'Végéta'", "a b", "C:\\data", ""):
        assert printable(name) is name
    assert printable("zz\nINJ") == "zz\\nINJ"
    assert printable("tab\there\r\x1b[31m\x00\u2028") == "tab\\there\\r\\x1b[31m\\x00\\u2028"
    # once escaped, a backslash is doubled: the form reads back one way
    assert printable("a\\n\n") == "a\\\\n\\n"
    assert printable("x" * 1_000) == "x" * 1_000
    assert printable("x" * 10_000) == "x" * 100 + "... (10000 characters)"
    assert printable("x" * 10_000, None) == "x" * 10_000


@pytest.mark.parametrize(
    ("key", "shown"),
    [("zz\nINJ", "zz\\nINJ"), ("a\tb", "a\\tb"), ("\x1b[2J", "\\x1b[2J"), ("\r\n", "\\r\\n")],
)
def test_an_unknown_key_with_a_control_character_is_escaped(key: str, shown: str) -> None:
    p = Problems("state.json")
    p.unknown_keys({"name": 1, key: 2}, ALLOWED, "combat")
    assert _one_line(p) == (
        f"state.json: combat: field '{shown}': unknown key; expected one of name, size"
    )


def test_an_entry_a_field_and_a_message_from_the_input_are_escaped() -> None:
    problem = DataProblem("a\nb.toml", "warrior 'Go\nku'", "x\ty", "named twice\n")
    assert str(problem) == "a\\nb.toml: warrior 'Go\\nku': field 'x\\ty': named twice\\n"
    two = DataError([problem, DataProblem("f", "", "k\n", "m")])
    assert str(two).split("\n") == [
        "2 problems:",
        "  a\\nb.toml: warrior 'Go\\nku': field 'x\\ty': named twice\\n",
        "  f: field 'k\\n': m",
    ]


def test_a_huge_key_is_cut_short() -> None:
    p = Problems("s.json")
    p.unknown_keys({"k" * 1_000_000: 1}, ALLOWED)
    assert _one_line(p) == (
        f"s.json: field '{'k' * 100}... (1000000 characters)': "
        "unknown key; expected one of name, size"
    )


def test_a_config_option_or_section_with_a_newline_is_escaped() -> None:
    problems = config_problems("toptable.toml")
    section = Section("camera\n[x]", {"ok\nINJ": 1, "width": "w\n"}, problems, Path())
    section.get("width", 0, integer(1))
    section.finish()
    assert _problems(problems) == [
        "toptable.toml: Option 'width' in section 'camera\\n[x]' must be an integer (got 'w\\n')",
        "toptable.toml: Option 'ok\\nINJ' in section 'camera\\n[x]' is not a valid option; "
        "valid options: width",
    ]


# ---------------------------------------------------------------- values cut short


def test_short_values_show_as_before() -> None:
    for value in (-1, True, None, "pink", [1, 2, 3], {"a": [1]}, (1,), 1.5, "x" * 78):
        assert short_repr(value) == repr(value)


def test_long_values_show_their_start_and_size() -> None:
    assert short_repr(list(range(1, 10_001))) == (
        "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ... (10000 items)]"
    )
    assert short_repr("a" * 1_000_000) == f"'{'a' * 40}...' (1000000 characters)"
    assert short_repr("\n" * 1_000) == "'" + "\\n" * 40 + "...' (1000 characters)"
    assert short_repr({str(i): i for i in range(1_000)}) == (
        "{'0': 0, '1': 1, '2': 2, '3': 3, ... (1000 items)}"
    )
    assert short_repr(["x" * 1_000]) == "[... (1 item)]"
    assert short_repr(10**5_000) == "a number of more than 4300 digits"
    nested: list[object] = []
    for _ in range(900):  # as deep as JSON reads: no repr is built whole
        nested = [nested]
    assert short_repr(nested) == "[... (1 item)]"
    for value in (list(range(10_000)), "a" * 10**6, {i: "x" * 100 for i in range(100)}):
        assert len(short_repr(value)) <= VALUE_LIMIT


HUGE_LIST = list(range(10_000))
HUGE_TEXT = "a" * 1_000_000


@pytest.mark.parametrize(
    ("check", "value", "expected"),
    [
        (lambda p, v: p.whole_number(v, "e", "f"), HUGE_LIST, "expected a whole number, got"),
        (lambda p, v: p.whole_number(v, "e", "f"), HUGE_TEXT, "expected a whole number, got"),
        (lambda p, v: p.text(v, "e", "f"), HUGE_LIST, "expected text, got"),
        (lambda p, v: p.optional_text({"f": v}, "f", "e"), HUGE_LIST, "expected text, got"),
        (lambda p, v: p.table(v, "e", "f"), HUGE_LIST, "expected a table, got"),
        (lambda p, v: p.table(v, "e", "f"), HUGE_TEXT, "expected a table, got"),
        (lambda p, v: p.whole_numbers(v, "e", "f"), HUGE_TEXT, "expected a list, got"),
        (lambda p, v: p.choice(v, Colour, "e", "f"), HUGE_LIST, "expected one of red, got"),
        (lambda p, v: p.choice(v, Colour, "e", "f"), HUGE_TEXT, "expected one of red, got"),
    ],
)
def test_a_huge_wrong_value_gives_a_short_problem(
    check: Callable[[Problems, object], object], value: object, expected: str
) -> None:
    p = Problems("s.json")
    check(p, value)
    message = _one_line(p)
    assert message.startswith(f"s.json: e: field 'f': {expected}")
    assert len(message) < 150


def test_the_typed_checks_show_a_huge_value_as_its_start_and_size() -> None:
    p = Problems("s.json")
    p.whole_number(HUGE_LIST, "", "turn", 1, 9)
    p.whole_number(HUGE_TEXT, "", "phase")
    assert _problems(p) == [
        "s.json: field 'turn': expected a whole number 1..9, "
        "got [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ... (10000 items)]",
        f"s.json: field 'phase': expected a whole number, got '{'a' * 40}...' (1000000 characters)",
    ]
    assert name_problem("\x00" * 1_000) == (
        "expected a name without a NUL character (\\u0000), "
        "got '" + "\\x00" * 40 + "...' (1000 characters)"
    )


def test_the_config_and_symbol_messages_cut_a_huge_value() -> None:
    problems = config_problems("toptable.toml")
    section = Section("camera", {"device": HUGE_LIST, "name": HUGE_TEXT}, problems, Path())
    section.get("device", 0, integer())
    section.get("name", 0, integer())
    section.get("x", "", text)
    section.finish()
    assert _problems(problems) == [
        "toptable.toml: Option 'device' in section 'camera' must be an integer "
        "(got [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, ... (10000 items)])",
        "toptable.toml: Option 'name' in section 'camera' must be an integer "
        f"(got '{'a' * 40}...' (1000000 characters))",
    ]
    with pytest.raises(ValueError, match=r"^unknown symbol 'zzzz.*' \(100000 characters\): "):
        parse_symbol("z" * 100_000)


# ---------------------------------------------------------------- many problems


def test_ten_thousand_unknown_keys_are_five_problems_and_a_count() -> None:
    p = Problems("state.json")
    p.unknown_keys({"name": 0} | {f"k{i}": i for i in range(10_000)}, ALLOWED, "combat")
    expected = "unknown key; expected one of name, size"
    assert _problems(p) == [
        *(f"state.json: combat: field 'k{i}': {expected}" for i in range(5)),
        "state.json: combat: 9995 more unknown keys; expected one of name, size",
    ]


def test_a_few_unknown_keys_are_each_named() -> None:
    p = Problems("b.toml")
    p.unknown_keys({f"k{i}": i for i in range(5)}, ALLOWED)
    assert len(_problems(p)) == 5


def test_ten_thousand_unknown_options_are_five_problems_and_a_count() -> None:
    problems = config_problems("toptable.toml")
    section = Section("camera", {f"k{i}": i for i in range(10_000)}, problems, Path())
    section.get("width", 0, integer())
    section.finish()
    found = _problems(problems)
    assert len(found) == 6
    assert found[-1] == (
        "toptable.toml: Section 'camera' has 9995 more options that are not valid; "
        "valid options: width"
    )


def test_ten_thousand_wrong_items_are_five_problems_and_a_count() -> None:
    p = Problems("board.toml")
    assert p.whole_numbers([0, 1, 2], "space 1", "next", low=0) == (0, 1, 2)
    assert p.whole_numbers([-1] * 10_000, "space 2", "next", low=0) is None
    wrong = "expected a whole number >= 0"
    assert _problems(p) == [
        *(f"board.toml: space 2: field 'next[{i}]': {wrong}, got -1" for i in range(5)),
        f"board.toml: space 2: field 'next': 9995 more wrong items; {wrong}",
    ]


def test_an_error_of_many_problems_lists_fifty_lines() -> None:
    err = DataError(DataProblem("f", f"entry {i}", "", "wrong") for i in range(10_000))
    lines = str(err).split("\n")
    assert len(err.problems) == 10_000
    assert lines[0] == "10000 problems:" and lines[1] == "  f: entry 0: wrong"
    assert lines[50:] == ["  f: entry 49: wrong", "  ... and 9950 more"]
