"""A finished game set aside, so that the next one starts at the config's journal.

``toptable run`` resumes the game its journal holds; once that game is over, the next
start begins a new one there: the finished journal is moved, with the files SQLite and
the publisher keep beside it, to a name of its own in the same folder
(``JOURNAL-GAMEID.sqlite``), where ``game check``, ``game export`` and ``dice
table-photos`` still read it; its throws' photos stay where they are
(``JOURNAL.frames/GAMEID/``). At the table, holding CONFIRM at game over stops the table,
and systemd starts it again (``Restart=always``): a season of games without a shell.
The rows of its end the broker never acknowledged are said (:func:`unpublished`), not
published: the scoreboard goes on with the next game.
"""

from __future__ import annotations

import os
import re
import sqlite3
from pathlib import Path

from controller.core.errors import TopTableError
from controller.publish.outbox import MARK_SUFFIX, AckMark, JournalReader
from controller.storage.sqlite_file import sidecars, unused_name

GAME_ID_CHARS = 12
"""The game id's characters in a finished journal's name (a uuid's first twelve)."""


class SetAsideError(TopTableError, OSError):
    """A finished game's journal cannot be moved aside (the message names both paths)."""


def _parts(journal: Path) -> tuple[Path, ...]:
    """The journal, SQLite's files beside it and its publish mark: moved together."""
    return (*sidecars(journal), journal.with_name(journal.name + MARK_SUFFIX))


def aside_name(journal: Path, game_id: str) -> Path | None:
    """A free name beside ``journal`` for its finished game ``game_id`` (None: none left)."""
    tag = re.sub(r"[^A-Za-z0-9_-]", "", game_id)[:GAME_ID_CHARS] or "game"
    return unused_name(journal, f"{journal.stem}-{tag}", _parts)


def unpublished(journal: Path, game_id: str, published: bool) -> int:
    """How many of the finished game's rows the broker never acknowledged, when the game
    is ``published`` (0: all, or it is not): set aside, nothing publishes them."""
    mark = AckMark(journal, game_id)
    if not published and not mark.path.exists():
        return 0
    reader = JournalReader(journal)
    try:  # no mark: the broker acknowledged nothing of it
        return max(0, reader.last_seq() - mark.value)
    except sqlite3.Error:
        return 0
    finally:
        reader.close()


def set_aside(journal: Path, game_id: str) -> Path:
    """Move the closed journal of the finished game ``game_id`` to :func:`aside_name`;
    return where it went.

    Raises:
        SetAsideError: it cannot be moved (a read-only folder...): the message says where
            to and why, and what to do.
    """
    target = aside_name(journal, game_id)
    if target is None:
        raise SetAsideError(f"cannot move the finished game {journal} aside: 9,999 names "
                            "beside it are taken: move it away by hand")  # fmt: skip
    try:
        for part, moved in zip(_parts(journal), _parts(target), strict=True):
            if part.exists():
                os.replace(part, moved)  # the database first: what follows is beside it
    except OSError as exc:
        raise SetAsideError(
            f"cannot move the finished game {journal} aside to {target.name}: "
            f"{exc.strerror}: move it away by hand to start the next game"
        ) from None
    return target
