"""The game journal: every event appended to SQLite before anything acts on it.

One file per game, stored by the shared hash-chained log
(:mod:`controller.game.chained_log`): WAL mode and ``synchronous=FULL``, so a
committed event survives a crash or a pulled plug; each append is one
transaction, so a row is never half-written. Each row carries a hash chained to
the previous row's, so a changed, removed or reordered row is detected when the
journal is opened. The ``meta`` table holds the schema version, the game id and
the game's set-up; each row's payload is the event's dict.

The file knows itself: SQLite's ``application_id`` marks it as a toptable
journal and ``user_version`` is its format version, reached by the ordered
migrations of :mod:`controller.game.journal_schema`. A journal from an older
toptable is migrated when opened (rows untouched); one from a newer toptable, or
another program's SQLite file, is refused with one line naming the file.

Undo never deletes: it appends a marker row naming the row it cancels; the
effective events (what the game folds) skip both.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from controller.core.errors import TopTableError
from controller.game.chained_log import UNDO_KIND, ChainedLog, ChainedRow, Stamp
from controller.game.events import CLOCK_KINDS, EventDecodeError, GameEvent, event_from_dict
from controller.game.journal_schema import (
    APPLICATION_ID,
    JOURNAL_VERSION,
    META_SCHEMA_VERSION,
    migrate,
)

# The ``meta`` table's schema_version (the first release's check); the file's
# format version is ``PRAGMA user_version`` (JOURNAL_VERSION).
SCHEMA_VERSION = META_SCHEMA_VERSION


class JournalError(TopTableError):
    """Root of the journal's errors."""


class JournalVersionError(JournalError, ValueError):
    """The journal was written by a newer version of toptable."""


class JournalCorruptError(JournalError, ValueError):
    """A row does not match its checksum, or the file is not a journal."""


class JournalForeignError(JournalCorruptError):
    """The file is another program's SQLite database, not a toptable journal."""


class WrongGameError(JournalError, ValueError):
    """The journal belongs to another game."""


class JournalIOError(JournalError, OSError):
    """The journal file cannot be created or opened."""


@dataclass(frozen=True)
class Row(ChainedRow):
    """One journal row as stored."""

    def event(self) -> GameEvent:
        """The event this row holds.

        Raises:
            JournalCorruptError: the payload does not decode.
        """
        try:
            return event_from_dict(json.loads(self.payload))
        except (json.JSONDecodeError, EventDecodeError) as exc:
            raise JournalCorruptError(f"journal row {self.seq}: {exc}") from None


class Journal(ChainedLog[Row]):
    """An open game journal. Use :meth:`create` or :meth:`open`; close it (or use ``with``)."""

    NOUN = "toptable journal"
    APPLICATION_ID = APPLICATION_ID
    FORMAT_VERSION = JOURNAL_VERSION
    ACCEPTS_UNSTAMPED = True  # a first-release journal, migrated when opened
    RESUME_HINT = "open it to resume"
    Error: ClassVar[type[Exception]] = JournalError
    StorageError: ClassVar[type[Exception]] = JournalIOError
    CorruptError: ClassVar[type[Exception]] = JournalCorruptError

    def __init__(
        self, conn: sqlite3.Connection, path: Path, game_id: str, setup: dict[str, Any]
    ) -> None:
        super().__init__(conn, path, game_id, Row)
        self.game_id = game_id
        self.setup = setup

    @classmethod
    def _foreign(cls, path: Path, stamp: Stamp) -> Exception:
        expected = f"expected a toptable journal (SQLite application_id 0x{APPLICATION_ID:08X})"
        if stamp.application_id != 0:
            return JournalForeignError(
                f"{path}: not a toptable journal: its SQLite application_id "
                f"0x{stamp.application_id & 0xFFFFFFFF:08X} is another program's; {expected}"
            )
        return JournalForeignError(f"{path}: not a toptable journal: {expected}")

    @classmethod
    def _newer(cls, path: Path, version: int) -> Exception:
        return JournalVersionError(
            f"{path}: journal format version {version} is newer than this "
            f"toptable's ({JOURNAL_VERSION}); upgrade toptable to resume this game"
        )

    @classmethod
    def _migrate(cls, conn: sqlite3.Connection, version: int) -> int:
        return migrate(conn, version)

    # ----------------------------------------------------------- opening
    @classmethod
    def create(cls, path: str | Path, setup: dict[str, Any], game_id: str | None = None) -> Journal:
        """Create a new journal for a game set up with ``setup`` (a JSON-able dict).

        Raises:
            JournalIOError: the file exists already or cannot be created.
        """
        path = Path(path)
        gid = game_id or uuid.uuid4().hex
        meta = [
            ("schema_version", str(SCHEMA_VERSION)),
            ("game_id", gid),
            ("setup", json.dumps(setup, sort_keys=True)),
        ]
        return cls(cls._create_file(path, meta), path, gid, setup)

    @classmethod
    def open(cls, path: str | Path, game_id: str | None = None) -> Journal:
        """Open an existing journal and check every row.

        Raises:
            JournalIOError: no such file, or an older journal that cannot be upgraded.
            JournalVersionError: written by a newer toptable.
            WrongGameError: ``game_id`` is given and the journal is another game's.
            JournalForeignError: another program's SQLite file.
            JournalCorruptError: not a journal, or a row that fails its check.
        """

        def build(conn: sqlite3.Connection, path: Path, meta: dict[str, str]) -> Journal:
            try:
                version = int(meta.get("schema_version", ""))
                setup = json.loads(meta["setup"])
                gid = meta["game_id"]
            except (ValueError, KeyError):
                raise JournalCorruptError(f"{path}: the journal's meta table is damaged") from None
            if version > SCHEMA_VERSION:
                raise JournalVersionError(
                    f"{path}: journal schema version {version} is newer than this toptable's "
                    f"({SCHEMA_VERSION}); upgrade toptable to resume this game"
                )
            if game_id is not None and gid != game_id:
                raise WrongGameError(f"{path}: this journal is game {gid}, not game {game_id}")
            return cls(conn, path, gid, setup)

        return cls._open_file(path, build)

    # ----------------------------------------------------------- writing
    def append(self, event: GameEvent) -> int:
        """Append ``event`` durably (one committed transaction); return its row number.

        Raises:
            JournalIOError: the write failed (nothing was written).
        """
        return self._append_row(event.kind, event.to_dict()).seq

    def undo(self) -> GameEvent:
        """Cancel the last effective event, which must be a player action; return it.

        The clock's events (a pause, a resume) are stepped over: they stay.

        Raises:
            JournalError: nothing to undo, or the last event is an input (a die's
                result is not undone: journal a correction instead).
        """
        live = [r for r in self._effective_rows() if r.kind not in CLOCK_KINDS]
        if not live:
            raise JournalError("nothing to undo")
        last = live[-1]
        event = last.event()
        if not event.is_action:
            raise JournalError(
                f"the last event is a {event.kind} input, not a player action: it is not undone "
                "(if the read was wrong, journal a correction)"
            )
        self._cancel(last)
        return event

    # ----------------------------------------------------------- reading
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


__all__ = [
    "SCHEMA_VERSION",
    "UNDO_KIND",
    "Journal",
    "JournalCorruptError",
    "JournalError",
    "JournalForeignError",
    "JournalIOError",
    "JournalVersionError",
    "Row",
    "WrongGameError",
]
