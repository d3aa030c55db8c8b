"""Bad scripts and bad data files: every problem at once, each naming the file, the entry
and the field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.companion import datafile
from controller.companion.challengers import load_data as load_challengers
from controller.companion.dbs_tournament import load_data as load_dbs
from controller.companion.dbz_tcg import ACTIONS as DBZ_ACTIONS
from controller.companion.dbz_tcg import load_data as load_dbz
from controller.companion.replay import replay
from controller.core.errors import DataError, TopTableError, UnknownNameError

TWO = ["Goku", "Vegeta"]


def error_of(mode: str, script: Any) -> str:
    with pytest.raises(DataError) as info:
        replay(mode, script, source="s.json")
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("s.json")
    return message


@pytest.mark.parametrize(
    ("script", "piece"),
    [
        ([], "expected a JSON object"),
        (
            {"players": TWO, "actions": [], "extra": 1},
            "script: field 'extra': unknown key; expected one of actions, data, players",
        ),
        ({"actions": []}, "field 'players': expected a list of names"),
        ({"players": TWO, "actions": {}}, "field 'actions': expected a list"),
        ({"players": ["Goku", "Goku"], "actions": []}, "'Goku' is listed twice"),
        ({"players": ["Goku", ""], "actions": []}, "players[1]: field 'players': expected a name"),
        (
            {"players": ["Goku", "Veg\x00eta"], "actions": []},
            "players[1]: field 'players': expected a name without a NUL character (\\u0000), "
            "got 'Veg\\x00eta'",
        ),
        ({"players": TWO, "actions": ["draw"]}, "actions[0]: expected an object"),
        ({"players": TWO, "actions": [{"player": "Goku"}]}, "field 'do': unknown action None"),
        ({"players": TWO, "actions": [{"do": "draw", "player": "Goku"}]}, "field 'cards': missing"),
        (
            {"players": TWO, "actions": [{"do": "draw", "player": "Goku", "cards": "3"}]},
            "actions[0] (draw): field 'cards': expected a whole number <= 60, got '3'",
        ),
        (
            {"players": TWO, "actions": [{"do": "draw", "player": "Goku", "cards": True}]},
            "field 'cards': expected a whole number",
        ),
        (
            {"players": TWO, "actions": [{"do": "draw", "player": "Bulma", "cards": 3}]},
            "field 'player': unknown player 'Bulma'",
        ),
        (
            {"players": TWO, "actions": [{"do": "draw", "player": 7, "cards": 3}]},
            "field 'player': expected a player name",
        ),
        (
            {
                "players": TWO,
                "actions": [{"do": "critical", "player": "Goku", "choice": "wish"}],
            },
            "field 'choice': expected one of capture, discard_ally, lower_anger, got 'wish'",
        ),
        ({"players": TWO, "data": [1], "actions": []}, "data: expected an object"),
        (
            {"players": TWO, "data": {"life_deck": 0}, "actions": []},
            "field 'life_deck': expected a whole number 1..60, got 0",
        ),
    ],
)
def test_bad_dbz_scripts(script: Any, piece: str) -> None:
    assert piece in error_of("dbz-tcg", script)


def test_bad_input_is_reported_before_anything_is_played() -> None:
    script = {
        "players": TWO,
        "actions": [{"do": "draw", "player": "Goku", "cards": 3}, {"do": "fly"}],
    }
    assert "actions[1]: field 'do': unknown action 'fly'" in error_of("dbz-tcg", script)


def test_bad_dbs_values_object() -> None:
    script = {"players": TWO, "actions": [{"do": "roll", "values": [6, 2]}]}
    assert "field 'values': expected an object" in error_of("dbs-tournament", script)
    script = {"players": TWO, "actions": [{"do": "roll", "values": {"Goku": 6, "Ghost": 2}}]}
    assert "unknown player 'Ghost'" in error_of("dbs-tournament", script)
    script = {"players": TWO, "actions": [{"do": "roll", "values": {"Goku": "six"}}]}
    assert "field 'values.Goku': expected a whole number" in error_of("dbs-tournament", script)


@pytest.mark.parametrize("shown", [0, 7, 10**30])
def test_a_roll_no_die_shows_names_the_players_value(shown: int) -> None:
    script = {"players": TWO, "actions": [{"do": "roll", "values": {"Goku": 6, "Vegeta": shown}}]}
    assert error_of("dbs-tournament", script) == (
        f"s.json: actions[0] (roll): field 'values.Vegeta': expected a whole number 1..6, "
        f"got {shown}"
    )


@pytest.mark.parametrize(
    ("mode", "key", "most"), [("dbs-tournament", "life", 99), ("dbz-tcg", "life_deck", 60)]
)
def test_a_life_beyond_the_deck_it_is_dealt_from_names_the_field(
    mode: str, key: str, most: int
) -> None:
    script: dict[str, Any] = {"players": TWO, "actions": [], "data": {key: most}}
    replay(mode, script, source="s.json")  # the whole deck: allowed
    script["data"] = {key: most + 1}
    assert error_of(mode, script) == (
        f"s.json: data: field '{key}': expected a whole number 1..{most}, got {most + 1}"
    )


def test_bad_challengers_players_list() -> None:
    script = {
        "players": TWO,
        "actions": [{"do": "first_player", "round": 1, "players": "Goku"}],
    }
    assert "field 'players': expected a list" in error_of("challengers", script)
    script = {"players": TWO, "data": {"trophy_fans": [1, 2, 3, 4, 5, 6, -1]}, "actions": []}
    assert "field 'trophy_fans[6]': expected a whole number 0..99, got -1" in error_of(
        "challengers", script
    )


HUGE = "y" * 100_000
DRAW = {"do": "draw", "player": "Goku", "cards": 3}
BRACKETS = {"brackets": ["low", " " * 100_000], "floors": [0, 1000], "damage": [[1, 0], [7, 2]]}


@pytest.mark.parametrize(
    ("mode", "script", "piece"),
    [
        ("dbz-tcg", {"players": HUGE, "actions": []}, "expected a list of names, got 'yyy"),
        ("dbz-tcg", {"players": TWO, "actions": HUGE}, "expected a list, got 'yyy"),
        ("dbz-tcg", {"players": TWO, "actions": [HUGE]}, "expected an object, got 'yyy"),
        ("dbz-tcg", {"players": TWO, "actions": [{"do": HUGE}]}, "unknown action 'yyy"),
        ("dbz-tcg", {"players": TWO, "actions": [DRAW | {"player": HUGE}]}, "player 'yyy"),
        ("dbz-tcg", {"players": TWO, "actions": [DRAW | {"player": [1] * 5000}]}, "got [1, "),
        ("dbz-tcg", {"players": [" " * 100_000, "Goku"], "actions": []}, "got '    "),
        ("dbz-tcg", {"players": [HUGE, HUGE], "actions": []}, "'yyy"),
        ("dbz-tcg", {"players": TWO, "data": [1] * 5000, "actions": []}, "got [1, "),
        (
            "dbz-tcg",
            {"players": TWO, "actions": [], "data": {"attack_table": BRACKETS}},
            "expected a bracket's name, got '    ",
        ),
        (
            "dbs-tournament",
            {"players": TWO, "actions": [{"do": "roll", "values": [1] * 5000}]},
            "expected an object, got [1, ",
        ),
        (
            "challengers",
            {"players": TWO, "actions": [{"do": "first_player", "round": 1, "players": HUGE}]},
            "expected a list, got 'yyy",
        ),
    ],
)
def test_a_huge_value_is_shown_in_part(mode: str, script: Any, piece: str) -> None:
    """A script's huge value (a 100,000-character name, a list of 5,000 items) is quoted by
    its start and size: the message stays one short line."""
    message = error_of(mode, script)
    assert piece in message and len(message) < 400


def test_unknown_mode() -> None:
    with pytest.raises(UnknownNameError, match="unknown companion mode 'uno'"):
        replay("uno", {"players": TWO, "actions": []})


# --- the data files --------------------------------------------------------------------


def test_the_shipped_data_files_load() -> None:
    assert load_dbs().life == 16
    dbz = load_dbz()
    assert (dbz.life_deck, dbz.start_level, dbz.start_stages, dbz.max_stages) == (60, 1, 5, 10)
    assert len(load_challengers().trophy_fans) == 7


@pytest.mark.parametrize("name", ["dbz_tcg", "challengers"])
def test_invented_values_are_marked(name: str) -> None:
    assert "INVENTED" in (datafile.DATA_DIR / f"{name}.toml").read_text(encoding="utf-8")


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for f in datafile.DATA_DIR.glob("*.toml"):
        (tmp_path / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(datafile, "DATA_DIR", tmp_path)
    return tmp_path


def spoil(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(
    ("file", "old", "new", "piece"),
    [
        (
            "dbs_tournament.toml",
            "life = 16",
            "life = 'x'",
            "data: field 'life': expected a whole number",
        ),
        ("dbs_tournament.toml", "life = 16", "lives = 16", "data: field 'life': missing"),
        ("dbs_tournament.toml", "life = 16", "life = [", "not valid TOML"),
        (
            "challengers.toml",
            "trophy_fans = [1, 2, 3, 4, 5, 6, 8]",
            "trophy_fans = [1, 2]",
            "data: field 'trophy_fans': expected 7 numbers, got 2",
        ),
        (
            "dbz_tcg.toml",
            "  [6, 5, 4, 3, 2, 1],",
            "  [6, 5, 4, 3, 2],",
            "attack_table: field 'damage[5]': expected 6 whole numbers",
        ),
        (
            "dbz_tcg.toml",
            "floors = [0, 5000,",
            "floors = [0, 50000000,",
            "attack_table: field 'floors'",
        ),
        (
            "dbz_tcg.toml",
            "\n[attack_table]\n",
            "\n[attack_table]\nrows = 6\n",
            "attack_table: field 'rows': unknown key; expected one of brackets, damage, floors",
        ),
        (
            "dbz_tcg.toml",
            'brackets = ["A", "B",',
            'brackets = ["A\\u0000", "B",',
            "attack_table: field 'brackets[0]': expected a name without a NUL character "
            "(\\u0000), got 'A\\x00'",
        ),
        (
            "dbz_tcg.toml",
            'brackets = ["A", "B",',
            'brackets = [" ", "B",',
            "attack_table: field 'brackets[0]': expected a bracket's name, got ' '",
        ),
        (
            "dbz_tcg.toml",
            "start_level = 1 ",
            "start_level = 5 ",
            "field 'start_level': expected a whole number 1..4, got 5",
        ),
    ],
)
def test_bad_data_files(data_dir: Path, file: str, old: str, new: str, piece: str) -> None:
    spoil(data_dir / file, old, new)
    loader = {
        "dbs_tournament.toml": load_dbs,
        "dbz_tcg.toml": load_dbz,
        "challengers.toml": load_challengers,
    }
    with pytest.raises(DataError) as info:
        loader[file]()
    message = str(info.value)
    assert message.startswith(str(data_dir / file))
    assert piece in message
    assert "\n" not in message


def test_a_missing_data_file(data_dir: Path) -> None:
    (data_dir / "challengers.toml").unlink()
    with pytest.raises(TopTableError, match=r"challengers\.toml"):
        load_challengers()


# --- every problem at once ----------------------------------------------------------------


def test_every_problem_of_a_script_is_reported_at_once() -> None:
    script = {
        "players": TWO,
        "data": {"life_deck": 0, "hand_limit": "seven"},
        "actions": [
            {"do": "draw", "player": "Bulma", "cards": "3"},
            {"do": "fly"},
            {"do": "end_turn", "extra": 1},
        ],
    }
    with pytest.raises(DataError) as info:
        replay("dbz-tcg", script, source="s.json")
    assert [str(p) for p in info.value.problems] == [
        "s.json: data: field 'life_deck': expected a whole number 1..60, got 0",
        "s.json: data: field 'hand_limit': expected a whole number 0..60, got 'seven'",
        "s.json: actions[0] (draw): field 'player': unknown player 'Bulma'",
        "s.json: actions[0] (draw): field 'cards': expected a whole number <= 60, got '3'",
        "s.json: actions[1]: field 'do': unknown action 'fly' (known: "
        + ", ".join(sorted(DBZ_ACTIONS))
        + ")",
        "s.json: actions[2] (end_turn): field 'extra': unknown key; expected one of do",
    ]
    assert str(info.value).startswith("6 problems:\n  s.json: data: field 'life_deck'")


def test_every_problem_of_a_data_file_is_reported_at_once(data_dir: Path) -> None:
    path = data_dir / "dbz_tcg.toml"
    spoil(path, "life_deck = 60", "life_deck = 0")
    spoil(path, "start_level = 1 ", "start_level = 9 ")
    spoil(path, "  [6, 5, 4, 3, 2, 1],", "  [6, 5, 4, 3, 2],")
    with pytest.raises(DataError) as info:
        load_dbz()
    where = str(path)
    assert [(p.file, p.entry, p.field) for p in info.value.problems] == [
        (where, "data", "life_deck"),
        (where, "data", "start_level"),
        (where, "attack_table", "damage[5]"),
    ]


def test_every_problem_of_the_players_is_reported_at_once() -> None:
    with pytest.raises(DataError) as info:
        replay("dbz-tcg", {"players": ["Goku", "", "Goku"], "actions": []}, source="s.json")
    assert [str(p) for p in info.value.problems] == [
        "s.json: players[1]: field 'players': expected a name, got ''",
        "s.json: players: field 'players': 'Goku' is listed twice",
        "s.json: players: field 'players': dbz-tcg needs 2-2 players, got 3",
    ]
