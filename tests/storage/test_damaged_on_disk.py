"""A journal is checked whole before anything is written to it: a page SQLite finds
damaged, or a file refused for its rows or meta, is left byte for byte as it was."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from controller.game.events import FirstPlayerChosen
from controller.game.journal import Journal
from controller.storage.journal import JournalCorruptError

RESERVED_BYTES = 20  # the header's "unused reserved space at the end of each page"


def _game(path: Path) -> Path:
    journal = Journal.create(path, {"mode": "tournament"})
    for seat in (0, 1, 0):
        journal.append(FirstPlayerChosen(seat=seat))
    journal.close()
    return path


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_page_damaged_on_disk_is_refused_before_a_write(tmp_path: Path) -> None:
    path = _game(tmp_path / "j.sqlite")
    data = bytearray(path.read_bytes())
    data[RESERVED_BYTES] ^= 0xFF  # every page's free space now lies about its size
    path.write_bytes(bytes(data))
    before = _digest(path)
    with pytest.raises(JournalCorruptError) as err:
        Journal.open(path)
    message = str(err.value)
    assert message.startswith(f"{path}: damaged on disk (SQLite: ") and "\n" not in message
    assert "***" not in message and ".recover" in message
    assert _digest(path) == before


def test_a_journal_refused_for_its_meta_is_not_switched_to_wal(tmp_path: Path) -> None:
    # a first-release journal (no stamp: read as one, ACCEPTS_UNSTAMPED) whose meta is gone
    path = _game(tmp_path / "j.sqlite")
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.execute("PRAGMA application_id=0")
    conn.execute("PRAGMA user_version=0")
    conn.execute("DELETE FROM meta")
    conn.commit()
    conn.close()
    before = _digest(path)
    with pytest.raises(JournalCorruptError, match="meta"):
        Journal.open(path)
    assert _digest(path) == before


def test_a_whole_journal_opens_durable(tmp_path: Path) -> None:
    path = _game(tmp_path / "j.sqlite")
    with Journal.open(path) as journal:
        assert journal.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert journal.conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert len(journal) == 3
