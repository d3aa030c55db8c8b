"""The journal file's identity and format version, and the ordered migrations between versions.

SQLite keeps two integers in a database file's header for exactly this:

- ``PRAGMA application_id`` says which program's file it is. A toptable journal
  carries :data:`APPLICATION_ID`; ``file(1)`` and anyone else can tell it apart
  from another program's SQLite file.
- ``PRAGMA user_version`` is the journal format version: the number of
  :data:`MIGRATIONS` applied to the file.

Version 0 is the layout the first release wrote (a ``meta`` table and an
``events`` table, neither header field set). Every journal, new or old, reaches
the current version by the same ordered migrations: :func:`create_layout` makes
the version-0 tables, then :func:`migrate` applies each migration the file has
not had yet, inside the caller's transaction. A migration never changes the
rows an older reader expects: a new version only adds.

The mechanics (the tables, reading the header, applying steps) are the shared
log's, :mod:`controller.storage.chained_log`; this module holds the dice journal's
identity and steps. It only reads and writes SQLite; the journal turns what it
finds into errors (see :mod:`controller.game.journal`).
"""

from __future__ import annotations

import sqlite3

from controller.storage.rows import create_layout
from controller.storage.sqlite_file import (
    Migration,
    Stamp,
    migrate_from,
    read_stamp,
    stamp_application_id,
)

# "TopT" in ASCII: the toptable journal's SQLite application id (a signed 32-bit value).
APPLICATION_ID = 0x546F7054

# The ``meta`` row the first release reads: it refuses a journal whose value is
# above its own (1), so it stays 1 while the rows keep the first release's format.
META_SCHEMA_VERSION = 1

MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "stamp the file as a toptable journal (application_id); rows unchanged",
        stamp_application_id(APPLICATION_ID),
    ),
)

# The format version this toptable writes and reads.
JOURNAL_VERSION = len(MIGRATIONS)


def pending(version: int) -> tuple[Migration, ...]:
    """The migrations a file at ``version`` still needs, in order."""
    return tuple(m for m in MIGRATIONS if m.version > version)


def migrate(conn: sqlite3.Connection, version: int) -> int:
    """Apply every migration after ``version`` (inside the caller's transaction).

    Returns the new version (:data:`JOURNAL_VERSION`). Each step sets
    ``user_version``, so a file is always at a version it really has.
    """
    return migrate_from(conn, MIGRATIONS, version)


__all__ = [
    "APPLICATION_ID",
    "JOURNAL_VERSION",
    "META_SCHEMA_VERSION",
    "MIGRATIONS",
    "Migration",
    "Stamp",
    "create_layout",
    "migrate",
    "pending",
    "read_stamp",
]
