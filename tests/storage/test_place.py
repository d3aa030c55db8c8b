"""Storage problems are named: a journal's folder missing, read-only, another user's, a
full disk, a journal this user cannot read; a damaged journal is told apart from those.

These are the journal's own checks, as ``toptable run`` meets them (its journal comes
from the config, not from a flag the CLI checks first). The rights are checked as
another user really has them: the test forks and the child drops to ``nobody`` (when
the tests run as root, who may write anywhere), then calls toptable in-process (its
modules imported before the fork: the interpreter's own folder may be closed to
``nobody``).
"""

from __future__ import annotations

import ctypes.util  # noqa: F401  (the demo's devices: imported before the fork, see above)
import os
import pty  # noqa: F401
import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.demo.runner import DemoOptions, run_demo
from controller.game.journal import Journal
from controller.game.session import TableGame, run_journaled
from controller.game.state import GameConfig, Length
from controller.storage import place
from controller.storage.chained_log import ChainedLog
from controller.storage.journal import JournalCorruptError, JournalIOError, Row
from tests.as_nobody import NOBODY
from tests.as_nobody import as_nobody as _as_nobody
from tests.game.helpers import demo_data

pytestmark = pytest.mark.timeout(120)


@pytest.fixture
def base() -> Iterator[Path]:
    """A folder every user may search (pytest's own temporary folder is its user's only)."""
    folder = Path(tempfile.mkdtemp(prefix="toptable-place-"))
    folder.chmod(0o755)
    try:
        yield folder
    finally:
        shutil.rmtree(folder)


def _others_folder(base: Path) -> Path:
    """A folder the child cannot write in: root's (as nobody), else read-only."""
    folder = base / "theirs"
    folder.mkdir(mode=0o755)
    if os.geteuid() != 0:
        folder.chmod(0o555)
    return folder


def _own_readonly_folder(base: Path) -> Path:
    folder = base / "mine"
    folder.mkdir()
    if os.geteuid() == 0:
        os.chown(folder, NOBODY, NOBODY)
    folder.chmod(0o555)
    return folder


def _one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_game_play_in_another_users_folder(base: Path) -> None:
    folder = _others_folder(base)
    code, err = _as_nobody(lambda: run_journaled(folder / "g.sqlite", 2, Length.ROUNDS5, 1))
    assert code == 2
    line = _one_line(err)
    assert str(folder) in line and "cannot write in the journal's folder" in line
    if os.geteuid() == 0:
        assert "nobody" in line and "owned by root" in line
    assert "-wal and -shm" in line and "choose another path" in line


def test_demo_in_a_read_only_folder(base: Path) -> None:
    folder = _own_readonly_folder(base)
    out = base / "out"
    out.mkdir(mode=0o777)
    out.chmod(0o777)
    options = DemoOptions(journal=folder / "d.sqlite", out=out, fast=True)
    code, err = _as_nobody(lambda: run_demo(options))
    assert code == 2
    line = _one_line(err)
    assert str(folder) in line and "it is read-only" in line and "make the folder writable" in line


def test_a_missing_folder_and_a_folder_for_a_file(base: Path) -> None:
    missing = base / "no" / "such"
    code, err = _as_nobody(lambda: run_journaled(missing / "g.sqlite", 2, Length.ROUNDS5, 1))
    assert code == 2 and f"{missing}: no such folder for the journal" in _one_line(err)
    code, err = _as_nobody(lambda: TableGame.resume(base))
    assert code == 2 and "a folder, not a journal file" in _one_line(err)


def _shared_journal(base: Path) -> Path:
    """A journal of a game begun, in a folder every user may write in."""
    folder = base / "shared"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    journal = folder / "g.sqlite"
    with TableGame.start(journal, GameConfig(("A", "B"), Length.ROUNDS5), demo_data(), None, 1):
        pass
    return journal


def test_a_journal_this_user_cannot_read_is_not_called_damaged(base: Path) -> None:
    journal = _shared_journal(base)
    folder = journal.parent
    journal.chmod(0o600)
    if os.geteuid() != 0:
        journal.chmod(0o000)
    code, err = _as_nobody(lambda: TableGame.resume(journal))
    assert code == 2
    line = _one_line(err)
    assert "cannot read and write the journal" in line and "not a toptable journal" not in line
    code, err = _as_nobody(lambda: Journal.open(journal, writable=False))  # a look (game check)
    assert code == 2
    line = _one_line(err)
    assert "cannot read and write the journal" in line and "not a toptable journal" not in line
    damaged = folder / "damaged.sqlite"
    damaged.write_bytes(b"not SQLite at all" * 100)
    with pytest.raises(JournalCorruptError, match="not a toptable journal"):
        TableGame.resume(damaged)


def test_a_full_disk_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    connect = ChainedLog._connect.__func__  # type: ignore[attr-defined]

    def full(
        cls: type[ChainedLog[Row]], path: Path, check: bool = False, writable: bool = True
    ) -> sqlite3.Connection:
        conn: sqlite3.Connection = connect(cls, path, check, writable)
        # SQLite's size limit fails a write with SQLITE_FULL, as a full disk does
        conn.execute("PRAGMA max_page_count = 1")
        return conn

    monkeypatch.setattr(ChainedLog, "_connect", classmethod(full))
    path = tmp_path / "g.sqlite"
    with pytest.raises(JournalIOError) as caught:
        TableGame.start(path, GameConfig(("A", "B"), Length.ROUNDS5), demo_data())
    assert f"{path}: the disk is full: free space on it" in str(caught.value)
    assert not path.exists()


def test_a_journal_behind_a_folder_this_user_cannot_search(tmp_path: Path) -> None:
    closed = tmp_path / "closed"
    (closed / "inner").mkdir(parents=True)
    closed.chmod(0o700 if os.geteuid() == 0 else 0o000)  # root's own: closed to nobody
    journal = closed / "inner" / "g.sqlite"
    try:
        for call in (lambda: run_journaled(journal), lambda: TableGame.resume(journal)):
            code, err = _as_nobody(call)
            assert code == 2
            assert f"{journal}: " in _one_line(err) and "cannot reach it" in err
    finally:
        closed.chmod(0o700)


class _IoError(sqlite3.OperationalError):
    sqlite_errorname = "SQLITE_IOERR_SHMSIZE"  # what a full disk growing the -shm file gives


@pytest.mark.parametrize(("free", "said"), [(0, "the disk is full"), (10**9, "the disk failed")])
def test_an_io_error_on_a_full_disk_is_named_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, free: int, said: str
) -> None:
    real = os.statvfs(tmp_path)

    class Stats:
        f_frsize = real.f_frsize
        f_bavail = free // real.f_frsize

    monkeypatch.setattr(os, "statvfs", lambda _: Stats)
    message = place._problem(tmp_path / "g.sqlite", _IoError("disk I/O error"), "toptable")
    assert message.startswith(f"{tmp_path / 'g.sqlite'}: {said}")


def test_a_journal_this_user_cannot_write_gets_no_files_beside_it(base: Path) -> None:
    """Review 96: a read-only journal refused at resume was left with -wal and -shm files of
    its mode, which then refused the game once the journal's mode was mended."""
    journal = _shared_journal(base)
    folder = journal.parent
    journal.chmod(0o444)
    code, err = _as_nobody(lambda: TableGame.resume(journal))
    assert code == 2 and "cannot read and write the journal" in _one_line(err)
    assert sorted(p.name for p in folder.iterdir()) == ["g.sqlite"]
    journal.chmod(0o666)
    shm = folder / "g.sqlite-shm"
    shm.write_bytes(b"")
    shm.chmod(0o444)  # left by an older toptable, or by hand
    code, err = _as_nobody(lambda: TableGame.resume(journal))
    assert code == 2
    line = _one_line(err)
    assert line.startswith(f"{shm}: ") and "cannot read and write this file of the journal" in line
    shm.chmod(0o666)
    code, err = _as_nobody(lambda: TableGame.resume(journal).close())
    assert (code, err) == (0, "")


def test_a_new_journal_clears_what_an_older_toptable_left_beside_it(base: Path) -> None:
    """Review 98: the rights check refused a new game over the empty read-only -wal and -shm
    an older toptable left beside a read-only journal the owner then removed."""
    folder = base / "shared"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    journal = folder / "g.sqlite"
    for side in ("g.sqlite-wal", "g.sqlite-shm"):
        (folder / side).write_bytes(b"")
        (folder / side).chmod(0o444)
    config = GameConfig(("A", "B"), Length.ROUNDS5)
    code, err = _as_nobody(lambda: TableGame.start(journal, config, demo_data(), None, 1).close())
    assert (code, err) == (0, "")
