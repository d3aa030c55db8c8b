"""A journal is checked whole before anything is written to it: a page SQLite finds
damaged, or a file refused for its rows or meta, is left byte for byte as it was."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import pytest

from controller.game.events import FirstPlayerChosen
from controller.game.journal import Journal
from controller.storage.journal import JournalCorruptError
from controller.storage.sqlite_file import read_only

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


def test_a_journal_cut_short_is_said_so_and_left(tmp_path: Path) -> None:
    """The SD card's write cut, a copy stopped: the header still counts its pages, and the
    file is refused as cut short, not as someone else's (review 107)."""
    path = _game(tmp_path / "j.sqlite")
    whole = path.stat().st_size
    with path.open("r+b") as fh:
        fh.truncate(whole - 4096)
    before = _digest(path)
    with pytest.raises(JournalCorruptError) as err:
        Journal.open(path)
    assert str(err.value) == (
        f"{path}: a toptable journal cut short ({whole - 4096} of the {whole} bytes its "
        "header gives); left as it is: sqlite3's .recover reads what it can into a copy"
    )
    assert _digest(path) == before


def test_an_empty_journal_beside_its_log_keeps_the_log(tmp_path: Path) -> None:
    """SQLite deletes the write-ahead log beside a 0-byte file when it opens it (pager.c,
    pagerOpenWalIfPresent): the rows it may hold were lost by the refusal (review 107)."""
    path, wal = tmp_path / "j.sqlite", tmp_path / "j.sqlite-wal"
    path.write_bytes(b"")
    wal.write_bytes(b"\x37\x7f\x06\x82" + bytes(4092))
    with pytest.raises(JournalCorruptError) as err:
        Journal.open(path)
    assert str(err.value) == (
        f"{path}: empty (0 bytes), beside its write-ahead log j.sqlite-wal (4096 bytes): "
        "both left as they are (SQLite would delete the log); copy both away"
    )
    assert wal.read_bytes()[:4] == b"\x37\x7f\x06\x82" and wal.stat().st_size == 4096
    wal.unlink()
    with pytest.raises(JournalCorruptError, match=r"j.sqlite: empty \(0 bytes\): a file being"):
        Journal.open(path)


def test_a_read_only_look_keeps_the_log_of_an_empty_journal(tmp_path: Path) -> None:
    """``config check`` and ``run`` look at the journal read-only before the daemon opens
    it, and SQLite deleted the write-ahead log there too (review 111)."""
    path, wal = tmp_path / "j.sqlite", tmp_path / "j.sqlite-wal"
    path.write_bytes(b"")
    wal.write_bytes(b"\x37\x7f\x06\x82" + bytes(4092))
    with (
        pytest.raises(sqlite3.DatabaseError, match=r"^empty \(0 bytes\), beside its write"),
        read_only(path),
    ):
        pass
    assert wal.stat().st_size == 4096


@pytest.mark.timeout(20)
def test_a_look_at_a_fifo_is_refused_not_waited_on(tmp_path: Path) -> None:
    """The look for a journal cut short reads the header before SQLite does: at a FIFO,
    that read would wait for a writer for ever."""
    path = tmp_path / "j.sqlite"
    os.mkfifo(path)
    with pytest.raises(sqlite3.Error), read_only(path):
        pass
