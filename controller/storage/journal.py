"""A game's journal: its typed events on the chained log, with the game's id and set-up.

Every game kind keeps one (the dice game's :mod:`controller.game.journal`, the
companion modes' :mod:`controller.companion.journal`); they share everything but
what they store. A journal file holds, in the log's ``meta`` table, the game's id
(``game_id``, which also seeds the row chain) and its set-up (``setup``, a JSON
object), and one row per event: the event is *encoded* to the row's kind and a JSON
payload (:meth:`EventJournal.encode`) and *decoded* back when read
(:meth:`EventJournal.decode`). A subclass names its file (noun, SQLite
``application_id``, migrations), its encoding and its undo rule.

The errors are the same for every kind (:mod:`controller.storage.errors`, exported
here too). Opening a journal checks what its set-up records of the game's making
(:class:`~controller.storage.origin.Origin`): a seed or fingerprint of the wrong
type is a damaged set-up, not an absent one.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, Self, TypeVar

from controller.core.kinds import GameKind
from controller.storage.chained_log import ChainedLog
from controller.storage.errors import (
    JournalCorruptError,
    JournalError,
    JournalForeignError,
    JournalInUseError,
    JournalIOError,
    JournalVersionError,
    WrongGameError,
)
from controller.storage.origin import Origin
from controller.storage.place import place_problem
from controller.storage.rows import ChainedRow
from controller.storage.sqlite_file import Stamp, read_only


def journal_exists(path: Path) -> bool:
    """Whether something is at ``path`` (a journal, or what would stop one being made).

    Raises:
        JournalIOError: ``path`` cannot be reached (a folder above it is closed to this user).
    """
    try:
        return path.exists()
    except OSError as exc:
        raise JournalIOError(place_problem(path, exc)) from None


@dataclass(frozen=True)
class Row(ChainedRow):
    """One journal row as stored."""

    def data(self, source: str | Path = "journal") -> dict[str, Any]:
        """The row's JSON payload; ``source`` (the journal's path) begins the messages.

        Raises:
            JournalCorruptError: the payload is not a JSON object.
        """
        try:
            value = json.loads(self.payload)
        except json.JSONDecodeError as exc:
            raise JournalCorruptError(f"{source}: row {self.seq}: {exc}") from None
        if not isinstance(value, dict):
            raise JournalCorruptError(f"{source}: row {self.seq}: not a JSON object")
        return value


def _kind_in_setup(path: Path) -> GameKind | None:
    """The game kind the set-up of the journal at ``path`` names, read without writing
    (a toptable journal of any kind: the set-up's ``mode``); None when it names none or
    the file holds no set-up to read. Nothing is raised."""
    try:
        with read_only(path) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'setup'").fetchone()
        setup = json.loads(row[0]) if row is not None else None
        return GameKind(str(setup.get("mode"))) if isinstance(setup, dict) else None
    except (sqlite3.Error, OSError, TypeError, ValueError, RecursionError):
        return None


E = TypeVar("E")


class EventJournal(ChainedLog[Row], Generic[E]):
    """An open journal of events of type ``E``: :meth:`create` or :meth:`open`, then
    :meth:`close` (or ``with``).

    Subclasses set :attr:`NOUN`, :attr:`APPLICATION_ID`, :attr:`MIGRATIONS` and
    :attr:`FORMAT_VERSION` (and :attr:`META_SCHEMA_VERSION` if their ``meta`` table
    carries one), and define :meth:`encode` and :meth:`decode`.
    """

    Error: ClassVar[type[Exception]] = JournalError
    StorageError: ClassVar[type[Exception]] = JournalIOError
    InUseError: ClassVar[type[Exception]] = JournalInUseError
    CorruptError: ClassVar[type[Exception]] = JournalCorruptError
    META_SCHEMA_VERSION: ClassVar[int | None] = None
    """A ``schema_version`` meta row, written and checked (None: the kind has none)."""
    MAKE_PARENT: ClassVar[bool] = False
    """Whether :meth:`create` makes the file's folder when it is missing."""

    def __init__(
        self, conn: sqlite3.Connection, path: Path, game_id: str, setup: dict[str, Any]
    ) -> None:
        super().__init__(conn, path, game_id, Row)
        self.game_id = game_id
        self.setup = setup

    # ----------------------------------------------------------- the events' encoding
    def encode(self, event: E) -> tuple[str, Mapping[str, Any]]:
        """The row kind and JSON payload that store ``event``."""
        raise NotImplementedError

    def decode(self, row: Row) -> E:
        """The event a (non-marker) row stores.

        Raises:
            JournalCorruptError: the row does not decode.
        """
        raise NotImplementedError

    # ----------------------------------------------------------- wording
    @classmethod
    def _other_kind(cls, kind: GameKind) -> str | None:
        """What the refusal of another kind's journal, holding a ``kind`` game, says it is
        (None: ``kind`` is not another kind's game, and the file another program's)."""
        return None

    @classmethod
    def _foreign(cls, path: Path, stamp: Stamp) -> Exception:
        expected = f"expected a {cls.NOUN} (SQLite application_id 0x{cls.APPLICATION_ID:08X})"
        kind = _kind_in_setup(path)
        other = None if kind is None else cls._other_kind(kind)
        if other is not None:
            return JournalForeignError(f"{path}: {other}")
        if stamp.application_id != 0:
            return JournalForeignError(
                f"{path}: not a {cls.NOUN}: its SQLite application_id "
                f"0x{stamp.application_id & 0xFFFFFFFF:08X} is another program's; {expected}"
            )
        return JournalForeignError(f"{path}: not a {cls.NOUN}: {expected}")

    @classmethod
    def _newer(cls, path: Path, version: int) -> Exception:
        return JournalVersionError(
            f"{path}: journal format version {version} is newer than this "
            f"toptable's ({cls.FORMAT_VERSION}); upgrade toptable to resume this game"
        )

    # ----------------------------------------------------------- opening
    @classmethod
    def create(cls, path: str | Path, setup: dict[str, Any], game_id: str | None = None) -> Self:
        """Create a new journal for a game set up with ``setup`` (a JSON-able dict).

        Raises:
            JournalIOError: the file exists already or cannot be created.
            JournalInUseError: another toptable holds the journal (making it, or playing it).
        """
        path = Path(path)
        gid = game_id or uuid.uuid4().hex
        meta = [("game_id", gid), ("setup", json.dumps(setup, sort_keys=True))]
        if cls.META_SCHEMA_VERSION is not None:
            meta.insert(0, ("schema_version", str(cls.META_SCHEMA_VERSION)))
        conn, lock = cls._create_file(path, meta, make_parent=cls.MAKE_PARENT)
        return cls(conn, path, gid, setup)._hold(lock)

    @classmethod
    def open(cls, path: str | Path, game_id: str | None = None, writable: bool = True) -> Self:
        """Open an existing journal, check every row and bring its format up to date
        (not ``writable``: a look that writes nothing, the file read as it is). Opened for
        writing, it is this process's alone until closed (another writer is refused).

        Raises:
            JournalIOError: no such file, or an older journal that cannot be upgraded.
            JournalInUseError: (``writable``) another toptable holds the journal.
            JournalVersionError: written by a newer toptable.
            WrongGameError: ``game_id`` is given and the journal is another game's.
            JournalForeignError: another program's SQLite file.
            JournalCorruptError: not a journal, a row that fails its check, or a set-up
                whose seed or data-set fingerprint is of the wrong type.
        """
        return cls._open_file(
            path, lambda conn, p, meta: cls._from_meta(conn, p, meta, game_id), writable
        )

    @classmethod
    def _from_meta(
        cls, conn: sqlite3.Connection, path: Path, meta: dict[str, str], game_id: str | None
    ) -> Self:
        """The journal of an opened file, from its ``meta`` rows (checked; a file of a
        format that kept the game id in its set-up has it read from there, before the
        migration that gives it its own row)."""
        try:
            setup = json.loads(meta["setup"])
            gid = meta["game_id"] if "game_id" in meta else str(setup["game_id"])
            versioned = cls.META_SCHEMA_VERSION is not None
            version = int(meta["schema_version"]) if versioned else 0
        except (ValueError, KeyError, TypeError):
            raise JournalCorruptError(f"{path}: the journal's meta table is damaged") from None
        if not isinstance(setup, dict):
            raise JournalCorruptError(f"{path}: the journal's set-up is not a JSON object")
        Origin.from_setup(setup, path)  # its seed and fingerprint read, or refused
        if cls.META_SCHEMA_VERSION is not None and version > cls.META_SCHEMA_VERSION:
            raise JournalVersionError(
                f"{path}: journal schema version {version} is newer than this toptable's "
                f"({cls.META_SCHEMA_VERSION}); upgrade toptable to resume this game"
            )
        if game_id is not None and gid != game_id:
            raise WrongGameError(f"{path}: this journal is game {gid}, not game {game_id}")
        return cls(conn, path, gid, setup)

    # ----------------------------------------------------------- writing
    def append(self, event: E) -> int:
        """Append ``event`` durably (one committed transaction); return its row number.

        Raises:
            JournalIOError: the write failed (nothing was written).
        """
        kind, data = self.encode(event)
        return self._append_row(kind, data).seq

    def _last_effective(self, undoable: Callable[[Row], bool]) -> Row | None:
        """The last effective row for which ``undoable`` holds (None: there is none)."""
        return next((r for r in reversed(self._effective_rows()) if undoable(r)), None)

    # ----------------------------------------------------------- reading
    def events(self) -> list[E]:
        """The effective events, in order (undone ones and undo markers left out).

        Raises:
            JournalCorruptError: a row that does not decode.
        """
        return [self.decode(r) for r in self._effective_rows()]

    def rows(self) -> tuple[Row, ...]:
        """Every stored row, undo markers included."""
        return tuple(self._rows)

    def __len__(self) -> int:
        """How many rows are stored (the last row's number: rows are numbered 1, 2, 3...)."""
        return len(self._rows)


__all__ = [
    "EventJournal",
    "JournalCorruptError",
    "JournalError",
    "JournalForeignError",
    "JournalIOError",
    "JournalInUseError",
    "JournalVersionError",
    "Row",
    "WrongGameError",
    "journal_exists",
]
