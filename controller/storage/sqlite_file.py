"""An SQLite file as the logs keep it: what its header says (its stamp) and the
migration steps that write it, the files SQLite keeps beside it, whether SQLite finds
it whole, the durability settings, and a read-only look."""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import closing, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple


@dataclass(frozen=True)
class Stamp:
    """What a database file's header says about it."""

    application_id: int
    user_version: int
    tables: frozenset[str]

    @property
    def is_unstamped_log(self) -> bool:
        """No header fields, but a log's two tables (a log from before the stamps)."""
        return (
            self.application_id == 0
            and self.user_version == 0
            and {"meta", "events"} <= self.tables
        )


@dataclass(frozen=True)
class Migration:
    """One step from ``version - 1`` to ``version``."""

    version: int
    description: str
    apply: Callable[[sqlite3.Connection], None]


def stamp_application_id(application_id: int) -> Callable[[sqlite3.Connection], None]:
    """A migration step that writes ``application_id`` into the file's header."""

    def stamp(conn: sqlite3.Connection) -> None:
        # PRAGMA takes no bound parameters; the value is the caller's integer constant.
        conn.execute(f"PRAGMA application_id = {int(application_id)}")

    return stamp


def migrate_from(conn: sqlite3.Connection, steps: Sequence[Migration], version: int) -> int:
    """Apply each of ``steps`` after ``version``, in order (inside the caller's transaction).

    Returns the version reached. Each step sets ``user_version``, so a file is
    always at a version it really has.
    """
    for step in steps:
        if step.version > version:
            step.apply(conn)
            conn.execute(f"PRAGMA user_version = {int(step.version)}")
            version = step.version
    return version


SQLITE_PATH_MAX = 504
"""The longest full path, in bytes, at which SQLite opens a database: its unix VFS's
``MAX_PATHNAME`` (512, os_unix.c) less the 8 bytes of the ``-journal`` its pager must be
able to add (``sqlite3PagerOpen`` refuses a longer one: "unable to open database file").
Measured on SQLite 3.40.1: 504 bytes open, 505 do not."""


def full_path_size(path: Path) -> int:
    """The size in bytes of the path SQLite opens ``path`` at (its ``xFullPathname``: made
    absolute, links followed, ``.`` and ``..`` gone), to hold to :data:`SQLITE_PATH_MAX`."""
    return len(os.fsencode(os.path.realpath(path)))


def sidecars(path: Path) -> tuple[Path, Path, Path]:
    """A log's file and the write-ahead log and shared-memory files SQLite keeps beside
    it: one database, moved, copied or deleted together."""
    return path, Path(f"{path}-wal"), Path(f"{path}-shm")


def unused_name(
    path: Path, stem: str, parts: Callable[[Path], Sequence[Path]] = sidecars
) -> Path | None:
    """``STEM`` with ``path``'s suffix beside it, or ``STEM-2``...: a name none of whose
    ``parts`` (SQLite's files, by default) is there, to move ``path`` aside to; None after
    9,999 tries. A Pi with no real-time clock boots on the same saved time after a pulled
    plug, so a name from the wall clock comes twice."""
    for n in range(1, 10_000):
        target = path.with_name(f"{stem}{'' if n == 1 else f'-{n}'}{path.suffix}")
        if not any(p.exists() or p.is_symlink() for p in parts(target)):
            return target
    return None


def read_stamp(conn: sqlite3.Connection) -> Stamp:
    """The header fields and table names of an open database.

    Raises:
        sqlite3.DatabaseError: the file is not an SQLite database.
    """
    app_id = int(conn.execute("PRAGMA application_id").fetchone()[0])
    version = int(conn.execute("PRAGMA user_version").fetchone()[0])
    names = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    return Stamp(app_id, version, frozenset(str(n) for (n,) in names))


def found_damage(conn: sqlite3.Connection) -> str | None:
    """The first damage SQLite finds in the open database (``PRAGMA quick_check``: pages,
    free space and indexes, not the rows' meaning), in one line; None when it is whole.

    Raises:
        sqlite3.DatabaseError: the file is not an SQLite database.
    """
    found = conn.execute("PRAGMA quick_check(1)").fetchone()
    if found is not None and found[0] == "ok":
        return None
    said = str(found[0]) if found is not None else "no answer"
    return " ".join(line for line in said.splitlines() if not line.startswith("***"))


def make_durable(conn: sqlite3.Connection) -> None:
    """Write-ahead logging (a write to the file's header), each commit synced to the disk."""
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")


@contextmanager
def read_only(path: Path) -> Iterator[sqlite3.Connection]:
    """The database at ``path`` opened so that nothing is written to it or beside it, for
    a look before anything decides: ``mode=ro`` (neither a journal mode nor a created
    file) and, while no write-ahead log lies beside it (no connection holds it open and
    every commit is in the file), ``immutable=1`` too, without which SQLite creates the
    ``-wal`` and ``-shm`` files of a WAL database it reads (and leaves them there).

    Raises:
        sqlite3.Error, OSError: it cannot be opened as an SQLite database.
    """
    with closing(connect_read_only(path)) as conn:
        yield conn


def connect_read_only(path: Path) -> sqlite3.Connection:
    """An open connection to ``path`` as :func:`read_only` opens it (the caller closes it;
    autocommit, usable from another thread, as the logs' connections are).

    Raises:
        sqlite3.Error, OSError: it cannot be opened as an SQLite database; or it is cut
            short (:func:`cut_short`: a 0-byte file's write-ahead log, which SQLite's
            open deletes even read-only, is left as it is).
    """
    if path.exists() and not path.is_file():  # a FIFO: SQLite's read-only open waits on it
        raise sqlite3.DatabaseError("not a regular file")
    if (cut := cut_short(path, "database")) is not None:
        raise sqlite3.DatabaseError(cut.removeprefix(f"{path}: "))
    _, wal, _ = sidecars(path)
    settled = "" if wal.exists() else "&immutable=1"
    uri = f"{path.resolve().as_uri()}?mode=ro{settled}"
    return sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)


class FileIdentity(NamedTuple):
    """A file as it was opened: its absolute path (a relative one would name another file
    once the process changes folder), its device and its inode."""

    where: str
    device: int
    inode: int


def file_identity(path: Path) -> FileIdentity | None:
    """The file at ``path`` as it is now (None: there is none to stat)."""
    where = os.path.abspath(path)
    try:
        found = os.stat(where)
    except OSError:
        return None
    return FileIdentity(where, found.st_dev, found.st_ino)


def replaced_why(path: Path, identity: FileIdentity | None) -> str | None:
    """Why the file opened as ``identity`` (shown as ``path``) is no longer at its place:
    deleted, moved away or replaced, so that a row written on would go to a file nobody
    finds at that name (None: it is the same file, or ``identity`` was not known)."""
    if identity is None:
        return None
    now = file_identity(Path(identity.where))
    if now == identity:
        return None
    what = "deleted or moved away" if now is None else "replaced by another file"
    return (
        f"{path}: the journal was {what} while the game was being written to it; "
        "nothing more is written: put it back (or resume the game from where it went)"
    )


def settle_into_file(conn: sqlite3.Connection) -> None:
    """Copy the write-ahead log's committed rows into the database file (a passive
    checkpoint: it never waits on a reader), so that the file alone holds the game: a
    copy or a move of it without its ``-wal`` (taken while the table plays, or after a
    power cut) is no empty game. One that fails leaves the rows in the log, as durable."""
    with contextlib.suppress(sqlite3.Error):
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")


def header_application_id(path: Path) -> int | None:
    """The application id an SQLite file's header holds (bytes 68-71, big-endian; SQLite's
    file format, "The Database Header"), read without SQLite: a damaged or cut journal
    still says whose it is; None for no SQLite file (or none readable)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(72)
    except OSError:
        return None
    if len(head) < 72 or not head.startswith(b"SQLite format 3\x00"):
        return None
    return int.from_bytes(head[68:72], "big")


def cut_short(path: Path, noun: str) -> str | None:
    """What a power cut or a stopped copy left of the SQLite file ``path``, read from
    its header without SQLite (which deletes the write-ahead log beside a 0-byte file:
    ``pager.c``, ``pagerOpenWalIfPresent``); None when it is not so (SQLite then says).

    Empty, or shorter than the pages its header counts (bytes 28-31, believed when
    bytes 92-95 match the change counter at 24-27; SQLite's file format, "The Database
    Header") with no write-ahead log to make up the rest.
    """
    wal = Path(f"{path}-wal")
    try:
        if not path.is_file():  # a FIFO would block this open: SQLite's open says what it is
            return None
        with path.open("rb") as fh:
            size, head = os.fstat(fh.fileno()).st_size, fh.read(100)
        wal_size = wal.stat().st_size if wal.is_file() else 0
    except OSError:  # missing, unreadable: SQLite's open says so
        return None
    if size == 0:
        if wal_size:
            return (
                f"{path}: empty (0 bytes), beside its write-ahead log {wal.name} ({wal_size} "
                "bytes): both left as they are (SQLite would delete the log); copy both away"
            )
        return f"{path}: empty (0 bytes): a file being written when the power went is left so"
    if len(head) < 100 or not head.startswith(b"SQLite format 3\x00") or wal_size:
        return None
    page = int.from_bytes(head[16:18], "big")
    page = 65536 if page == 1 else page
    pages = int.from_bytes(head[28:32], "big")
    if head[24:28] != head[92:96] or size >= pages * page:
        return None
    return (
        f"{path}: a {noun} cut short ({size} of the {pages * page} bytes its header "
        "gives); left as it is: sqlite3's .recover reads what it can into a copy"
    )
