"""The game journal: every event appended to SQLite before anything acts on it.

One file per game, a journal of :mod:`controller.storage` (the hash-chained log
every game kind's journal uses): WAL mode and ``synchronous=FULL``, so a
committed event survives a crash or a pulled plug; each append is one
transaction, so a row is never half-written. Each row carries a hash chained to
the previous row's, so a changed, removed or reordered row is detected when the
journal is opened. The ``meta`` table holds the schema version, the game id and
the game's set-up, and once the game is over the row that ended it as played; each
row's kind is the event's and its payload the event's dict.

The file knows itself: SQLite's ``application_id`` marks it as a toptable
journal and ``user_version`` is its format version, reached by the ordered
migrations of :mod:`controller.game.journal_schema`. A journal from an older
toptable is migrated when opened (rows untouched); one from a newer toptable, or
another program's SQLite file, is refused with one line naming the file.

Undo never deletes: it appends a marker row naming the row it cancels; the
effective events (what the game folds) skip both.
"""

from __future__ import annotations

import itertools
import sqlite3
from collections.abc import Collection, Mapping
from typing import Any

from controller.core.kinds import GameKind
from controller.core.quoting import short_repr
from controller.game.events import CLOCK_KINDS, EventDecodeError, GameEvent, event_from_dict
from controller.game.journal_schema import (
    APPLICATION_ID,
    JOURNAL_VERSION,
    META_SCHEMA_VERSION,
    migrate,
)
from controller.storage.journal import (
    EventJournal,
    JournalCorruptError,
    JournalError,
    JournalForeignError,
    JournalIOError,
    JournalVersionError,
    Row,
    WrongGameError,
)
from controller.storage.rows import UNDO_KIND
from controller.storage.sqlite_file import settle_into_file

# The ``meta`` table's schema_version (the first release's check); the file's
# format version is ``PRAGMA user_version`` (JOURNAL_VERSION).
SCHEMA_VERSION = META_SCHEMA_VERSION
OVER_KEY = "over_at"
"""The ``meta`` key holding the row that ended the game, as played: the data it was
played with is not kept, so a start after the data changed knows the end from it."""


class NothingToUndoError(JournalError):
    """Undo with no player action journalled."""


class InputNotUndoneError(JournalError):
    """Undo met an input (a throw, a die's result, who drafts first): it stands; a throw
    or a die is corrected instead. ``event`` is that input."""

    def __init__(self, message: str, event: GameEvent) -> None:
        super().__init__(message)
        self.event = event


class Journal(EventJournal[GameEvent]):
    """An open game journal. Use :meth:`create` or :meth:`open`; close it (or use ``with``)."""

    NOUN = "toptable journal"
    APPLICATION_ID = APPLICATION_ID
    FORMAT_VERSION = JOURNAL_VERSION
    META_SCHEMA_VERSION = SCHEMA_VERSION
    ACCEPTS_UNSTAMPED = True  # a first-release journal, migrated when opened
    RESUME_HINT = "open it to resume"

    @classmethod
    def _other_kind(cls, kind: GameKind) -> str | None:
        """A companion game's journal, named as one (it keeps no dice throws)."""
        if kind.plays_dice:
            return None
        return (
            f"a {kind.value} companion game's journal, not a Tournament of Power game's "
            "(tournament or story mode): it keeps no dice throws or frames"
        )

    @classmethod
    def _migrate(cls, conn: sqlite3.Connection, version: int) -> int:
        return migrate(conn, version)

    def encode(self, event: GameEvent) -> tuple[str, Mapping[str, Any]]:
        """An event is stored under its kind, as its dict."""
        return event.kind, event.to_dict()

    def decode(self, row: Row) -> GameEvent:
        """The event a row holds.

        Raises:
            JournalCorruptError: the payload does not decode, or is another kind's
                than the row's (the message names the file and the row).
        """
        try:
            event = event_from_dict(row.data(self.path))
        except EventDecodeError as exc:
            raise JournalCorruptError(f"{self.path}: row {row.seq}: {exc}") from None
        if event.kind != row.kind:
            raise JournalCorruptError(
                f"{self.path}: row {row.seq} is stored as {short_repr(row.kind)} but holds "
                f"a {event.kind!r} event"
            )
        return event

    def undo(self, with_inputs: Collection[str] = ()) -> GameEvent:
        """Cancel the last effective event, which must be a player action; return it.

        The clock's events (a pause, a resume) are stepped over: they stay. Inputs of the
        kinds ``with_inputs`` that follow the action (the decks the table shuffled once
        the last warrior was drafted) are cancelled with it, the latest first.

        Raises:
            NothingToUndoError: nothing to undo.
            InputNotUndoneError: the last event is an input (a die's result is not
                undone: journal a correction instead).
        """
        rows = self._plays_latest_first()
        following = list(itertools.takewhile(lambda r: r.kind in with_inputs, rows))
        if len(rows) == len(following):
            raise NothingToUndoError(f"{self.path}: nothing to undo")
        last = rows[len(following)]
        event = self.decode(last)
        if not event.is_action:
            raise InputNotUndoneError(
                f"{self.path}: the last event is a {event.kind} input, not a player action: it "
                "is not undone "
                "(if the read was wrong, journal a correction)",
                event,
            )
        self._cancel(*following, last)  # all or none: a journal half undone does not replay
        return event

    def mark_over(self, seq: int) -> None:
        """Record that row ``seq`` ended the game, as played (see :meth:`over_as_played`).

        Raises:
            JournalIOError: the write failed.
        """
        try:
            self.conn.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (OVER_KEY, str(seq)))
        except sqlite3.Error as exc:
            raise JournalIOError(f"{self.path}: the game's end not recorded: {exc}") from None
        settle_into_file(self.conn)

    def over_as_played(self) -> bool:
        """Whether the game ended as it was played: its last effective row (the clock's
        passed over) is the one :meth:`mark_over` recorded, nothing undone or corrected
        after it. False for a journal from before the record."""
        try:
            kept = self.conn.execute("SELECT value FROM meta WHERE key = ?", (OVER_KEY,))
            row = kept.fetchone()
        except sqlite3.Error:
            return False
        plays = self._plays_latest_first()
        return row is not None and bool(plays) and str(row[0]) == str(plays[0].seq)

    def _plays_latest_first(self) -> list[Row]:
        """The effective rows but the clock's (a pause, a resume), the latest first."""
        return [r for r in reversed(self._effective_rows()) if r.kind not in CLOCK_KINDS]


__all__ = [
    "SCHEMA_VERSION",
    "UNDO_KIND",
    "InputNotUndoneError",
    "Journal",
    "JournalCorruptError",
    "JournalError",
    "JournalForeignError",
    "JournalIOError",
    "JournalVersionError",
    "NothingToUndoError",
    "Row",
    "WrongGameError",
]
