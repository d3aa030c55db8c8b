"""The demo's scratch journal (``journal.sqlite`` in its output folder): a mark beside it
records the game the demo started there, so that the next demo replaces that game only,
never one journalled by anything else (the daemon's own journal is ``journal.sqlite``
too, in ``/var/lib/toptable``)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.storage.sqlite_file import read_only

MARK_SUFFIX = ".demo"


def mark_path(journal: Path) -> Path:
    """Where the mark of ``journal`` lies: beside it, its name and ``.demo``."""
    return journal.with_name(journal.name + MARK_SUFFIX)


def stored_game_id(journal: Path) -> str | None:
    """The game id a journal file (a game's or a companion's) records, read without
    writing to it; None when it is no journal this program reads."""
    try:
        with read_only(journal) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'game_id'").fetchone()
    except (sqlite3.Error, OSError):
        return None
    return str(row[0]) if row else None


def mark_as_scratch(journal: Path) -> None:
    """Record that the demo started the game journalled at ``journal``."""
    game_id = stored_game_id(journal)
    if game_id is not None:
        mark_path(journal).write_text(game_id + "\n", encoding="utf-8")


def started_here(journal: Path) -> bool:
    """Whether the game at ``journal`` is the one the demo marked as its scratch game."""
    try:
        marked = mark_path(journal).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return False
    return bool(marked) and marked == stored_game_id(journal)
