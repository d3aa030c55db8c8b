"""One writer per journal: an exclusive advisory lock held as long as a journal is open
for writing, so that a second writer (``game undo`` while the table's service runs, two
``game play`` on one file) is refused at its open, before anything is written.

The lock is ``flock`` on a file of its own beside the journal (its name and
:data:`LOCK_SUFFIX`), never on the database: SQLite locks the database with POSIX
byte-range locks, which the kernel drops for the whole process when *any* descriptor of
that file is closed (sqlite.org/howtocorrupt.html, 2.2), so toptable never opens the
database a second time; and ``flock`` and POSIX locks do not see each other. ``flock``
belongs to the open file description: a second open in the same process is refused as
another process is. It goes with the journal's connection (:class:`LockedConnection`:
closed by the journal's ``close`` or directly), and the kernel lets it go when the
process dies (a SIGKILL, a pulled plug). The holder writes its pid in the file, for the
refusal's message.

The holder removes the file as it lets the lock go, still holding it (a closed journal is
one file, as before); so :meth:`JournalLock.acquire` keeps a lock only on the file at that
name (it opens the name again if the file was removed meanwhile): one removed under a
process that had opened it is no one's lock. A killed holder leaves the file, which the
next writer takes. It is not one of the journal's
:func:`~controller.storage.sqlite_file.sidecars`: never moved or deleted with them. Its
suffix is as long as SQLite's ``-wal``, so every journal whose write-ahead log SQLite can
name has a lock file the system can name (a name takes at most 255 bytes); its path is
within :data:`~controller.storage.sqlite_file.SQLITE_PATH_MAX` and the 8 bytes of
``-journal`` SQLite keeps room for. Readers (``game check``, ``game export``, ``config
check``) never take it.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import sqlite3
import stat
import time
from pathlib import Path

LOCK_SUFFIX = "-lck"
"""The lock file's name is the journal's and this (as long as SQLite's ``-wal``)."""
SERVICE_UNIT = "toptable.service"
PID_WAIT_S = 0.05
"""How long a refusal waits for the pid of a holder that has just taken the lock."""


def lock_path(journal: Path) -> Path:
    """Where the lock of ``journal`` lies: beside the file SQLite opens (links followed,
    as SQLite follows them to place its ``-wal``), its name and :data:`LOCK_SUFFIX`."""
    real = Path(os.path.realpath(journal))
    return real.with_name(real.name + LOCK_SUFFIX)


def many_names(journal: Path) -> str | None:
    """Why a journal with several names (hard links) is not written: SQLite keeps its
    write-ahead log by the name it was opened by, and this lock is by name too, so two
    names let two programs write one file apart (sqlite.org/howtocorrupt.html, 2.4; its
    unix VFS logs "multiple links to file"). None: one name, or no file yet."""
    try:
        names = os.stat(journal).st_nlink
    except OSError:
        return None
    if names <= 1:
        return None
    return (
        f"{journal}: the journal has {names} names (hard links), and SQLite keeps its "
        "write-ahead log and toptable its one-writer lock by name: two programs could write "
        "it apart; keep one name (remove the others) or play on in a copy (cp)"
    )


class LockHeldError(Exception):
    """Another open file description holds the journal's lock (the message says whose;
    ``pid``: the holder's, None when unknown)."""

    def __init__(self, message: str, pid: int | None = None) -> None:
        super().__init__(message)
        self.pid = pid


class JournalLock:
    """The held lock of one journal; :meth:`release` (idempotent) lets it go."""

    def __init__(self, fd: int, path: Path) -> None:
        self._fd: int | None = fd
        self.path = path
        self._owner = os.getpid()  # a child forked without exec shares the lock: never its to drop

    @classmethod
    def acquire(cls, journal: Path) -> JournalLock:
        """Take the lock of ``journal`` without waiting, creating its lock file if need be,
        and write this process's pid in it.

        Raises:
            LockHeldError: another process (or another open in this one) holds it.
            OSError: the lock file cannot be created or opened.
        """
        path = lock_path(journal)
        while True:
            fd = _open_lock_file(path, os.O_RDWR | os.O_CREAT)
            try:
                _owned_as_journal(fd, path)
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                if _named(fd, path):
                    break
            except BlockingIOError:
                holder = _pid_in(fd)
                os.close(fd)
                raise LockHeldError(in_use_message(journal, holder), holder) from None
            except BaseException:
                os.close(fd)
                raise
            os.close(fd)  # removed by its holder since it was opened: open the name again
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            pass  # the lock is held; only the refusal of another loses the pid
        return cls(fd, path)

    def release(self) -> None:
        """Remove the lock file, still holding it, then let the lock go (idempotent; nothing
        in a process forked from the holder, whose copy is the holder's own lock)."""
        if self._fd is not None and os.getpid() == self._owner:
            fd, self._fd = self._fd, None
            try:
                if _named(fd, self.path):
                    self.path.unlink()
            except OSError:
                pass  # left in place (a folder made read-only): the next writer takes it
            os.close(fd)

    def __del__(self) -> None:  # dropped unreleased (a journal never closed): it goes too
        with contextlib.suppress(Exception):  # at the interpreter's exit: the kernel lets it go
            self.release()


class LockedConnection(sqlite3.Connection):
    """A journal's connection for writing, which lets the journal's :attr:`lock` go when it
    is closed (by the journal's ``close`` or directly), once the database is closed."""

    lock: JournalLock | None = None

    def close(self) -> None:
        try:
            super().close()
        finally:
            if self.lock is not None:
                self.lock.release()
                self.lock = None


def _open_lock_file(path: Path, flags: int) -> int:
    """Open the lock file, never through a symbolic link (whoever may write in the journal's
    folder could point one at a file of root's, which a ``sudo toptable game undo`` would
    then take over; SQLite refuses such a link for its ``-wal`` too).

    Raises:
        OSError: it cannot be opened, is a link (ELOOP), or is not a regular file.
    """
    fd = os.open(path, flags | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise OSError(errno.EINVAL, "not a regular file", str(path))
    return fd


def _named(fd: int, path: Path) -> bool:
    """Whether ``path`` names the file open at ``fd`` (not removed, nor replaced)."""
    try:
        there, mine = os.stat(path), os.fstat(fd)
    except FileNotFoundError:
        return False
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


def _owned_as_journal(fd: int, path: Path) -> None:
    """Run as root (``sudo toptable game undo``), give the lock file the owner of the
    journal (of its folder, for a new one), as SQLite gives its ``-wal``: else the table's
    service, run as its own user, could not open it again."""
    if os.geteuid() != 0:
        return
    journal = path.with_name(path.name.removesuffix(LOCK_SUFFIX))
    owner = os.stat(journal if journal.exists() else path.parent)
    mine = os.fstat(fd)
    if (mine.st_uid, mine.st_gid) != (owner.st_uid, owner.st_gid):
        os.fchown(fd, owner.st_uid, owner.st_gid)


def holder_message(journal: Path) -> str | None:
    """The refusal :meth:`JournalLock.acquire` would give while another holds the lock
    of ``journal`` (for a tool about to replace the file); None when it is free.
    Nothing is created and the lock is not kept."""
    try:
        fd = _open_lock_file(lock_path(journal), os.O_RDONLY)
    except OSError:
        return None  # no lock file (or none this user may read): no toptable holds it
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return in_use_message(journal, _pid_in(fd))
    finally:
        os.close(fd)
    return None


def _pid_in(fd: int) -> int | None:
    """The pid the holder wrote in the lock file (None: none there, or not a number); read
    again after a moment if it is empty (a holder that has just taken the lock)."""
    for wait_s in (0.0, PID_WAIT_S):
        time.sleep(wait_s)
        try:
            text = os.pread(fd, 32, 0).decode("ascii").strip()
        except (OSError, UnicodeDecodeError):
            return None
        if text:
            return int(text) if text.isdigit() and int(text) > 0 else None
    return None


def _is_service(pid: int) -> bool:
    """Whether ``pid`` runs in the table's systemd service (its control group says so)."""
    try:
        with open(f"/proc/{pid}/cgroup", encoding="utf-8", errors="replace") as f:
            return f"/{SERVICE_UNIT}" in f.read()
    except OSError:
        return False


def in_use_message(journal: Path, pid: int | None) -> str:
    """One line: ``journal`` is held by the process ``pid`` (None: unknown), and what to do."""
    again = "then run this again"
    if pid is None:
        return (
            f"{journal}: in use by another program, which alone may write to it: stop it "
            f"first (if it is the table's service: sudo systemctl stop toptable), {again}"
        )
    if _is_service(pid):
        return (
            f"{journal}: in use by the table's service (toptable, pid {pid}), which alone "
            f"may write to it: stop it first (sudo systemctl stop toptable), {again}"
        )
    return (
        f"{journal}: in use by another toptable (pid {pid}), which alone may write to it: "
        f"stop it first (if it is the table's service: sudo systemctl stop toptable), {again}"
    )
