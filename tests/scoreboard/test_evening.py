"""Standings survive a restart: the evening kept in SQLite (issue 27)."""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest

from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from controller.publish.messages import encode, state_message
from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.evening import FILE_NAME, Evening, EveningError
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber
from tests.publish.broker import Mosquitto
from tests.publish.table import TestTable
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(120)


@pytest.fixture(scope="module")
def games(game_data: Any) -> list[GameState]:
    return [
        play_game(
            GameConfig(("Ann", "Bob"), Length.ROUNDS5, game_id=f"g{i}"), game_data, i, None
        ).state
        for i in range(3)
    ]


def _state(state: GameState, table: str, seq: int = 50) -> bytes:
    return encode(state_message(state, table, seq=seq, game_id=state.config.game_id))


def test_a_restarted_scoreboard_has_the_same_standings(
    tmp_path: Path, games: list[GameState]
) -> None:
    with Evening.in_directory(tmp_path) as evening:
        board = Scoreboard(evening=evening)
        board.handle("toptable/t1/state", _state(games[0], "t1"))
        board.handle("toptable/t1/state", _state(games[1], "t1"))  # t1's next game
        board.handle("toptable/t2/state", _state(games[2], "t2"))
        before, tables = board.standings(), board.tables()
    with Evening.in_directory(tmp_path) as evening:
        again = Scoreboard(evening=evening)
        assert again.standings() == before
        assert [(t["table_id"], t["game_id"]) for t in again.tables()] == [
            (t["table_id"], t["game_id"]) for t in tables
        ]
        # the retained states come again after the restart: nothing counts twice
        again.handle("toptable/t1/state", _state(games[1], "t1"))
        again.handle("toptable/t2/state", _state(games[2], "t2"))
        assert again.standings() == before


def test_a_restart_ages_a_table_by_its_saved_time_or_from_the_restart(
    tmp_path: Path, games: list[GameState]
) -> None:
    """A restored table is aged by the wall clock since its save; a save "in the future"
    (a Pi with no real-time clock boots behind its last saves after a power cut) from the
    restart, never left without an age (reviews 109, 111); yesterday's table expires. The
    broker's retained copy of the state shown, sent at once, made every card 0 s old
    (review tw_j m13)."""
    wall, mono = [1_764_000_000.0], [100.0]

    def restarted() -> list[dict[str, Any]]:
        with Evening.in_directory(tmp_path) as evening:
            return Scoreboard(evening=evening, clock=lambda: mono[0], wall=lambda: wall[0]).tables()

    with Evening.in_directory(tmp_path) as evening:
        board = Scoreboard(evening=evening, clock=lambda: mono[0], wall=lambda: wall[0])
        board.handle("toptable/t1/state", _state(games[0], "t1"))
    wall[0] += 90
    assert [(t["table_id"], t["age_s"]) for t in restarted()] == [("t1", 90.0)]
    with Evening.in_directory(tmp_path) as evening:  # the broker's copy of it, at once
        again = Scoreboard(evening=evening, clock=lambda: mono[0], wall=lambda: wall[0])
        again.handle("toptable/t1/state", _state(games[0], "t1"), retained=True)
        assert [t["age_s"] for t in again.tables()] == [90.0]  # not a new state: as old
        again.handle("toptable/t1/state", _state(games[0], "t1", seq=51), retained=True)
        assert [t["age_s"] for t in again.tables()] == [0.0]  # one row later: new
    wall[0] -= 3600  # booted on fake-hwclock's time, an hour behind the save
    assert [(t["table_id"], t["age_s"]) for t in restarted()] == [("t1", 0.0)]
    wall[0] += 86400  # the next day
    assert restarted() == []


def test_a_new_evening_moves_the_last_one_aside(tmp_path: Path, games: list[GameState]) -> None:
    with Evening.in_directory(tmp_path) as evening:
        Scoreboard(evening=evening).handle("toptable/t1/state", _state(games[0], "t1"))
    with Evening.in_directory(tmp_path, new=True) as evening:
        assert Scoreboard(evening=evening).standings() == []
    (aside,) = [p for p in tmp_path.glob("evening-*.sqlite")]
    with sqlite3.connect(aside) as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 1


def test_a_new_evening_in_the_same_second_keeps_both_earlier_ones(
    tmp_path: Path, games: list[GameState], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Pi with no real-time clock boots on the same saved time after a pulled plug: the
    second evening moved aside under the first's name replaced it (review 109)."""
    monkeypatch.setattr(time, "strftime", lambda _: "20261128-200000")
    for i in range(3):
        with Evening.in_directory(tmp_path, new=True) as evening:
            Scoreboard(evening=evening).handle("toptable/t1/state", _state(games[i], "t1"))
    kept = {}
    for aside in sorted(tmp_path.glob("evening-*.sqlite")):
        with sqlite3.connect(aside) as db:
            kept[aside.name] = db.execute("SELECT game_id FROM games").fetchall()
    assert kept == {"evening-20261128-200000.sqlite": [("g0",)],
                    "evening-20261128-200000-2.sqlite": [("g1",)]}  # fmt: skip


def test_the_evening_survives_a_power_cut_within_its_second(tmp_path: Path) -> None:
    """In WAL mode ``synchronous=NORMAL`` leaves a commit unsynced until a checkpoint: a
    power cut took the last ~30 s of the evening (review 107; sqlite.org pragma synchronous)."""
    with Evening.in_directory(tmp_path) as evening:
        assert evening._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL


def test_a_second_scoreboard_on_the_evening_is_refused(tmp_path: Path) -> None:
    """Review 99: two scoreboards (the service and one started by hand) shared the broker's
    client id and kicked each other off, 31 times in 30 s, each page missing events."""
    with Evening.in_directory(tmp_path):
        with pytest.raises(EveningError, match=r"evening.sqlite: in use by another scoreboard "
                           r"\(pid \d+\), which keeps this evening: stop it first"):  # fmt: skip
            Evening.in_directory(tmp_path, new=True)
        assert (tmp_path / "evening.sqlite").exists()  # not moved aside by the second
    Evening.in_directory(tmp_path).close()  # the first one's stop lets it go


def test_a_file_that_is_not_an_evening_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_bytes(b"not a database at all" * 100)
    with pytest.raises(EveningError, match=FILE_NAME):
        Evening.in_directory(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    with sqlite3.connect(other / FILE_NAME) as db:
        db.execute("PRAGMA user_version=99")
    with pytest.raises(EveningError, match="format 99"):
        Evening.in_directory(other)


def test_a_game_journal_given_for_the_evening_is_refused_and_left_alone(tmp_path: Path) -> None:
    # it was taken (the same user_version) and the evening's table written into the game
    from controller.game.session import run_journaled

    journal = tmp_path / FILE_NAME
    run_journaled(journal, 2, Length.ROUNDS5, 5)
    before = journal.read_bytes()
    with pytest.raises(EveningError) as refused:
        Evening.in_directory(tmp_path)
    assert str(refused.value) == (
        f"{journal}: not an evening's file (it holds the tables events, meta, SQLite "
        "application_id 0x546F7054): move it away, or give --state-dir another folder"
    )
    assert journal.read_bytes() == before
    with sqlite3.connect(journal) as db:
        tables = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    assert sorted(tables) == [("events",), ("meta",)]


def test_a_saved_game_that_fails_the_checks_is_skipped(
    tmp_path: Path, games: list[GameState]
) -> None:
    with Evening.in_directory(tmp_path) as evening:
        Scoreboard(evening=evening).handle("toptable/t1/state", _state(games[0], "t1"))
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        db.execute("UPDATE games SET state = '{\"schema\": 1}'")
    with Evening.in_directory(tmp_path) as evening:
        assert Scoreboard(evening=evening).standings() == []


def _untyped(db: sqlite3.Connection) -> None:
    """The games table rebuilt without column types: a row may then hold anything."""
    db.execute("CREATE TABLE old AS SELECT * FROM games")
    db.execute("DROP TABLE games")
    db.execute("CREATE TABLE games (table_id, game_id, state, saved_at)")
    db.execute("INSERT INTO games SELECT * FROM old")
    db.execute("DROP TABLE old")


@pytest.mark.parametrize(
    "column, value",
    [("state", None), ("state", 5), ("state", b"\xff"), ("saved_at", "x"), ("saved_at", None),
     ("saved_at", float("inf"))],
)  # fmt: skip
def test_a_saved_row_of_the_wrong_type_is_skipped_by_name(
    tmp_path: Path, games: list[GameState], column: str, value: object,
    caplog: pytest.LogCaptureFixture,
) -> None:  # fmt: skip
    with Evening.in_directory(tmp_path) as evening:
        board = Scoreboard(evening=evening)
        board.handle("toptable/t1/state", _state(games[0], "t1"))
        board.handle("toptable/t2/state", _state(games[1], "t2"))
    with sqlite3.connect(tmp_path / FILE_NAME) as db:
        _untyped(db)
        db.execute(f"UPDATE games SET {column} = ? WHERE game_id = ?", (value, "g0"))
    with Evening.in_directory(tmp_path) as evening:
        kept = evening.load(10)
    assert [state["table_id"] for state, _ in kept] == ["t2"]
    assert f"a saved game of t1 is skipped: {column}" in caplog.text


def test_a_games_table_of_another_program_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / FILE_NAME
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE games (score INTEGER)")
        db.execute("INSERT INTO games VALUES (3)")
    before = path.read_bytes()
    with pytest.raises(EveningError) as refused:
        Evening.in_directory(tmp_path)
    assert str(refused.value) == (
        f"{path}: not an evening's file (its games table lacks the columns game_id, saved_at, "
        "state, table_id): move it away, or give --state-dir another folder"
    )
    assert path.read_bytes() == before


def test_restarting_against_a_real_broker_changes_nobodys_wins(
    broker: Mosquitto, tmp_path: Path, game_data: Any
) -> None:
    conn = Connection(parse_broker_url(broker.url))
    state_dir = tmp_path / "state"
    tables = [
        TestTable(tmp_path, broker.url, game_data, f"table-{i}", (f"P{i}a", f"P{i}b"))
        for i in (1, 2)
    ]
    evening = Evening.in_directory(state_dir).start()
    board = Scoreboard(evening=evening)
    sub = Subscriber(conn, board, "evening-board").start()
    try:
        assert sub.wait_connected(5)
        for i, t in enumerate(tables):
            t.play(seed=20 + i)
            assert t.publisher.flush(10)
        assert wait_for(
            lambda: all((board.table(t.table_id) or {}).get("over") for t in tables), 10
        )
        before = board.standings()
    finally:
        sub.close()
        evening.close()
        for t in tables:
            t.close()
    evening = Evening.in_directory(state_dir).start()
    again = Scoreboard(evening=evening)
    assert again.standings() == before  # from the file, before the broker says anything
    sub = Subscriber(conn, again, "evening-board").start()
    try:
        assert sub.wait_connected(5)
        assert wait_for(lambda: all(again.table(t.table_id) for t in tables), 5)
        assert again.standings() == before
    finally:
        sub.close()
        evening.close()


class _FullCard:
    """A connection whose every write fails as SQLite does on a full disk."""

    def __enter__(self) -> _FullCard:
        return self

    def __exit__(self, *exc: object) -> None:
        pass

    def execute(self, *args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")


def test_a_full_card_is_said_once_and_the_evening_saved_once_there_is_room(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Review "growth" f06: a full card warned every second (86,400 lines a day)."""
    with Evening.in_directory(tmp_path) as evening:
        real = evening._db
        evening.save({"table_id": "t1", "game_id": "g1", "seq": 1}, 1.0)
        evening._db = _FullCard()  # type: ignore[assignment]
        with caplog.at_level("INFO", logger="controller.scoreboard.evening"):
            for _ in range(5):
                evening.flush()
            said = [r.getMessage() for r in caplog.records]
            assert len([m for m in said if "cannot save the evening" in m]) == 1
            evening._db = real
            evening.flush()
        assert any("saved again" in r.getMessage() for r in caplog.records)
        assert real.execute("SELECT game_id FROM games").fetchall() == [("g1",)]


def test_what_a_failed_save_held_is_saved_after_and_the_newest_wins(tmp_path: Path) -> None:
    """Review tests2 s07-s09: what a failed save held went back to wait under the newer
    (not over it), games set aside with it (or counted again) were kept for the next save,
    and a game counted again is no longer set aside after a restart."""
    with Evening.in_directory(tmp_path) as evening:
        real = evening._db
        evening.save({"table_id": "t1", "game_id": "g1", "seq": 1}, 1.0)
        evening.set_aside("t1", "g0", 9)
        evening.set_aside("t1", "g9", 4)
        evening.flush()
        evening.save({"table_id": "t1", "game_id": "g1", "seq": 2}, 2.0)
        evening.set_aside("t1", "g2", 5)
        evening.set_aside("t1", "g9", None)  # counted again
        full = _FullCard()

        def newer_meanwhile(*args: object) -> None:  # the subscriber's thread saves on
            evening.save({"table_id": "t1", "game_id": "g1", "seq": 3}, 3.0)
            _FullCard.execute(full, *args)

        full.execute = newer_meanwhile  # type: ignore[method-assign]
        evening._db = full  # type: ignore[assignment]
        evening.flush()
        evening._db = real
        evening.flush()
    with Evening.in_directory(tmp_path) as again:
        saved = again._db.execute("SELECT state FROM games").fetchall()
        assert [json.loads(text)["seq"] for (text,) in saved] == [3]
        assert again.load_aside() == {("t1", "g0"): 9, ("t1", "g2"): 5}


def test_a_table_saved_in_the_future_leaves_the_page_after_its_silence_from_the_restart(
    tmp_path: Path, games: list[GameState]
) -> None:
    """A Pi booted behind its last saves (no real-time clock): a restored table that says
    nothing more leaves the page ``expire_s`` after the restart, not later."""
    wall, mono = [1_764_000_000.0], [100.0]
    with Evening.in_directory(tmp_path) as evening:
        board = Scoreboard(evening=evening, clock=lambda: mono[0], wall=lambda: wall[0])
        board.handle("toptable/t1/state", _state(games[0], "t1"))
    wall[0] -= 3600  # booted on fake-hwclock's time, an hour behind the save
    with Evening.in_directory(tmp_path) as evening:
        again = Scoreboard(evening=evening, expire_s=600, clock=lambda: mono[0],
                           wall=lambda: wall[0])  # fmt: skip
        assert again.table_ids() == ["t1"]
        mono[0] += 601
        assert again.table_ids() == []
