"""The one problem collector every data reader uses (controller.core.checked)."""

from __future__ import annotations

from enum import StrEnum

import pytest

from controller.core.checked import Problems
from controller.core.errors import DataError


class Colour(StrEnum):
    RED = "red"
    BLUE = "blue"


def test_every_problem_is_raised_at_once_naming_file_entry_and_field() -> None:
    p = Problems("board.toml")
    p.unknown_keys({"name": 1, "size": 2, "colour": 3}, {"name"})
    assert p.whole_number(7, "space 1", "id", low=0) == 7
    assert p.whole_number(-1, "space 2", "id", low=0) is None
    assert p.whole_number(True, "space 3", "id", 0, 9) is None
    assert p.choice("red", Colour, "space 1", "colour") is Colour.RED
    assert p.choice("pink", Colour, "space 2", "colour") is None
    assert p.boolean("yes", "", "example") is None
    p.add("space 4", "", "elsewhere", file="other.toml")
    with pytest.raises(DataError) as info:
        p.check()
    lines = [str(x) for x in info.value.problems]
    assert lines == [
        "board.toml: field 'size': unknown key; expected one of name",
        "board.toml: field 'colour': unknown key; expected one of name",
        "board.toml: space 2: field 'id': expected a whole number >= 0, got -1",
        "board.toml: space 3: field 'id': expected a whole number 0..9, got True",
        "board.toml: space 2: field 'colour': expected one of red, blue, got 'pink'",
        "board.toml: field 'example': expected true or false",
        "other.toml: space 4: elsewhere",
    ]


def test_no_problem_raises_nothing_and_marks_tell_what_is_new() -> None:
    p = Problems("cards.toml")
    p.check()
    mark = p.mark()
    assert not p.since(mark) and not p and len(p) == 0
    p.add("card 'X'", "deck", "missing deck")
    assert p.since(mark) and p and len(p) == 1
