"""Players are people: a name, and the person id the standings count them by (issue 27)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from controller.config import parse_config
from controller.core.errors import DataError
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from controller.publish.messages import encode, state_message
from controller.publish.people import (
    Person,
    PlayerNameError,
    parse_people,
    parse_person,
    person_ids,
)
from controller.publish.settings import read_events
from controller.scoreboard.model import Scoreboard
from tests.cli_runner import cli_runner


@pytest.fixture(scope="module")
def final(game_data: Any) -> GameState:
    config = GameConfig(("Ann", "Bob"), Length.ROUNDS5, game_id="g1")
    return play_game(config, game_data, 2, None).state


@pytest.mark.parametrize(
    ("text", "person"),
    [
        ("Ann", Person("Ann")),
        ("Ann Lee=ann.lee", Person("Ann Lee", "ann.lee")),
        (" Zoé = club-42 ", Person("Zoé", "club-42")),
    ],
)
def test_entries(text: str, person: Person) -> None:
    assert parse_person(text) == person
    assert parse_person(str(person)) == person


@pytest.mark.parametrize(
    "bad", ["", "=x", "A" * 21, "Ann=", "Ann=a b", "Ann=a/b", "Tab\there", "Ann=" + "x" * 33]
)
def test_bad_entries_name_the_entry(bad: str) -> None:
    with pytest.raises(PlayerNameError, match="player"):
        parse_person(bad)


def test_two_players_of_one_name_or_id_are_refused() -> None:
    with pytest.raises(PlayerNameError, match="'Ann'"):
        parse_people(["Ann", "Ann=a"])
    with pytest.raises(PlayerNameError, match="'p1'"):
        parse_people(["Ann=p1", "Bob=p1"])
    assert person_ids(parse_people(["Ann=p1", "Bob"])) == {"Ann": "p1"}


def test_two_tables_ann_are_two_people_unless_the_organiser_says_otherwise(
    final: GameState,
) -> None:
    board = Scoreboard()
    for table in ("t1", "t2"):
        board.handle(f"toptable/{table}/state", encode(state_message(final, table, seq=5)))
    (dice,) = board.standings()
    assert sorted(r["player_id"] for r in dice["rows"]) == ["t1/Ann", "t1/Bob", "t2/Ann", "t2/Bob"]
    same = Scoreboard()
    for table in ("t1", "t2"):
        m = state_message(final, table, seq=5, people={"Ann": "ann-lee"})
        same.handle(f"toptable/{table}/state", encode(m))
    (dice,) = same.standings()
    ann = next(r for r in dice["rows"] if r["player_id"] == "ann-lee")
    assert ann["games"] == 2 and ann["tables"] == ["t1", "t2"] and ann["player"] == "Ann"
    assert len(dice["rows"]) == 3


def test_the_config_names_the_people_at_the_table() -> None:
    events = read_events(
        {"events": {"broker": "mqtt://h", "table_id": "t1", "players": ["Ann Lee=ann", "Bob"]}}
    )
    assert events is not None and events.names == ("Ann Lee", "Bob")
    assert person_ids(events.people) == {"Ann Lee": "ann"}
    with pytest.raises(DataError) as err:
        read_events({"events": {"broker": "mqtt://h", "table_id": "t1", "players": ["A=a b"]}},
                    "config.toml")  # fmt: skip
    assert "players" in str(err.value) and "person id" in str(err.value)
    with pytest.raises(DataError, match="players"):
        read_events({"events": {"broker": "mqtt://h", "table_id": "t1", "players": "Ann"}})


def test_the_table_plays_under_the_names_the_config_gives(tmp_path: Path, game_data: Any) -> None:
    from controller.daemon.journals import open_game

    events = {"broker": "mqtt://h", "table_id": "t1", "players": ["Ann Lee=ann", "Bob"]}
    journal = str(tmp_path / "table.sqlite")
    config = parse_config({"table": {"journal": journal, "players": 2}, "events": events})
    with open_game(config, game_data) as game:
        assert game.config.players == ("Ann Lee", "Bob")
    unnamed = parse_config({"table": {"journal": str(tmp_path / "other.sqlite"), "players": 2}})
    with open_game(unnamed, game_data) as game:
        assert game.config.players == ("Player 1", "Player 2")


def test_a_config_naming_more_people_than_players_says_so() -> None:
    events = {"broker": "mqtt://h", "table_id": "t1", "players": ["Ann", "Bob", "Cy"]}
    with pytest.raises(DataError) as err:
        parse_config({"table": {"players": 2}, "events": events}, "config.toml")
    [problem] = [str(p) for p in err.value.problems]
    assert problem.startswith("config.toml") and "events" in problem and "players" in problem
    assert "names 3 players but [table] players = 2" in problem
    # fewer: a game of fewer seats than the table is set up for (review tests2 k05)
    with pytest.raises(DataError, match="names 2 players but \\[table\\] players = 3"):
        parse_config({"table": {"players": 3}, "events": {**events, "players": ["Ann", "Bob"]}})


@pytest.mark.parametrize(
    ("names", "said"),
    [
        ("Ann,Ann", "two players are called 'Ann'"),
        ("Ann=a,Bob=a", "two players have the person id 'a'"),
        ("Ann", "1 players in 'Ann': expected 2..6"),
        ("Ann,Bob=not an id", "a person id must be"),
    ],
)
def test_bad_demo_names_are_one_line_and_exit_2(
    names: str, said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = cli_runner(monkeypatch, capsys, "controller.cli.daemon")
    code, out, err = run("demo", "--names", names, "--fast")
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()  # one line, no usage dump
    assert line.startswith("toptable demo: error: argument --names") and said in line, err
