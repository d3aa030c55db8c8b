"""The journal of a companion game: every action in SQLite before the table acts on it.

It is stored by the log the dice journal is (:mod:`controller.game.chained_log`, under
:mod:`controller.game.journal`), so it keeps the same habits: one file per game,
WAL mode and ``synchronous=FULL`` (a committed row survives a pulled plug), one
transaction per row, rows hash-chained to the previous one (a changed, removed or
reordered row is found on opening), undo that never deletes (a marker row names the row
it cancels), and a ``meta`` table with the game's set-up. Resuming replays the effective
actions through the mode's pure rules.

Its own file format rather than the dice journal's: that one stores the dice game's
typed events (``GameEvent``; its undo and reading decode every row as one), while a
companion game stores each mode's actions in their JSON form (``{"do": ...}``), and
actions the rules refused (journalled too, never replayed). The SQLite
``application_id`` differs, so neither journal opens the other's file by mistake.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from controller.core.errors import TopTableError
from controller.game.chained_log import (
    UNDO_KIND,
    ChainedLog,
    ChainedRow,
    Migration,
    stamp_application_id,
)

APPLICATION_ID = 0x54744370  # "TtCp"
MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "stamp the file as a companion journal", stamp_application_id(APPLICATION_ID)),
)
FORMAT_VERSION = len(MIGRATIONS)
ACTION = "action"
REFUSED = "refused"
UNDO = UNDO_KIND


class CompanionJournalError(TopTableError):
    """The companion journal cannot be created, opened, read or written."""


@dataclass(frozen=True)
class JournalRow(ChainedRow):
    """One stored row: an action, a refused action or an undo marker."""

    @property
    def data(self) -> dict[str, Any]:
        """The row's JSON payload."""
        value = json.loads(self.payload)
        assert isinstance(value, dict)
        return value


class CompanionJournal(ChainedLog[JournalRow]):
    """An open companion journal; :meth:`create` or :meth:`open`, then :meth:`close`."""

    NOUN = "companion journal"
    APPLICATION_ID = APPLICATION_ID
    FORMAT_VERSION = FORMAT_VERSION
    MIGRATIONS = MIGRATIONS
    RESUME_HINT = "resume it"
    Error: ClassVar[type[Exception]] = CompanionJournalError
    StorageError: ClassVar[type[Exception]] = CompanionJournalError
    CorruptError: ClassVar[type[Exception]] = CompanionJournalError

    def __init__(self, conn: sqlite3.Connection, path: Path, setup: dict[str, Any]) -> None:
        game_id = str(setup["game_id"])
        super().__init__(conn, path, game_id, JournalRow)
        self.setup = setup
        self.game_id = game_id

    @classmethod
    def _unreadable(cls, path: Path, exc: Exception) -> Exception:
        return CompanionJournalError(f"{path}: the journal is damaged ({exc})")

    @classmethod
    def _bad_row(cls, path: Path, seq: int) -> Exception:
        return CompanionJournalError(f"{path}: row {seq} fails its check")

    @classmethod
    def create(
        cls,
        path: str | Path,
        mode: str,
        players: list[str],
        data: dict[str, Any] | None = None,
    ) -> CompanionJournal:
        """A new journal for a ``mode`` game of ``players`` (``data``: the mode's overrides).

        Raises:
            CompanionJournalError: the file exists already or cannot be written.
        """
        path = Path(path)
        setup = {"mode": mode, "players": players, "data": data, "game_id": uuid.uuid4().hex}
        conn = cls._create_file(path, [("setup", json.dumps(setup))], make_parent=True)
        return cls(conn, path, setup)

    @classmethod
    def open(cls, path: str | Path) -> CompanionJournal:
        """Open a journal to resume its game, checking every row.

        Raises:
            CompanionJournalError: no such file, not a companion journal, a newer format,
                or a row that fails its check.
        """

        def build(conn: sqlite3.Connection, path: Path, meta: dict[str, str]) -> CompanionJournal:
            try:
                setup = json.loads(meta["setup"])
            except (KeyError, ValueError) as exc:
                raise cls._unreadable(path, exc) from None
            return cls(conn, path, setup)

        return cls._open_file(path, build)

    def append(self, action: dict[str, Any]) -> int:
        """Journal an action (its JSON form) durably; return its row number."""
        return self._append_row(ACTION, action).seq

    def refused(self, action: dict[str, Any], rule: str, reason: str) -> int:
        """Journal an action the rules refused (kept for the record, never replayed)."""
        return self._append_row(REFUSED, {"action": action, "rule": rule, "reason": reason}).seq

    def undo(self) -> dict[str, Any] | None:
        """Cancel the last effective action; return it (None if there is none)."""
        live = self._effective_rows(ACTION)
        if not live:
            return None
        self._cancel(live[-1])
        return live[-1].data

    def actions(self) -> list[dict[str, Any]]:
        """The effective actions in order (undone and refused ones left out)."""
        return [r.data for r in self._effective_rows(ACTION)]

    def rows(self) -> tuple[JournalRow, ...]:
        """Every stored row."""
        return tuple(self._rows)

    def __len__(self) -> int:
        """How many rows are stored (the last row's number: rows are numbered 1, 2, 3...)."""
        return len(self._rows)
