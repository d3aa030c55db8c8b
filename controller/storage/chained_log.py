"""The append-only, hash-chained, crash-safe SQLite row log under toptable's journals.

One definition of the storage every journal shares (through
:class:`controller.storage.journal.EventJournal`: the dice game's
:mod:`controller.game.journal` and the companion modes' :mod:`controller.companion.journal`):

- One file per game: a ``meta`` table (key, value) and an ``events(seq, kind, payload,
  undoes, chain)`` table.
- WAL mode and ``synchronous=FULL``: a committed row survives a crash or a pulled plug;
  each append is one ``IMMEDIATE`` transaction, so a row is never half-written, then
  checkpointed into the file. A log is created under a temporary name and renamed once
  complete; one deleted or replaced under its writer is told at the next append.
- Each row's ``chain`` is a hash of the previous row's (the first row's is seeded by the
  game id), so a changed, removed or reordered row is found when the file is opened.
- The file knows itself: ``PRAGMA application_id`` says whose log it is and ``PRAGMA
  user_version`` is its format version, reached by ordered :class:`Migration` steps.
  The header is checked before the durability settings are applied, so another
  program's file is never switched to WAL.
- One writer: a log open for writing holds its lock (:mod:`controller.storage.lock`),
  taken before anything is read or written, so a second writer is refused at its open.
- Undo never deletes: a marker row (kind :data:`UNDO_KIND`) names the row it
  cancels; the effective rows skip both.
- Payloads are JSON objects stored compactly (the rows: :mod:`controller.storage.rows`).

What differs between the journals is a subclass's business: its application id, format
version and migrations, its error classes and wording, and how it reads its ``meta``
rows and its payloads (:mod:`controller.storage.journal`).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping, Sequence
from contextlib import ExitStack
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar, Generic, Self, TypeVar, cast

from controller.core.durable import replace_durably
from controller.core.quoting import printable
from controller.storage.errors import APPEND_FAILED
from controller.storage.lock import JournalLock, LockedConnection, LockHeldError, many_names
from controller.storage.place import (
    CREATING_SUFFIX,
    append_problem,
    is_storage_error,
    new_journal_problem,
    place_problem,
    rights_problem,
    too_long_for_sqlite,
)
from controller.storage.rows import UNDO_KIND, ChainedRow, chain_hash, create_layout, encode_payload
from controller.storage.sqlite_file import (
    Migration,
    Stamp,
    connect_read_only,
    cut_short,
    file_identity,
    found_damage,
    make_durable,
    migrate_from,
    read_stamp,
    replaced_why,
    settle_into_file,
    sidecars,
)

R = TypeVar("R", bound=ChainedRow)


class ChainedLog(Generic[R]):
    """An open log; a subclass sets the class attributes and words the refusals.

    Subclasses set :attr:`NOUN`, :attr:`APPLICATION_ID`, :attr:`FORMAT_VERSION`,
    :attr:`MIGRATIONS` (or override :meth:`_migrate`), :attr:`RESUME_HINT` and the
    three error classes, and override the wording hooks (:meth:`_foreign`,
    :meth:`_newer`, :meth:`_not_a_log`, :meth:`_bad_row`) where
    theirs differs.
    """

    NOUN: ClassVar[str] = "journal"  # "not a <NOUN>"
    APPLICATION_ID: ClassVar[int]
    FORMAT_VERSION: ClassVar[int]
    MIGRATIONS: ClassVar[tuple[Migration, ...]] = ()
    ACCEPTS_UNSTAMPED: ClassVar[bool] = False  # a file with neither header field, but our tables
    RESUME_HINT: ClassVar[str] = "open it to resume"
    Error: ClassVar[type[Exception]]  # the root (a closed log)
    StorageError: ClassVar[type[Exception]]  # missing file, failed create, append or upgrade
    InUseError: ClassVar[type[Exception]]  # another writer holds the log (a StorageError)
    CorruptError: ClassVar[type[Exception]]  # not a log, or damaged

    def __init__(self, conn: sqlite3.Connection, path: Path, seed: str, row: type[R]) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self._seed = seed
        self._row = row
        self._rows: list[R] = []
        self._identity = file_identity(path)  # a journal deleted or replaced is told

    # ----------------------------------------------------------- wording
    @classmethod
    def _foreign(cls, path: Path, stamp: Stamp) -> Exception:
        app = stamp.application_id & 0xFFFFFFFF
        return cls.CorruptError(f"{path}: not a {cls.NOUN} (SQLite application_id 0x{app:08X})")

    @classmethod
    def _newer(cls, path: Path, version: int) -> Exception:
        return cls.CorruptError(
            f"{path}: journal format {version} is newer than this toptable's "
            f"({cls.FORMAT_VERSION}); upgrade toptable to resume this game"
        )

    @classmethod
    def _not_a_log(cls, path: Path, exc: Exception) -> Exception:
        return cls.CorruptError(f"{path}: not a {cls.NOUN} ({exc})")

    @classmethod
    def _bad_row(cls, path: Path, seq: int) -> Exception:
        return cls.CorruptError(
            f"{path}: row {seq} fails its checksum (changed, removed or reordered rows)"
        )

    # ----------------------------------------------------------- opening
    @classmethod
    def check_stamp(cls, path: Path, stamp: Stamp) -> None:
        """Refuse a file that is not a log of this kind this toptable can read (``stamp``:
        its header, as :func:`read_stamp` reads it; opening checks it, and so does a look
        that must not write, such as ``toptable config check``).

        Raises:
            The :meth:`_foreign` and :meth:`_newer` errors: another kind's or program's
            file, or a newer format. CorruptError: a version below 0 (a damaged header).
        """
        ours = stamp.application_id == cls.APPLICATION_ID
        if not ours and not (cls.ACCEPTS_UNSTAMPED and stamp.is_unstamped_log):
            raise cls._foreign(path, stamp)
        if stamp.user_version < 0:
            raise cls.CorruptError(
                f"{path}: damaged: its format version (SQLite user_version) is "
                f"{stamp.user_version}; expected 0 to {cls.FORMAT_VERSION}"
            )
        if stamp.user_version > cls.FORMAT_VERSION:
            raise cls._newer(path, stamp.user_version)

    @classmethod
    def _connect(cls, path: Path, check: bool = False, writable: bool = True) -> sqlite3.Connection:
        """Open ``path`` with the durability settings (not ``writable``: read-only).

        With ``check`` (opening), refuse the file unless it is a log this toptable
        reads and SQLite finds whole (``PRAGMA quick_check``: a page damaged on disk
        passes the rows' checksums while it is not read, and a write there spreads the
        damage), checked before anything is written: the durability settings, which
        write to the file (WAL), are then left to :func:`make_durable`, once the rows
        are checked too. An SQLite error is the file's fault (``CorruptError``).
        Without (creating), SQLite's errors pass through.
        """
        if check and (problem := cut_short(path, cls.NOUN)) is not None:
            raise cls.CorruptError(problem)  # before SQLite, which deletes an empty file's WAL
        conn: sqlite3.Connection | None = None
        try:
            # opened on the main thread, then used by the loop thread alone: never concurrent
            if writable:
                conn = LockedConnection(str(path), isolation_level=None, check_same_thread=False)
            else:
                conn = connect_read_only(path)
            if check:
                cls.check_stamp(path, read_stamp(conn))
                damage = found_damage(conn)
                if damage is not None:
                    raise cls.CorruptError(
                        f"{path}: damaged on disk (SQLite: {damage}); left as it is: "
                        "sqlite3's .recover reads what it can into a copy"
                    )
            else:
                make_durable(conn)
        except sqlite3.DatabaseError as exc:
            if conn is not None:
                conn.close()
            if not check:
                raise
            if is_storage_error(exc):  # the folder, the disk or the rights: not the file
                raise cls.StorageError(place_problem(path, exc)) from None
            raise cls._not_a_log(path, exc) from None
        except Exception:
            if conn is not None:
                conn.close()
            raise
        return conn

    @classmethod
    def _take_lock(cls, path: Path, said: str = "") -> JournalLock:
        """The lock of the log at ``path``, held; refused (InUseError) while another writer
        holds it, StorageError (``said`` first) if its file cannot be made, the log has
        several names, or this user cannot write it or SQLite's files beside it."""
        if (why := many_names(path) or rights_problem(path)) is not None:
            raise cls.StorageError(f"{said}{why}")
        try:
            return JournalLock.acquire(path)
        except LockHeldError as exc:
            raise cls.InUseError(str(exc)) from None
        except OSError as exc:
            raise cls.StorageError(f"{said}{place_problem(path, exc)}") from None

    def _hold(self, lock: JournalLock) -> Self:
        """This log, holding ``lock`` until its connection is closed (:meth:`close`)."""
        cast(LockedConnection, self.conn).lock = lock
        return self

    @classmethod
    def _refuse_new(cls, path: Path) -> None:
        """Refuse a new log at ``path`` (:func:`new_journal_problem`) with StorageError."""
        if (problem := new_journal_problem(path, cls.RESUME_HINT)) is not None:
            raise cls.StorageError(problem)

    @classmethod
    def _create_file(
        cls, path: Path, meta: Sequence[tuple[str, str]], make_parent: bool = False
    ) -> tuple[sqlite3.Connection, JournalLock]:
        """Create a stamped, empty log holding ``meta``; return its open connection and
        its lock, held (the caller's log keeps it: :meth:`_hold`).

        Raises:
            StorageError: the file exists already or cannot be created.
            InUseError: another writer holds the log's lock (making it, or playing it).
        """
        cls._refuse_new(path)
        said = "cannot create the journal: "
        with ExitStack() as held:
            try:
                if make_parent:
                    path.parent.mkdir(parents=True, exist_ok=True)
                lock = cls._take_lock(path, said)
                held.callback(lock.release)  # unless made
                cls._refuse_new(path)  # made meanwhile by the writer that held the lock
                conn = cls._build_new(path, meta)
            except (sqlite3.Error, OSError) as exc:
                if isinstance(exc, cls.Error):
                    raise
                raise cls.StorageError(f"{said}{place_problem(path, exc)}") from None
            held.pop_all()
        return conn, lock

    @classmethod
    def _build_new(cls, path: Path, meta: Sequence[tuple[str, str]]) -> sqlite3.Connection:
        """Build the log at ``path`` (its lock held); its connection (sqlite3.Error, OSError)."""
        _, wal, shm = sidecars(path)
        # Built under a temporary name and renamed once complete, so a crash while
        # creating never leaves a half-made log where a game is expected.
        tmp = path.with_name(path.name + CREATING_SUFFIX)
        # an empty write-ahead log (no rows) and a half-made log are nobody's game
        for leftover in (wal, shm, *sidecars(tmp)):
            leftover.unlink(missing_ok=True)
        conn = cls._connect(tmp)
        conn.execute("BEGIN IMMEDIATE")
        create_layout(conn)
        conn.executemany("INSERT INTO meta VALUES (?, ?)", meta)
        cls._migrate(conn, 0)
        conn.execute("COMMIT")
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        conn.close()
        replace_durably(tmp, path)
        return cls._connect(path)

    @classmethod
    def _open_file(
        cls,
        path: str | Path,
        build: Callable[[sqlite3.Connection, Path, dict[str, str]], Self],
        writable: bool = True,
    ) -> Self:
        """Open an existing log, check its header and every row, and bring it up to date.

        ``build`` makes the subclass's object from the connection, the path and the
        ``meta`` rows (raising the subclass's errors if they are wrong). Not ``writable``:
        a look that writes nothing (no WAL, no upgrade: an older log read as it is).

        For writing, it holds its lock from before it is read until :meth:`close`.

        Raises:
            StorageError: no such file, or an older log that cannot be upgraded.
            InUseError: (``writable``) another writer holds the log.
            CorruptError: not a log, or a row that fails its check (and what
                the wording hooks and ``build`` raise).
        """
        path = Path(path)
        try:
            misplaced, missing = path.is_dir() or not path.parent.is_dir(), not path.is_file()
        except OSError as exc:
            raise cls.StorageError(place_problem(path, exc)) from None
        if misplaced:
            raise cls.StorageError(place_problem(path))
        if missing:
            raise cls.StorageError(f"{path}: no journal there")
        if (long := too_long_for_sqlite(path, creating=False)) is not None:
            raise cls.StorageError(f"{printable(str(path))}: {long}")
        if not writable:
            return cls._read_file(path, build, writable)
        with ExitStack() as held:
            lock = cls._take_lock(path)
            held.callback(lock.release)  # unless opened
            log = cls._read_file(path, build, writable)
            held.pop_all()
        return log._hold(lock)

    @classmethod
    def _read_file(
        cls, path: Path, build: Callable[[sqlite3.Connection, Path, dict[str, str]], Self],
        writable: bool,
    ) -> Self:  # fmt: skip
        conn = cls._connect(path, check=True, writable=writable)
        try:
            meta = {str(k): str(v) for k, v in conn.execute("SELECT key, value FROM meta")}
            raw = conn.execute(
                "SELECT seq, kind, payload, undoes, chain FROM events ORDER BY seq"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            conn.close()
            if is_storage_error(exc):
                raise cls.StorageError(place_problem(path, exc)) from None
            raise cls._not_a_log(path, exc) from None
        try:
            log = build(conn, path, meta)
        except BaseException:
            conn.close()
            raise
        log._verify_rows(raw)
        if not writable:
            return log
        try:
            make_durable(log.conn)
        except sqlite3.DatabaseError as exc:
            log.close()
            if is_storage_error(exc):
                raise cls.StorageError(place_problem(path, exc)) from None
            raise cls._not_a_log(path, exc) from None
        log._upgrade()
        return log

    def _verify_rows(self, raw: list[Any]) -> None:
        prev = self._seed
        for i, (seq, kind, payload, undoes, chain) in enumerate(raw):
            stored = {"kind": kind, "payload": payload, "chain": chain}
            wrong = [k for k, v in stored.items() if not isinstance(v, str)]
            if not isinstance(undoes, int | None):
                wrong.append("undoes")
            if wrong:  # SQLite keeps what it is given: a NULL, a number, a blob...
                self.close()
                raise self.CorruptError(
                    f"{self.path}: row {i + 1}: its {', '.join(wrong)} is not what a "
                    "journal stores (changed rows)"
                )
            if seq != i + 1 or chain_hash(prev, seq, kind, payload, undoes) != chain:
                self.close()
                raise self._bad_row(self.path, seq)
            self._rows.append(self._row(seq, kind, payload, undoes, chain))
            prev = chain

    @classmethod
    def _migrate(cls, conn: sqlite3.Connection, version: int) -> int:
        """Bring a file at ``version`` to :attr:`FORMAT_VERSION` (in the caller's transaction)."""
        return migrate_from(conn, cls.MIGRATIONS, version)

    def _upgrade(self) -> None:
        """Bring an older log to :attr:`FORMAT_VERSION` (one transaction; rows untouched)."""
        conn = self.conn
        version = int(conn.execute("PRAGMA user_version").fetchone()[0])
        if version >= self.FORMAT_VERSION:
            return
        try:
            conn.execute("BEGIN IMMEDIATE")
            self._migrate(conn, version)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            self.close()
            raise self.StorageError(
                f"{self.path}: cannot upgrade the journal from format version {version} "
                f"to {self.FORMAT_VERSION}: {exc}"
            ) from None

    # ----------------------------------------------------------- writing
    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection; Error if the log is closed."""
        if self._conn is None:
            raise self.Error(f"{self.path}: the journal is closed")
        return self._conn

    def _append_row(self, kind: str, data: Mapping[str, Any], undoes: int | None = None) -> R:
        """Append a row holding ``data`` durably (see :meth:`_append_rows`)."""
        return self._append_rows([(kind, data, undoes)])[0]

    def _append_rows(self, items: Sequence[tuple[str, Mapping[str, Any], int | None]]) -> list[R]:
        """Append a row per (kind, data, row undone) durably, all or none (one transaction).

        Raises:
            StorageError: the write failed, or the file is gone (nothing was written).
        """
        rows: list[R] = []
        prev = self._rows[-1].chain if self._rows else self._seed
        for kind, data, undoes in items:
            seq, payload = len(self._rows) + len(rows) + 1, encode_payload(data)
            prev = chain_hash(prev, seq, kind, payload, undoes)
            rows.append(self._row(seq, kind, payload, undoes, prev))
        conn = self.conn
        if (gone := replaced_why(self.path, self._identity)) is not None:
            raise self.StorageError(f"{APPEND_FAILED}: {gone}")
        try:
            conn.execute("BEGIN IMMEDIATE")
            values = [(r.seq, r.kind, r.payload, r.undoes, r.chain) for r in rows]
            conn.executemany("INSERT INTO events VALUES (?, ?, ?, ?, ?)", values)
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            why = append_problem(self.path, exc, rows[0].seq)
            raise self.StorageError(f"{APPEND_FAILED}: {why}") from None
        self._rows.extend(rows)
        settle_into_file(conn)  # the file alone holds the game: a copy without -wal too
        return rows

    def _cancel(self, *rows: R) -> list[R]:
        """Append the undo markers that cancel ``rows``, all or none."""
        return self._append_rows([(UNDO_KIND, {}, row.seq) for row in rows])

    # ----------------------------------------------------------- reading
    def _effective_rows(self, kind: str | None = None) -> list[R]:
        """The rows neither undone nor undo markers (only ``kind``'s, if given), in order."""
        cancelled = {r.undoes for r in self._rows if r.kind == UNDO_KIND}
        return [
            r
            for r in self._rows
            if r.kind != UNDO_KIND and r.seq not in cancelled and (kind is None or r.kind == kind)
        ]

    # ----------------------------------------------------------- closing
    def close(self) -> None:
        """Close the file, and so let its lock go (idempotent)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, t: type[BaseException] | None, v: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
