"""One writer per journal: a journal open for writing is refused to a second writer at its
open, before anything is written (``game undo`` while the table plays, two ``game play``
on one file), while a look (``game check``, ``export``) still reads it; the lock goes with
the journal's close or its holder's death.

Before, nothing stopped the second writer: ``game undo`` beside a running table succeeded,
and the table stopped at its next event on "UNIQUE constraint failed: events.seq"."""

from __future__ import annotations

import fcntl
import os
import signal
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.demo.runner import DemoError, make_room
from controller.demo.scratch import mark_as_scratch
from controller.game.events import FirstPlayerChosen
from controller.game.journal import Journal
from controller.game.legal import legal_actions
from controller.game.session import TableGame
from controller.game.state import GameConfig, Length, Phase
from controller.storage import lock
from controller.storage.journal import JournalInUseError, JournalIOError
from controller.storage.sqlite_file import read_only
from tests.cli_runner import cli_runner
from tests.game.helpers import demo_data
from tests.paths import REPO

pytestmark = pytest.mark.timeout(60)

# A process that opens a journal for writing as the table's service does, says so, and
# plays on (sleeps) until it is stopped.
HOLDER = """
import sys, time
from controller.game.journal import Journal
journal = Journal.open(sys.argv[1])
print("open", flush=True)
time.sleep(120)
"""


def _rows(path: Path) -> int:
    with read_only(path) as conn:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])


def _refusal(path: Path, pid: int) -> str:
    return (
        f"{path}: in use by another toptable (pid {pid}), which alone may write to it: stop "
        "it first (if it is the table's service: sudo systemctl stop toptable), then run "
        "this again"
    )


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    path = tmp_path / "j.sqlite"
    with Journal.create(path, {"mode": "tournament"}) as made:
        made.append(FirstPlayerChosen(seat=1))
    return path


@pytest.fixture
def holder(journal: Path) -> Iterator[subprocess.Popen[str]]:
    """Another process holding ``journal`` open for writing (killed after the test)."""
    child = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(journal)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline() == "open\n"
        yield child
    finally:
        child.kill()
        child.wait()


def test_a_second_writer_is_refused_at_its_open_and_nothing_is_written(journal: Path) -> None:
    with Journal.open(journal) as first:
        files = {p.name: p.read_bytes() for p in journal.parent.iterdir()}
        with pytest.raises(JournalInUseError) as refused:
            Journal.open(journal)
        assert str(refused.value) == _refusal(journal, os.getpid())
        assert isinstance(refused.value, JournalIOError)  # exit code 2, one line, as before
        assert {p.name: p.read_bytes() for p in journal.parent.iterdir()} == files
        assert first.append(FirstPlayerChosen(seat=0)) == 2  # the first plays on
    assert _rows(journal) == 2


def test_a_new_game_is_refused_where_another_writer_makes_one(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    held = lock.JournalLock.acquire(path)  # a `game play` about to build its journal there
    try:
        with pytest.raises(JournalInUseError, match="in use by another toptable"):
            Journal.create(path, {"mode": "tournament"})
        assert sorted(p.name for p in tmp_path.iterdir()) == ["new.sqlite-lck"]
    finally:
        held.release()
    with Journal.create(path, {"mode": "tournament"}) as made:
        assert len(made) == 0


def test_a_look_is_not_refused_while_a_writer_holds_the_journal(journal: Path) -> None:
    with Journal.open(journal) as first:
        first.append(FirstPlayerChosen(seat=0))
        with pytest.raises(JournalInUseError):
            Journal.open(journal)  # a writer is refused...
        with Journal.open(journal, writable=False) as look:  # ...a look is not (check, export)
            assert len(look) == 2
        with read_only(journal) as conn:  # nor config check's, the demo's mark's
            assert conn.execute("SELECT count(*) FROM events").fetchone() == (2,)
        assert first.append(FirstPlayerChosen(seat=1)) == 3


def test_the_lock_goes_with_the_close_and_leaves_no_file(journal: Path) -> None:
    lock_file = journal.with_name("j.sqlite-lck")
    with Journal.open(journal):
        assert lock_file.read_text() == f"{os.getpid()}\n"  # the holder, for a refusal
    assert not lock_file.exists()
    with Journal.open(journal) as again:
        assert len(again) == 1
        again.conn.close()  # its connection closed (a journal's close, or a pulled plug's)
        assert not lock_file.exists()
        with Journal.open(journal) as third:
            assert len(third) == 1
    assert sorted(p.name for p in journal.parent.iterdir()) == ["j.sqlite"]


def test_the_lock_goes_with_a_killed_holder(journal: Path, holder: subprocess.Popen[str]) -> None:
    with pytest.raises(JournalInUseError) as refused:
        Journal.open(journal)
    assert str(refused.value) == _refusal(journal, holder.pid)
    holder.send_signal(signal.SIGKILL)
    holder.wait()
    with Journal.open(journal) as after:  # the stale lock file is only a file
        assert after.append(FirstPlayerChosen(seat=0)) == 2


def test_undo_is_refused_while_the_table_holds_the_journal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.sqlite"
    with TableGame.start(path, GameConfig(("A", "B"), Length.ROUNDS5), demo_data()) as game:
        game.submit(FirstPlayerChosen(0))
        assert game.state.phase is Phase.DRAFT
        game.submit(next(iter(legal_actions(game.state))))  # a player's action: undoable
    before = _rows(path)
    table = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path)], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        assert table.stdout is not None and table.stdout.readline() == "open\n"
        run = cli_runner(monkeypatch, capsys, "controller.cli.game")
        code, out, err = run("game", "undo", str(path))
        assert (code, out) == (2, "")
        assert err == f"toptable: error: {_refusal(path, table.pid)}\n"
        assert _rows(path) == before  # no undo marker: the table's next row is its own
        code, out, _ = run("game", "check", str(path))  # a look is never refused
        assert code == 0 and f"{before} rows" in out
    finally:
        table.kill()
        table.wait()


def test_a_row_written_behind_the_journals_back_is_named_so(journal: Path) -> None:
    with Journal.open(journal) as first:
        other = sqlite3.connect(journal)  # another program, past the lock
        other.execute("INSERT INTO events VALUES (2, 'first_player', '{}', NULL, 'x')")
        other.commit()
        other.close()
        with pytest.raises(JournalIOError) as failed:
            first.append(FirstPlayerChosen(seat=0))
    assert str(failed.value) == (
        f"cannot append to the journal: {journal}: another program wrote to the journal "
        "since it was opened (its row 2 is there already); nothing was written: stop the "
        "other program, then open the journal again"
    )


def test_the_service_is_named_as_the_holder(journal: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(lock, "_is_service", lambda pid: True)
    with Journal.open(journal), pytest.raises(JournalInUseError) as refused:
        Journal.open(journal)
    assert str(refused.value) == (
        f"{journal}: in use by the table's service (toptable, pid {os.getpid()}), which "
        "alone may write to it: stop it first (sudo systemctl stop toptable), then run "
        "this again"
    )


def test_a_holder_that_wrote_no_pid_is_another_program(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    with open(f"{path}-lck", "w") as held:  # another program's lock: no pid written
        fcntl.flock(held, fcntl.LOCK_EX)
        with pytest.raises(JournalInUseError, match=r"j\.sqlite: in use by another program"):
            Journal.create(path, {"mode": "tournament"})
    assert not path.exists()


def test_a_journal_at_the_longest_name_sqlite_keeps_is_locked(tmp_path: Path) -> None:
    """The lock file's name is as long as the ``-wal``'s: a journal named up to 251 bytes,
    whose write-ahead log is named 255 (the most a name takes), has a lock file too."""
    path = tmp_path / ("j" * 251)
    with Journal.create(tmp_path / "short.sqlite", {"mode": "tournament"}):
        pass
    (tmp_path / "short.sqlite").rename(path)
    with Journal.open(path) as first:
        assert first.append(FirstPlayerChosen(seat=0)) == 1
        with pytest.raises(JournalInUseError):
            Journal.open(path)


def test_the_demo_does_not_replace_its_scratch_game_while_another_demo_plays_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "journal.sqlite"
    with Journal.create(path, {"mode": "tournament"}) as playing:
        mark_as_scratch(path)
        with pytest.raises(DemoError, match="in use by another toptable"):
            make_room(path, chosen=False)
        assert playing.append(FirstPlayerChosen(seat=0)) == 1 and path.exists()
    make_room(path, chosen=False)  # closed: the demo's own scratch game is replaced
    assert not path.exists()


def test_a_lock_file_that_is_a_link_is_never_followed(journal: Path, tmp_path: Path) -> None:
    # whoever may write in the journal's folder could point the lock at another's file,
    # which a writer run as root would otherwise truncate and give away
    victim = tmp_path / "victim"
    victim.write_text("not the lock's\n")
    journal.with_name("j.sqlite-lck").symlink_to(victim)
    with pytest.raises(JournalIOError, match=r"symbolic links: .*j\.sqlite-lck"):
        Journal.open(journal)
    assert victim.read_text() == "not the lock's\n"
    assert lock.holder_message(journal) is None  # a look never follows it either
    assert _rows(journal) == 1


def test_a_child_forked_from_the_holder_does_not_drop_its_lock(journal: Path) -> None:
    with Journal.open(journal) as held:
        pid = os.fork()
        if pid == 0:  # the child lets go of its copy, as a forked worker's exit does
            held.conn.close()
            os._exit(0)
        os.waitpid(pid, 0)
        assert journal.with_name("j.sqlite-lck").exists()
        with pytest.raises(JournalInUseError):
            Journal.open(journal)


def test_a_writer_opening_as_the_holder_closes_gets_the_only_lock(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A writer that opened the lock file just before its holder closed holds the lock at the
    journal's name: a third writer is still refused (the race made to happen in that order)."""
    first = Journal.open(journal)
    opened = lock._open_lock_file
    closed: list[Path] = []  # the lock file the holder let go of, once

    def open_as_the_holder_closes(path: Path, flags: int) -> int:
        fd = opened(path, flags)
        if flags & os.O_CREAT and not closed:
            first.close()  # the holder lets go (and removes that file) before the flock
            closed.append(path)
        return fd

    monkeypatch.setattr(lock, "_open_lock_file", open_as_the_holder_closes)
    with Journal.open(journal) as second:
        monkeypatch.undo()
        assert closed  # the race did happen
        with pytest.raises(JournalInUseError):
            Journal.open(journal)
        assert second.append(FirstPlayerChosen(seat=0)) == 2
    assert _rows(journal) == 2


def test_a_holder_whose_lock_file_was_removed_leaves_the_next_ones_in_place(
    journal: Path,
) -> None:
    """A lock file removed under its holder (a folder cleaned by hand): the next writer makes
    its own, and the old holder's close leaves it, so a third writer is still refused."""
    lock_file = journal.with_name("j.sqlite-lck")
    old = lock.JournalLock.acquire(journal)
    lock_file.unlink()
    second = lock.JournalLock.acquire(journal)
    try:
        old.release()
        with pytest.raises(lock.LockHeldError):
            lock.JournalLock.acquire(journal)
        assert lock_file.read_text() == f"{os.getpid()}\n"
    finally:
        second.release()
    assert not lock_file.exists()
