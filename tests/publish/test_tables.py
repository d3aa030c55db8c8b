"""Several simulated tables at once against one broker, and the command-line pieces."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import pytest

from controller.cli import events as command
from controller.cli import scoreboard as board_command
from controller.cli.main import build_parser, main
from controller.game.state import Length
from controller.publish.errors import PublishError
from controller.publish.settings import Connection, parse_broker_url
from controller.publish.tables import TablesOptions, player_names, simulate_tables
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber
from tests.publish.broker import Mosquitto
from tests.waiting import wait_for


def test_three_tables_at_once(broker: Mosquitto, tmp_path: Path) -> None:
    conn = Connection(parse_broker_url(broker.url))
    board = Scoreboard()
    sub = Subscriber(conn, board, "tables-test").start()
    try:
        assert sub.wait_connected(5)
        runs = simulate_tables(
            conn, TablesOptions(3, 2, Length.ROUNDS5, seed=4, pace_s=0.0, directory=tmp_path)
        )
        assert [r.table_id for r in runs] == ["table-1", "table-2", "table-3"]
        assert all(r.delivered and r.events > 0 for r in runs)
        assert wait_for(
            lambda: [t.get("seq") for t in board.tables()] == [r.events for r in runs], 5
        )
        (dice,) = board.standings()
        rows = dice["rows"]
        assert len(rows) == 6 and sum(r["won"] for r in rows) >= 3
    finally:
        sub.close()


def test_a_simulation_replaces_only_the_journals_it_wrote(
    broker: Mosquitto, tmp_path: Path
) -> None:
    """--journals DIR holding a real table's journal, or any file, at table-1.sqlite: it was
    deleted (journal.unlink) and a simulated game journalled in its place."""
    conn = Connection(parse_broker_url(broker.url))
    options = TablesOptions(1, 2, Length.ROUNDS5, seed=4, pace_s=0.0, directory=tmp_path)
    theirs = tmp_path / "table-1.sqlite"
    theirs.write_bytes(b"a table's journal\n")
    with pytest.raises(PublishError) as err:
        simulate_tables(conn, options)
    assert str(err.value) == (
        f"{theirs}: a file no simulation wrote is there (a table's journal?), and a simulated "
        "table replaces only its own: move it away, or give --journals another folder"
    )
    assert theirs.read_bytes() == b"a table's journal\n"
    theirs.unlink()
    (first,) = simulate_tables(conn, options)
    (again,) = simulate_tables(conn, options)  # its own game: replaced
    assert again.game_id != first.game_id and again.journal == theirs


def test_player_names_are_distinct_across_tables() -> None:
    names = [n for t in range(20) for n in player_names(t, 4)]
    assert len(set(names)) == len(names) == 80


def _parser(register: Any) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser()
    register(p.add_subparsers(dest="command"))
    return p


def test_the_command_lines() -> None:
    args = build_parser().parse_args(
        ["simulate", "--tables", "20", "--mqtt", "mqtt://h:1884", "--pace", "0.5"]
    )
    assert args.tables == 20 and command.connection_from(args).broker.port == 1884
    args = _parser(board_command.register).parse_args(["scoreboard", "--mqtt", "mqtt://h"])
    assert (args.host, args.port) == ("127.0.0.1", 8080)
    demo = argparse.ArgumentParser()
    command.add_demo_arguments(demo)
    assert command.demo_settings(demo.parse_args([])) is None
    s = command.demo_settings(demo.parse_args(["--mqtt", "mqtt://h:1", "--table-id", "t9"]))
    assert s is not None and s.table_id == "t9" and s.connection.broker.port == 1


def test_journals_at_a_path_sqlite_cannot_open_are_refused_before_anything(
    tmp_path: Path,
) -> None:
    """SQLite opens no database past 504 bytes of path: the tables would each fail at their
    journal, after the folder was made."""
    deep = tmp_path / "d" / ("j" * 250) / ("j" * 250)
    conn = Connection(parse_broker_url("mqtt://localhost:1"))
    options = TablesOptions(2, 2, Length.ROUNDS5, seed=4, pace_s=0.0, directory=deep)
    with pytest.raises(PublishError) as err:
        simulate_tables(conn, options)
    said = str(err.value)
    assert said.startswith(f"{deep / 'table-1.sqlite'}: a path of ") and "--journals" in said
    assert not (tmp_path / "d").exists()


def test_tables_without_a_broker_is_one_line_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    """Review 95: the refusal went to stdout."""
    assert main(["simulate", "--tables", "2"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err == "toptable: error: --tables needs --mqtt URL (the broker the tables publish to)\n"
