"""The log's opening and making at their edges: a half-made journal from a crash cleared,
a first-release journal refused by the companion journal, a lock told as a place."""

from __future__ import annotations

import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from controller.companion.journal import CompanionJournal
from controller.game.events import FirstPlayerChosen
from controller.game.journal import Journal, JournalForeignError
from controller.storage.place import is_storage_error, place_problem


def _game(path: Path) -> Path:
    with Journal.create(path, {"mode": "tournament"}) as journal:
        for seat in (0, 1, 0):
            journal.append(FirstPlayerChosen(seat=seat))
    return path


def _first_release(path: Path) -> Path:
    """A journal as the first release left it: no stamp, rollback-journal mode."""
    with closing(sqlite3.connect(_game(path), isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA application_id=0")
        conn.execute("PRAGMA user_version=0")
    return path


def test_a_half_made_journal_left_by_a_crash_is_no_obstacle_to_a_new_one(tmp_path: Path) -> None:
    """A power cut while a journal was being made leaves it under its temporary name: the
    next game is made there afresh, not refused for its tables."""
    path = tmp_path / "j.sqlite"
    _game(tmp_path / "j.sqlite.creating")
    with Journal.create(path, {"mode": "tournament"}, game_id="next") as journal:
        journal.append(FirstPlayerChosen(seat=1))
    with Journal.open(path, "next") as journal:
        assert len(journal) == 1
    assert not Path(f"{path}.creating").exists()


def test_a_first_release_dice_journal_is_no_companion_journal_and_is_left_alone(
    tmp_path: Path,
) -> None:
    """Only the dice game's journal had a first release without a stamp: a companion
    command given one refuses it, rather than stamping the game as a companion's."""
    path = _first_release(tmp_path / "j.sqlite")
    before = path.read_bytes()
    with pytest.raises(JournalForeignError):
        CompanionJournal.open(path)
    assert path.read_bytes() == before
    with Journal.open(path) as journal:
        assert len(journal) == 3


def test_a_journal_locked_by_another_program_is_a_place_problem_not_a_damaged_file(
    tmp_path: Path,
) -> None:
    """SQLite's "database is locked" (SQLITE_BUSY: another program holds the file) says
    nothing of the file's content: it is told as the journal's place, never "not a journal"."""
    path = _first_release(tmp_path / "j.sqlite")
    with (
        closing(sqlite3.connect(path, isolation_level=None)) as holder,
        closing(sqlite3.connect(path, timeout=0)) as reader,
    ):
        holder.execute("BEGIN EXCLUSIVE")  # rollback-journal mode: no reader gets in
        with pytest.raises(sqlite3.OperationalError) as caught:
            reader.execute("SELECT count(*) FROM events").fetchone()
        holder.execute("ROLLBACK")
    assert is_storage_error(caught.value)
    assert place_problem(path, caught.value) == (
        f"{path}: cannot use the journal: database is locked"
    )
