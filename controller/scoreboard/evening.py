"""The evening kept in SQLite, so a restarted scoreboard has the same standings.

Every state the scoreboard shows or counts is saved (one row per table and game,
the latest state wins) by a thread of its own at most a second later: the MQTT
thread only hands the state over. At start the saved games come back, each
checked again like a message from the broker. A scoreboard killed outright, or
its Pi's plug pulled, loses at most the last second, which the tables' retained
states and the scoreboard's broker session bring back.

The file lives in the scoreboard's state directory (``evening.sqlite``);
``toptable scoreboard --new-evening`` moves it aside (never deletes it) and starts afresh.
A new evening also keeps the games it set aside (``aside``): the tables' states the
broker still held from before it began (see :class:`~controller.scoreboard.model.Scoreboard`),
so a restart sets them aside again.
"""

from __future__ import annotations

import json
import logging
import math
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

from controller.core.errors import TopTableError
from controller.core.quoting import short_repr
from controller.scoreboard.checks import MessageError, clean_state
from controller.storage.lock import JournalLock, LockHeldError
from controller.storage.sqlite_file import read_stamp, unused_name

log = logging.getLogger(__name__)

FILE_NAME = "evening.sqlite"
FORMAT = 2  # PRAGMA user_version of the file (1: without ``aside``, upgraded on opening)
READS = (0, 1, FORMAT)
EVENING_TABLES = frozenset({"games", "aside"})
"""The tables an evening's file holds (a file with others is another program's)."""
GAMES_COLUMNS = frozenset({"table_id", "game_id", "state", "saved_at"})
"""The columns of its ``games`` table (a table of that name without them is another's)."""
COLUMNS = {"games": GAMES_COLUMNS, "aside": frozenset({"table_id", "game_id", "seq"})}
SAVE_EVERY_S = 1.0
_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    table_id TEXT NOT NULL,
    game_id TEXT NOT NULL,
    state TEXT NOT NULL,      -- the clean state message, JSON
    saved_at REAL NOT NULL,   -- wall time the scoreboard received it
    PRIMARY KEY (table_id, game_id)
);
CREATE TABLE IF NOT EXISTS aside (
    table_id TEXT NOT NULL,
    game_id TEXT NOT NULL,    -- a game from before the evening began: not counted
    seq INTEGER NOT NULL,     -- its state's row then: a later row, sent live, counts it
    PRIMARY KEY (table_id, game_id)
)
"""


class EveningError(TopTableError, OSError):
    """The evening's file cannot be used (the message names it and what to do)."""


class Evening:
    """The evening's games in one SQLite file; ``save()`` is cheap, a thread writes."""

    def __init__(
        self, path: Path, save_every_s: float = SAVE_EVERY_S, *, new: bool = False
    ) -> None:
        """Open (or create) ``path``; ``new``: the organiser began this evening now
        (``--new-evening``), so what the broker still holds is from before it.

        Raises:
            EveningError: not a SQLite file, another program's (a game journal...), another
                format, or not writable.
        """
        self.path = path
        self.save_every_s = save_every_s
        self._file_lock: JournalLock | None = None  # held from in_directory (the scoreboard's)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
            stamp = read_stamp(self._db)
            if stamp.application_id != 0 or not stamp.tables <= EVENING_TABLES:
                # another program's database (a game journal...): never written into
                raise EveningError(
                    f"{path}: not an evening's file (it holds the tables "
                    f"{', '.join(sorted(stamp.tables))}"
                    + (f", SQLite application_id 0x{stamp.application_id & 0xFFFFFFFF:08X}"
                       if stamp.application_id else "")
                    + "): move it away, or give --state-dir another folder"
                )  # fmt: skip
            for table in sorted(stamp.tables):
                _check_columns(self._db, path, table)
            version = stamp.user_version
            if version not in READS:
                raise EveningError(
                    f"{path}: an evening of format {version} (this scoreboard reads {FORMAT}): "
                    "move it away, or run a matching toptable"
                )
            self._db.execute("PRAGMA journal_mode=WAL")
            # FULL: in WAL mode NORMAL leaves a commit to the next checkpoint's sync, and a
            # power cut took every row of the last ~30 s (sqlite.org, pragma synchronous);
            # one commit a second costs a sync a second
            self._db.execute("PRAGMA synchronous=FULL")
            self._db.executescript(_SCHEMA)
            self._db.execute(f"PRAGMA user_version={FORMAT}")
        except sqlite3.DatabaseError as exc:
            raise EveningError(f"{path}: cannot use it as the evening's file: {exc}") from None
        except EveningError:  # said above, whole (it is an OSError too)
            raise
        except OSError as exc:
            raise EveningError(f"{path}: {exc.strerror or exc}") from None
        self.new = new
        self._pending: dict[tuple[str, str], tuple[str, float]] = {}
        self._aside_pending: dict[tuple[str, str], int | None] = {}  # None: counted again
        self._lock = threading.Lock()
        self._failing: str | None = None  # why the last save failed (said once)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    @classmethod
    def in_directory(cls, directory: Path, *, new: bool = False) -> Evening:
        """The evening file of a state directory; ``new``: move an old one aside first.

        Raises:
            EveningError: as :class:`Evening`, or the old file cannot be moved.
        """
        path = directory / FILE_NAME
        try:
            directory.mkdir(parents=True, exist_ok=True)
            lock = JournalLock.acquire(path)
        except LockHeldError as exc:
            # review 99: a second scoreboard shared the broker's client id, and each kicked
            # the other off (31 takeovers in 30 s), both pages missing events
            who = f" (pid {exc.pid})" if exc.pid is not None else ""
            raise EveningError(
                f"{path}: in use by another scoreboard{who}, which keeps this evening: stop it "
                "first, or give --state-dir another folder"
            ) from None
        except OSError as exc:
            raise EveningError(f"{path}: cannot lock it: {exc.strerror or exc}") from None
        try:
            evening = cls._opened(path, new)
        except BaseException:
            lock.release()
            raise
        evening._file_lock = lock
        return evening

    @classmethod
    def _opened(cls, path: Path, new: bool) -> Evening:
        if new and path.exists():
            stem = f"evening-{time.strftime('%Y%m%d-%H%M%S')}"
            aside = unused_name(path, stem)
            if aside is None:
                raise EveningError(
                    f"{path}: cannot move it aside: {stem}.sqlite and 9,998 more exist"
                )
            try:
                for suffix in ("", "-wal", "-shm"):  # SQLite's files go together
                    old = Path(f"{path}{suffix}")
                    if old.exists():
                        old.rename(f"{aside}{suffix}")
            except OSError as exc:
                raise EveningError(f"{path}: cannot move it aside: {exc.strerror}") from None
            log.info("the last evening is kept as %s", aside)
        return cls(path, new=new)

    def load(self, limit: int) -> list[tuple[dict[str, Any], float]]:
        """The last ``limit`` games saved, oldest first: (clean state, wall time received)."""
        rows = self._db.execute(
            "SELECT table_id, state, saved_at FROM games ORDER BY rowid DESC LIMIT ?", (limit,)
        ).fetchall()
        out = []
        for table_id, text, saved_at in reversed(rows):
            try:
                out.append((clean_state(*_saved_row(table_id, text)), _saved_at(saved_at)))
            except MessageError as exc:
                log.warning("%s: a saved game of %s is skipped: %s", self.path, table_id, exc)
        return out

    def load_aside(self) -> dict[tuple[str, str], int]:
        """The games set aside as older than the evening: (table id, game id) -> the row
        of the state that was set aside."""
        rows = self._db.execute("SELECT table_id, game_id, seq FROM aside").fetchall()
        return {
            (t, g): n
            for t, g, n in rows
            if isinstance(t, str) and isinstance(g, str) and type(n) is int
        }

    def set_aside(self, table_id: str, game_id: str, seq: int | None) -> None:
        """Keep that a game is set aside at row ``seq`` (None: counted again); written
        like a save."""
        with self._lock:
            self._aside_pending[(table_id, game_id)] = seq

    def start(self) -> Evening:
        """Start the thread that writes (else :meth:`flush` writes)."""
        self._thread = threading.Thread(target=self._run, name="evening-saver", daemon=True)
        self._thread.start()
        return self

    def save(self, state: dict[str, Any], received_at: float) -> None:
        """Keep ``state`` (a clean state); written within ``save_every_s``. Never blocks on I/O."""
        text = json.dumps(state, ensure_ascii=False, separators=(",", ":"))
        with self._lock:
            self._pending[(state["table_id"], state["game_id"])] = (text, received_at)

    def flush(self) -> None:
        """Write what is pending now (a failure is logged: the page goes on)."""
        with self._lock:
            pending, self._pending = self._pending, {}
            aside, self._aside_pending = self._aside_pending, {}
        if not pending and not aside:
            return
        try:
            with self._db:
                self._db.execute("BEGIN")
                self._db.executemany(
                    "INSERT OR REPLACE INTO games (table_id, game_id, state, saved_at) "
                    "VALUES (?, ?, ?, ?)",
                    [(t, g, text, at) for (t, g), (text, at) in pending.items()],
                )
                self._db.executemany(
                    "INSERT OR REPLACE INTO aside (table_id, game_id, seq) VALUES (?, ?, ?)",
                    [(t, g, seq) for (t, g), seq in aside.items() if seq is not None],
                )
                self._db.executemany(
                    "DELETE FROM aside WHERE table_id = ? AND game_id = ?",
                    [key for key, seq in aside.items() if seq is None],
                )
        except sqlite3.Error as exc:
            if str(exc) != self._failing:  # said once a cause: a full card fails every second
                self._failing = str(exc)
                log.warning("%s: cannot save the evening: %s", self.path, exc)
            with self._lock:
                self._pending = {**pending, **self._pending}
                self._aside_pending = {**aside, **self._aside_pending}
            return
        if self._failing is not None:
            self._failing = None
            log.info("%s: the evening is saved again", self.path)

    def _run(self) -> None:
        while not self._stop.wait(self.save_every_s):
            try:
                self.flush()
            except Exception:  # a bug in one batch must not end the evening's saving
                log.exception("%s: saving the evening failed; it goes on", self.path)

    def close(self) -> None:
        """Write what is pending and close (idempotent)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join(5)
        self.flush()
        self._db.close()
        if self._file_lock is not None:
            self._file_lock.release()

    def __enter__(self) -> Evening:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _check_columns(db: sqlite3.Connection, path: Path, table: str) -> None:
    """Refuse a ``games`` or ``aside`` table that is not the evening's (it lacks its columns).

    Raises:
        EveningError: naming the file, the table and the columns it lacks.
    """
    have = {str(row[1]) for row in db.execute(f"PRAGMA table_info({table})")}
    lacking = COLUMNS[table] - have
    if lacking:
        raise EveningError(
            f"{path}: not an evening's file (its {table} table lacks the columns "
            f"{', '.join(sorted(lacking))}): move it away, or give "
            "--state-dir another folder"
        )


def _saved_row(table_id: object, text: object) -> tuple[str, bytes]:
    """A saved row's table id and state as :func:`clean_state` takes them.

    Raises:
        MessageError: the table id or the state is not text (the row is skipped).
    """
    if not isinstance(table_id, str):
        raise MessageError(f"table_id: expected text, got {type(table_id).__name__}")
    if not isinstance(text, str):
        raise MessageError(f"state: expected JSON text, got {type(text).__name__}")
    return table_id, text.encode()


def _saved_at(value: object) -> float:
    """A saved row's ``saved_at``: a finite wall time.

    Raises:
        MessageError: anything else (the row is skipped).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise MessageError(f"saved_at: expected a wall time in seconds, got {short_repr(value)}")
    return float(value)
