"""The game journal: every event appended to SQLite before anything acts on it.

One file per game. WAL mode and ``synchronous=FULL``: a committed event
survives a crash or a pulled plug; each append is one transaction, so a row is
never half-written. Each row carries a hash chained to the previous row's, so
a changed, removed or reordered row is detected when the journal is opened.
The ``meta`` table holds the schema version, the game id and the game's set-up.

Undo never deletes: it appends a marker row naming the row it cancels; the
effective events (what the game folds) skip both.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from controller.core.errors import TopTableError
from controller.game.events import EventDecodeError, GameEvent, event_from_dict

SCHEMA_VERSION = 1
UNDO_KIND = "undo"


class JournalError(TopTableError):
    """Root of the journal's errors."""


class JournalVersionError(JournalError, ValueError):
    """The journal was written by a newer version of toptable."""


class JournalCorruptError(JournalError, ValueError):
    """A row does not match its checksum, or the file is not a journal."""


class WrongGameError(JournalError, ValueError):
    """The journal belongs to another game."""


class JournalIOError(JournalError, OSError):
    """The journal file cannot be created or opened."""


@dataclass(frozen=True)
class Row:
    """One journal row as stored."""

    seq: int
    kind: str
    payload: str
    undoes: int | None
    chain: str

    def event(self) -> GameEvent:
        """The event this row holds.

        Raises:
            JournalCorruptError: the payload does not decode.
        """
        try:
            return event_from_dict(json.loads(self.payload))
        except (json.JSONDecodeError, EventDecodeError) as exc:
            raise JournalCorruptError(f"journal row {self.seq}: {exc}") from None


def _chain(prev: str, seq: int, kind: str, payload: str, undoes: int | None) -> str:
    h = hashlib.blake2b(digest_size=12)
    h.update(f"{prev}|{seq}|{kind}|{undoes}|{payload}".encode())
    return h.hexdigest()


class Journal:
    """An open game journal. Use :meth:`create` or :meth:`open`; close it (or use ``with``)."""

    def __init__(
        self, conn: sqlite3.Connection, path: Path, game_id: str, setup: dict[str, Any]
    ) -> None:
        self._conn: sqlite3.Connection | None = conn
        self.path = path
        self.game_id = game_id
        self.setup = setup
        self._rows: list[Row] = []

    # ----------------------------------------------------------- opening
    @staticmethod
    def _connect(path: Path) -> sqlite3.Connection:
        try:
            # The table opens the journal on its main thread and then hands it to the loop
            # thread, which alone uses it while the game runs: access is never concurrent.
            conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
        except sqlite3.DatabaseError as exc:
            raise JournalCorruptError(f"{path}: not a toptable journal ({exc})") from None
        return conn

    @classmethod
    def create(cls, path: str | Path, setup: dict[str, Any], game_id: str | None = None) -> Journal:
        """Create a new journal for a game set up with ``setup`` (a JSON-able dict).

        Raises:
            JournalIOError: the file exists already or cannot be created.
        """
        path = Path(path)
        if path.exists():
            raise JournalIOError(f"{path}: a journal already exists there; open it to resume")
        gid = game_id or uuid.uuid4().hex
        # Built under a temporary name and renamed once complete, so a crash while
        # creating never leaves a half-made journal where a game is expected.
        tmp = path.with_name(path.name + ".creating")
        for leftover in (tmp, Path(f"{tmp}-wal"), Path(f"{tmp}-shm")):
            leftover.unlink(missing_ok=True)
        try:
            conn = cls._connect(tmp)
            conn.execute("BEGIN IMMEDIATE")
            conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            conn.execute(
                "CREATE TABLE events (seq INTEGER PRIMARY KEY, kind TEXT NOT NULL, "
                "payload TEXT NOT NULL, undoes INTEGER, chain TEXT NOT NULL)"
            )
            conn.executemany(
                "INSERT INTO meta VALUES (?, ?)",
                [
                    ("schema_version", str(SCHEMA_VERSION)),
                    ("game_id", gid),
                    ("setup", json.dumps(setup, sort_keys=True)),
                ],
            )
            conn.execute("COMMIT")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            conn.close()
            tmp.replace(path)
            conn = cls._connect(path)
        except (sqlite3.Error, OSError) as exc:
            raise JournalIOError(f"{path}: cannot create the journal: {exc}") from None
        return cls(conn, path, gid, setup)

    @classmethod
    def open(cls, path: str | Path, game_id: str | None = None) -> Journal:
        """Open an existing journal and check every row.

        Raises:
            JournalIOError: no such file.
            JournalVersionError: written by a newer toptable.
            WrongGameError: ``game_id`` is given and the journal is another game's.
            JournalCorruptError: not a journal, or a row that fails its check.
        """
        path = Path(path)
        if not path.is_file():
            raise JournalIOError(f"{path}: no journal there")
        conn = cls._connect(path)
        try:
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
            raw = conn.execute(
                "SELECT seq, kind, payload, undoes, chain FROM events ORDER BY seq"
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            conn.close()
            raise JournalCorruptError(f"{path}: not a toptable journal ({exc})") from None
        try:
            version = int(meta.get("schema_version", ""))
            setup = json.loads(meta["setup"])
            gid = meta["game_id"]
        except (ValueError, KeyError):
            conn.close()
            raise JournalCorruptError(f"{path}: the journal's meta table is damaged") from None
        if version > SCHEMA_VERSION:
            conn.close()
            raise JournalVersionError(
                f"{path}: journal schema version {version} is newer than this toptable's "
                f"({SCHEMA_VERSION}); upgrade toptable to resume this game"
            )
        if game_id is not None and gid != game_id:
            conn.close()
            raise WrongGameError(f"{path}: this journal is game {gid}, not game {game_id}")
        journal = cls(conn, path, gid, setup)
        prev = gid
        for i, (seq, kind, payload, undoes, chain) in enumerate(raw):
            if seq != i + 1 or _chain(prev, seq, kind, payload, undoes) != chain:
                conn.close()
                raise JournalCorruptError(
                    f"{path}: row {seq} fails its checksum (changed, removed or reordered rows)"
                )
            journal._rows.append(Row(seq, kind, payload, undoes, chain))
            prev = chain
        return journal

    # ----------------------------------------------------------- writing
    @property
    def conn(self) -> sqlite3.Connection:
        """The open connection.

        Raises:
            JournalError: the journal is closed.
        """
        if self._conn is None:
            raise JournalError(f"{self.path}: the journal is closed")
        return self._conn

    def _append_row(self, kind: str, payload: str, undoes: int | None) -> Row:
        seq = len(self._rows) + 1
        prev = self._rows[-1].chain if self._rows else self.game_id
        row = Row(seq, kind, payload, undoes, _chain(prev, seq, kind, payload, undoes))
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            conn.execute(
                "INSERT INTO events VALUES (?, ?, ?, ?, ?)",
                (row.seq, row.kind, row.payload, row.undoes, row.chain),
            )
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise JournalIOError(f"{self.path}: cannot append: {exc}") from None
        self._rows.append(row)
        return row

    def append(self, event: GameEvent) -> int:
        """Append ``event`` durably (one committed transaction); return its row number.

        Raises:
            JournalIOError: the write failed (nothing was written).
        """
        payload = json.dumps(event.to_dict(), separators=(",", ":"))
        return self._append_row(event.kind, payload, None).seq

    def undo(self) -> GameEvent:
        """Cancel the last effective event, which must be a player action; return it.

        Raises:
            JournalError: nothing to undo, or the last event is an input (a die's
                result is not undone: journal a correction instead).
        """
        live = self._effective_rows()
        if not live:
            raise JournalError("nothing to undo")
        last = live[-1]
        event = last.event()
        if not event.is_action:
            raise JournalError(
                f"the last event is a {event.kind} input, not a player action: it is not undone "
                "(if the read was wrong, journal a correction)"
            )
        self._append_row(UNDO_KIND, "{}", last.seq)
        return event

    # ----------------------------------------------------------- reading
    def _effective_rows(self) -> list[Row]:
        cancelled = {r.undoes for r in self._rows if r.kind == UNDO_KIND}
        return [r for r in self._rows if r.kind != UNDO_KIND and r.seq not in cancelled]

    def events(self) -> list[GameEvent]:
        """The effective events, in order (undone ones and undo markers left out).

        Raises:
            JournalCorruptError: a row that does not decode.
        """
        return [r.event() for r in self._effective_rows()]

    def rows(self) -> Iterator[Row]:
        """Every stored row, undo markers included."""
        return iter(tuple(self._rows))

    def __len__(self) -> int:
        return len(self._rows)

    # ----------------------------------------------------------- closing
    def close(self) -> None:
        """Close the file (idempotent)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self, t: type[BaseException] | None, v: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()
