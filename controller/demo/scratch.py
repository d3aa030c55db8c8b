"""The demo's scratch journal (``journal.sqlite`` in its output folder): a mark beside it
records the game the demo started there, so that the next demo replaces that game only,
never one journalled by anything else (the daemon's own journal is ``journal.sqlite``
too, in ``/var/lib/toptable``). The mark is :mod:`controller.storage.marks`'s."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from controller.storage import marks
from controller.storage.lock import JournalLock, LockHeldError

MARK_SUFFIX = ".demo"
JOURNAL_NAME = "journal.sqlite"  # the dice game's journal in the demo's output folder


def mark_path(journal: Path) -> Path:
    """Where the mark of ``journal`` lies: beside it, its name and ``.demo``."""
    return marks.mark_path(journal, MARK_SUFFIX)


def mark_as_scratch(journal: Path) -> None:
    """Record that the demo started the game journalled at ``journal``."""
    game_id = marks.stored_game_id(journal)
    if game_id is not None:
        marks.write_mark(journal, MARK_SUFFIX, game_id)


def started_here(journal: Path) -> bool:
    """Whether the game at ``journal`` is the one the demo marked as its scratch game."""
    return marks.marked_here(journal, MARK_SUFFIX)


@contextmanager
def marked_when_made(journal: Path, scratch: bool) -> Iterator[None]:
    """Around the demo's start and game: a ``scratch`` journal the demo made is marked as
    its own however the demo ends, even when its start fails after making it (a broker
    that refuses it): the same command run again then replaces it, where it was refused
    as a game the demo did not start. A journal that was there before, or that another
    process holds (one started beside it on the same path), is not the demo's to mark."""
    made_here = scratch and marks.stored_game_id(journal) is None
    try:
        yield
    finally:
        if made_here and not started_here(journal) and not _held_elsewhere(journal):
            mark_as_scratch(journal)  # nothing when no journal was made


def _held_elsewhere(journal: Path) -> bool:
    """Whether another process holds ``journal``'s lock (it is that process's game)."""
    try:
        JournalLock.acquire(journal).release()
    except LockHeldError:
        return True
    except OSError:  # the lock cannot even be made: leave the journal unmarked
        return True
    return False
