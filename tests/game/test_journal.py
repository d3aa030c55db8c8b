"""The SQLite journal: durability settings, checksums, versions, game ids, undo, failed writes."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.core.symbols import Symbol
from controller.game.events import DiceThrown, DieRolled, FirstPlayerChosen, Move, Pass, TimeUp
from controller.game.journal import (
    SCHEMA_VERSION,
    Journal,
    JournalCorruptError,
    JournalError,
    JournalIOError,
    JournalVersionError,
    WrongGameError,
)

SETUP = {"mode": "test", "config": {"players": ["A", "B"]}}
EVENTS = [
    FirstPlayerChosen(1),
    Move(1, "Jiren", 12),
    DieRolled((3,)),
    DiceThrown((Symbol.KICK, Symbol.STAR), evidence="frames/0001.png"),
    Pass(0),
]


def _journal(path: Path) -> Journal:
    j = Journal.create(path, SETUP, game_id="game-1")
    for e in EVENTS:
        j.append(e)
    return j


def test_round_trip_and_durability_settings(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    with _journal(path) as j:
        assert j.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert j.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
    with Journal.open(path, "game-1") as j:
        assert j.events() == EVENTS
        assert j.setup == SETUP and j.game_id == "game-1" and len(j) == len(EVENTS)
    assert not path.with_name(path.name + ".creating").exists()


def test_create_refuses_an_existing_journal(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    _journal(path).close()
    with pytest.raises(JournalIOError, match="already exists"):
        Journal.create(path, SETUP)
    with pytest.raises(JournalIOError, match="no journal there"):
        Journal.open(tmp_path / "none.journal")


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    _journal(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(
            "UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(SCHEMA_VERSION + 1),)
        )
    with pytest.raises(JournalVersionError, match="newer than this toptable"):
        Journal.open(path)


def test_another_games_journal_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    _journal(path).close()
    with pytest.raises(WrongGameError, match="this journal is game game-1, not game game-2"):
        Journal.open(path, "game-2")


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE events SET payload = replace(payload, 'Jiren', 'Hit') WHERE seq = 2",
        "DELETE FROM events WHERE seq = 3",
        "UPDATE events SET seq = 99 WHERE seq = 2",
        "UPDATE events SET kind = 'pass' WHERE seq = 1",
    ],
)
def test_corruption_is_detected(tmp_path: Path, damage: str) -> None:
    path = tmp_path / "g.journal"
    _journal(path).close()
    with sqlite3.connect(path) as conn:
        conn.execute(damage)
    with pytest.raises(JournalCorruptError, match="fails its checksum"):
        Journal.open(path)


def test_not_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "junk.journal"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(JournalCorruptError, match="not a toptable journal"):
        Journal.open(path)
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE x (y)")
    with pytest.raises(JournalCorruptError, match="not a toptable journal"):
        Journal.open(other)


def test_undo_cancels_the_last_action_only(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    with _journal(path) as j:
        assert j.undo() == Pass(0)
        assert j.events() == EVENTS[:-1]
        with pytest.raises(JournalError, match="not a player action"):
            j.undo()  # the last effective event is a throw
    with Journal.open(path) as j:
        assert j.events() == EVENTS[:-1]
        assert [r.kind for r in j.rows()][-1] == "undo"


def test_a_failed_write_leaves_nothing_half_written(tmp_path: Path) -> None:
    path = tmp_path / "g.journal"
    with _journal(path) as j:
        j.conn.execute(
            "CREATE TEMP TRIGGER fail BEFORE INSERT ON events WHEN NEW.kind = 'time_up' "
            "BEGIN SELECT RAISE(ABORT, 'disk full'); END"
        )
        with pytest.raises(JournalIOError, match="disk full"):
            j.append(TimeUp())
        assert len(j) == len(EVENTS)
        j.conn.execute("DROP TRIGGER fail")
        j.append(Pass(1))
    with Journal.open(path) as j:
        assert j.events() == [*EVENTS, Pass(1)]


def test_closed_journal(tmp_path: Path) -> None:
    j = _journal(tmp_path / "g.journal")
    j.close()
    j.close()  # idempotent
    with pytest.raises(JournalError, match="closed"):
        j.append(Pass(0))
