"""A mark beside a journal: the game id of the game a tool started there (the demo's scratch
game, a simulated table's), so that the tool replaces that game only, never one journalled
by anything else."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from controller.storage.sqlite_file import read_only


def mark_path(journal: Path, suffix: str) -> Path:
    """Where the mark of ``journal`` lies: beside it, its name and ``suffix``."""
    return journal.with_name(journal.name + suffix)


def stored_game_id(journal: Path) -> str | None:
    """The game id a journal file (a game's or a companion's) records, read without
    writing to it; None when it is no journal this program reads."""
    try:
        with read_only(journal) as conn:
            row = conn.execute("SELECT value FROM meta WHERE key = 'game_id'").fetchone()
    except (sqlite3.Error, OSError):
        return None
    return str(row[0]) if row else None


def write_mark(journal: Path, suffix: str, game_id: str) -> None:
    """Record beside ``journal`` that the game ``game_id`` there is the marking tool's."""
    mark_path(journal, suffix).write_text(game_id + "\n", encoding="utf-8")


def marked_here(journal: Path, suffix: str) -> bool:
    """Whether the game at ``journal`` is the one its ``suffix`` mark names."""
    try:
        marked = mark_path(journal, suffix).read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return False
    return bool(marked) and marked == stored_game_id(journal)
