"""The journal's errors, the same for every game kind (their own module, so that what a
journal records of its game's making, :mod:`controller.storage.origin`, is checked when
:mod:`controller.storage.journal` opens one).

:class:`JournalIOError` (no file, a file that cannot be created, an append or upgrade
that fails; :class:`JournalInUseError`, another writer holding the journal, is one),
:class:`JournalCorruptError` (not a journal, a row that fails its check or
does not decode, a set-up that does not read), :class:`JournalForeignError` (another
program's SQLite file), :class:`JournalVersionError` (a newer toptable's) and
:class:`WrongGameError`.
"""

from __future__ import annotations

from controller.core.errors import TopTableError


class JournalError(TopTableError):
    """Root of the journal's errors."""


class JournalVersionError(JournalError, ValueError):
    """The journal was written by a newer version of toptable."""


class JournalCorruptError(JournalError, ValueError):
    """A row does not match its checksum or does not decode, or the file is not a journal."""


class JournalForeignError(JournalCorruptError):
    """The file is another program's SQLite database, not a toptable journal."""


class WrongGameError(JournalError, ValueError):
    """The journal belongs to another game."""


class JournalIOError(JournalError, OSError):
    """The journal file cannot be created, opened, upgraded or written."""


APPEND_FAILED = "cannot append to the journal"
"""How a failed append's message begins: what follows says why."""


class JournalInUseError(JournalIOError):
    """Another toptable (or another open in this one) holds the journal open for writing."""
