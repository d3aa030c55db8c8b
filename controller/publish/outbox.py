"""The journal is the outbox: rows are read back from it, and the broker's acks noted beside it.

:class:`JournalReader` opens the game's SQLite journal read-only on its own
connection (WAL mode: a reader never blocks the game's writes) and returns rows
after a sequence number. :class:`AckMark` keeps the highest row the broker has
acknowledged (every row up to it has a PUBACK) in a small file beside the
journal (``journal.sqlite.published``), written atomically and at most every
five seconds, so a restarted table resends from there: at least once, never less.
"""

from __future__ import annotations

import json
import logging
import os
import sqlite3
import time
from pathlib import Path
from typing import NamedTuple

log = logging.getLogger(__name__)

MARK_SUFFIX = ".published"
MARK_EVERY_S = 5.0


class OutRow(NamedTuple):
    """A journal row to publish."""

    seq: int
    kind: str
    payload: str
    undoes: int | None


class JournalReader:
    """Reads a journal's rows on a read-only connection of its own (one thread uses it)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: sqlite3.Connection | None = None

    def _connection(self) -> sqlite3.Connection:
        if self._conn is None:
            uri = self.path.resolve().as_uri() + "?mode=ro"
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, timeout=0.5)
        return self._conn

    def rows_after(self, seq: int, limit: int) -> list[OutRow]:
        """Up to ``limit`` rows with a sequence number above ``seq``, in order.

        Raises:
            sqlite3.Error: the journal cannot be read (the caller retries later).
        """
        cur = self._connection().execute(
            "SELECT seq, kind, payload, undoes FROM events WHERE seq > ? ORDER BY seq LIMIT ?",
            (seq, limit),
        )
        return [OutRow(*r) for r in cur.fetchall()]

    def last_seq(self) -> int:
        """The highest row number stored (0 for none).

        Raises:
            sqlite3.Error: the journal cannot be read.
        """
        row = self._connection().execute("SELECT MAX(seq) FROM events").fetchone()
        return int(row[0] or 0)

    def close(self) -> None:
        """Close the connection (idempotent)."""
        if self._conn is not None:
            self._conn.close()
            self._conn = None


class AckMark:
    """The highest journal row the broker has acknowledged, kept beside the journal."""

    def __init__(self, journal: Path, game_id: str) -> None:
        self.path = journal.with_name(journal.name + MARK_SUFFIX)
        self.game_id = game_id
        self.value = self._read()
        self._saved = self.value
        self._saved_at = 0.0
        self._failing: str | None = None  # why the last save failed (said once)

    def _read(self) -> int:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return 0
        except (OSError, ValueError) as exc:
            log.warning("%s: unreadable, every event will be sent again: %s", self.path, exc)
            return 0
        if not isinstance(data, dict) or data.get("game_id") != self.game_id:
            return 0  # another game's mark: this game starts from its first row
        acked = data.get("acked")
        return acked if isinstance(acked, int) and acked >= 0 else 0

    def advance(self, seq: int) -> None:
        """Every row up to ``seq`` is acknowledged; saved now or within a second."""
        if seq > self.value:
            self.value = seq
        if self.value != self._saved and time.monotonic() - self._saved_at >= MARK_EVERY_S:
            self.save()

    def save(self) -> None:
        """Write the mark now (atomically); a failure is logged, never raised."""
        if self.value == self._saved:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            tmp.write_text(
                json.dumps({"game_id": self.game_id, "acked": self.value}), encoding="utf-8"
            )
            os.replace(tmp, self.path)
        except OSError as exc:
            self._saved_at = time.monotonic()  # tried again in MARK_EVERY_S, not every ack
            if exc.strerror != self._failing:  # said once a cause (a full card stays full)
                self._failing = exc.strerror
                log.warning("%s: cannot save the publish mark: %s", self.path, exc.strerror)
            return
        if self._failing is not None:
            self._failing = None
            log.info("%s: the publish mark is saved again", self.path)
        self._saved = self.value
        self._saved_at = time.monotonic()
