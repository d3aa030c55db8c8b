"""An SQLite file as the journals keep it: what its header says and whose it is, a free
name to move it aside to, and a file cut short told from one whose header says less."""

from __future__ import annotations

import shutil
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from controller.game.events import FirstPlayerChosen
from controller.game.journal import Journal, JournalCorruptError, JournalForeignError
from controller.game.journal_schema import JOURNAL_VERSION
from controller.storage.sqlite_file import unused_name

PAGE_COUNT = slice(28, 32)  # the header's "size of the database file in pages"
VALID_FOR = slice(92, 96)  # "the version-valid-for number": the page count is believed if it
CHANGE_COUNTER = slice(24, 28)  # equals the file change counter (SQLite's file format)


def _game(path: Path, rows: int = 3) -> Path:
    with Journal.create(path, {"mode": "tournament"}) as journal:
        for seat in range(rows):
            journal.append(FirstPlayerChosen(seat=seat % 2))
    return path


def test_a_file_with_a_journals_tables_and_a_format_version_but_no_stamp_is_not_a_journal(
    tmp_path: Path,
) -> None:
    """Only a first-release journal has neither header field: a file with a format version
    but no application id was written by another program, and is left as it is."""
    path = _game(tmp_path / "j.sqlite")
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA application_id = 0")
        conn.execute(f"PRAGMA user_version = {JOURNAL_VERSION}")
    before = path.read_bytes()
    with pytest.raises(JournalForeignError, match="not a toptable journal"):
        Journal.open(path)
    assert path.read_bytes() == before


def test_a_dangling_link_is_no_free_name_to_move_a_journal_to(tmp_path: Path) -> None:
    """A move onto a link's name would replace the link the owner made there."""
    path = tmp_path / "table.sqlite"
    (tmp_path / "table-old.sqlite").symlink_to(tmp_path / "usb" / "gone.sqlite")
    assert unused_name(path, "table-old") == tmp_path / "table-old-2.sqlite"


def test_a_whole_journal_whose_header_page_count_is_stale_opens(tmp_path: Path) -> None:
    """A header page count not marked valid (as SQLite before 3.7.0 and other writers leave
    it) is not believed: SQLite sizes the file by its length, and so does the cut check."""
    path = _game(tmp_path / "j.sqlite")
    data = bytearray(path.read_bytes())
    pages = int.from_bytes(data[PAGE_COUNT], "big")
    data[PAGE_COUNT] = (pages + 5).to_bytes(4, "big")
    counter = int.from_bytes(data[CHANGE_COUNTER], "big")
    data[VALID_FOR] = (counter + 1).to_bytes(4, "big")
    path.write_bytes(bytes(data))
    with Journal.open(path) as journal:
        assert len(journal) == 3


def test_a_journal_of_64_kib_pages_cut_short_is_said_so(tmp_path: Path) -> None:
    """The header writes a page size of 65536 as 1 (SQLite's file format)."""
    path = _game(tmp_path / "j.sqlite")
    with closing(sqlite3.connect(path, isolation_level=None)) as conn:
        conn.execute("PRAGMA journal_mode=DELETE")
        conn.execute("PRAGMA page_size=65536")
        conn.execute("VACUUM")
    whole = path.stat().st_size
    assert whole % 65536 == 0 and whole > 65536
    with path.open("r+b") as fh:
        fh.truncate(whole - 65536)
    with pytest.raises(JournalCorruptError) as err:
        Journal.open(path)
    assert f"cut short ({whole - 65536} of the {whole} bytes" in str(err.value)


def test_a_journal_whose_log_holds_the_pages_past_its_file_end_opens(tmp_path: Path) -> None:
    """A checkpoint cut off by a pulled plug: the file's first page, written first, counts
    pages its write-ahead log still holds; SQLite reads them from the log, so the journal
    is whole and no "cut short"."""
    path, copy = tmp_path / "j.sqlite", tmp_path / "copy.sqlite"
    with Journal.create(path, {"mode": "tournament"}) as journal:
        journal.append(FirstPlayerChosen(seat=0))
        with closing(sqlite3.connect(path, isolation_level=None)) as reader:
            reader.execute("BEGIN")  # a snapshot that keeps the rows below in the log
            reader.execute("SELECT count(*) FROM events").fetchone()
            for seat in range(200):
                journal.append(FirstPlayerChosen(seat=seat % 2))
            shutil.copy(path, copy)
            shutil.copy(f"{path}-wal", f"{copy}-wal")
    page = int.from_bytes(copy.read_bytes()[16:18], "big")
    wal = Path(f"{copy}-wal").read_bytes()
    frames = [32 + i * (24 + page) for i in range((len(wal) - 32) // (24 + page))]
    first = [at for at in frames if int.from_bytes(wal[at : at + 4], "big") == 1][-1]
    data = bytearray(copy.read_bytes())
    data[:page] = wal[first + 24 : first + 24 + page]  # the checkpoint's first write
    copy.write_bytes(bytes(data))
    assert int.from_bytes(data[PAGE_COUNT], "big") * page > len(data)
    with Journal.open(copy) as journal:
        assert len(journal) == 201
