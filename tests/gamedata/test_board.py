"""The board layout: loading, validation errors, reachability."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.errors import DataError
from controller.gamedata.board import Colour, load_board, parse_board


def _line_board(n: int) -> dict[str, object]:
    spaces = []
    for i in range(n):
        neighbours = [j for j in (i - 1, i + 1) if 0 <= j < n]
        spaces.append({"id": i, "colour": "red", "neighbours": neighbours, "sensor": i})
    return {"name": "line", "space": spaces}


def test_demo_board_loads_and_is_marked_example(demo_data: Path) -> None:
    board = load_board(demo_data / "board.toml")
    assert board.example is True
    assert len(board.spaces) == 42
    assert board.colour(3) is Colour.GREEN
    assert board.space_for_sensor(10) == 10


def test_reachable_counts_steps_passes_tokens_and_skips_teammates() -> None:
    board = parse_board(_line_board(10), "line.toml")
    assert board.reachable(0) == frozenset({1, 2, 3, 4})
    # A teammate on 2 may be passed over but not landed on.
    assert board.reachable(0, teammates=[2]) == frozenset({1, 3, 4})
    assert board.reachable(5, max_steps=1) == frozenset({4, 6})


def test_validation_reports_every_problem_with_space_and_field() -> None:
    data = _line_board(3)
    spaces = data["space"]
    assert isinstance(spaces, list)
    spaces[0]["colour"] = "purple"
    spaces[1]["neighbours"] = [0, 2, 9]
    spaces[2]["sensor"] = 0
    spaces[2]["height"] = 1
    with pytest.raises(DataError) as info:
        parse_board(data, "bad.toml")
    text = str(info.value)
    assert "bad.toml: space 0: field 'colour'" in text
    assert "bad.toml: space 1: field 'neighbours': 9 is not a space" in text
    assert "space 2: field 'sensor': sensor 0 is already used by space 0" in text
    assert "space 2: field 'height': unknown key" in text
    assert len(info.value.problems) == 4


def test_one_sided_adjacency_is_rejected() -> None:
    data = _line_board(3)
    spaces = data["space"]
    assert isinstance(spaces, list)
    spaces[0]["neighbours"] = [1, 2]
    with pytest.raises(DataError, match="lists 2, but space 2 does not list 0"):
        parse_board(data, "x.toml")


def test_a_neighbour_listed_twice_is_rejected() -> None:
    data = _line_board(3)
    spaces = data["space"]
    assert isinstance(spaces, list)
    spaces[1]["neighbours"] = [0, 2, 0]
    with pytest.raises(DataError) as info:
        parse_board(data, "x.toml")
    assert str(info.value) == "x.toml: space 1: field 'neighbours': lists 0 twice"


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    with pytest.raises(DataError, match=r"nope\.toml: cannot read"):
        load_board(tmp_path / "nope.toml")


HUGE = "y" * 100_000


@pytest.mark.parametrize(
    ("field", "value", "piece"),
    [
        ("name", [1] * 5000, "field 'name': expected a non-empty string, got [1, 1, "),
        ("id", HUGE, "space #1: field 'id': expected a whole number 0..999999999, got 'yyy"),
        ("colour", HUGE, "space 0: field 'colour': expected one of red, yellow, blue, green, "
         "got 'yyy"),
        ("sensor", [1] * 5000, "space 0: field 'sensor': expected a sensor index 0..127, got [1, "),
        ("neighbours", [HUGE], "space 0: field 'neighbours': 'yyy"),
    ],
)  # fmt: skip
def test_a_huge_value_is_shown_in_part(field: str, value: object, piece: str) -> None:
    """Each problem quotes a huge value by its start and size: 100,000 characters, a list of
    5,000 items, were each printed whole, in one line."""
    data = _line_board(3)
    spaces = data["space"]
    assert isinstance(spaces, list)
    if field == "name":
        data["name"] = value
    else:
        spaces[0][field] = value
    with pytest.raises(DataError) as err:
        parse_board(data, "board.toml")
    line = next(p for p in str(err.value).splitlines() if piece in p)
    assert len(line) < 300


@pytest.mark.parametrize(
    ("sid", "said"),
    [
        (999_999_999, None),
        (1_000_000_000, "expected a whole number 0..999999999, got 1000000000"),
        (-1, "expected a whole number 0..999999999, got -1"),
        (2**63 - 1, "expected a whole number 0..999999999, got 9223372036854775807"),
    ],
)
def test_a_space_id_is_at_most_nine_digits(sid: int, said: str | None) -> None:
    """A sensor map names a space by its id, as a key of nine digits at most: a board with
    a larger id saved a map it could not load (toml's largest whole number was taken).
    Space 0, the smallest, is _line_board's first."""
    data = _line_board(3)
    spaces = data["space"]
    assert isinstance(spaces, list)
    spaces.append({"id": sid, "colour": "green"})
    if said is None:
        spaces[-1]["neighbours"] = [2]  # a space with none is refused (a token never leaves)
        spaces[2]["neighbours"].append(sid)
        assert parse_board(data, "board.toml").colour(sid) is Colour.GREEN
        return
    with pytest.raises(DataError) as info:
        parse_board(data, "board.toml")
    assert str(info.value) == f"board.toml: space #4: field 'id': {said}"


def test_a_space_with_no_neighbour_is_refused() -> None:
    """Review 94: a token placed there could never move, and a move is not optional, so the
    game stopped with no legal action (data check said the board was valid)."""
    data = _line_board(3)
    spaces = data["space"]
    assert isinstance(spaces, list)
    spaces.append({"id": 7, "colour": "red"})
    with pytest.raises(DataError) as info:
        parse_board(data, "board.toml")
    assert str(info.value) == (
        "board.toml: space 7: field 'neighbours': expected at least one neighbour (a token on "
        "a space with none could never move)"
    )
