"""A finished game set aside, so that the next one starts at the config's journal.

``toptable run`` resumes the game its journal holds; once that game is over, the next
start begins a new one there: the finished journal is moved, with the files SQLite and
the publisher keep beside it, to a name of its own in the same folder
(``JOURNAL-GAMEID.sqlite``), where ``game check``, ``game export`` and ``dice
table-photos`` still read it; its throws' photos stay where they are
(``JOURNAL.frames/GAMEID/``). At the table, holding CONFIRM at game over stops the table,
and systemd starts it again (``Restart=always``): a season of games without a shell.
The rows of its end the broker never acknowledged (:func:`unpublished`: the broker was
away as the game ended) are published first, for a few seconds at most
(:data:`CATCH_UP_S`); what the broker still does not take is said in the log, and the
scoreboard goes on with the next game.
"""

from __future__ import annotations

import logging
import os
import re
import sqlite3
from collections.abc import Callable
from pathlib import Path

from controller.core.errors import TopTableError
from controller.daemon.publishing import finish_publishing, start_publisher
from controller.publish.link import LinkState
from controller.publish.outbox import MARK_SUFFIX, AckMark, JournalReader
from controller.publish.publisher import Publisher
from controller.publish.settings import EventsSettings
from controller.storage.sqlite_file import sidecars, unused_name

log = logging.getLogger(__name__)

CATCH_UP_S = 5.0
"""How long a start waits for the broker to take the end of a finished game it never
acknowledged, before the game is set aside (nothing publishes its rows after)."""
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


def next_after(
    journal: Path,
    game_id: str,
    events: EventsSettings | None,
    tell: Callable[[Publisher], None],
    catch_up_s: float = CATCH_UP_S,
) -> Path:
    """Set the finished game ``game_id`` in ``journal`` aside for the next game; return
    where it went. When ``events`` publishes the table and the broker never acknowledged
    the game's end, its rows are published first (``tell``: gives the publisher the
    game's last state), for up to ``catch_up_s`` s unless the broker's first answer is
    not to connect; what it still does not take is said.

    Raises:
        SetAsideError: it cannot be moved aside.
    """
    unsent = unpublished(journal, game_id, events is not None)
    if unsent and events is not None:
        publisher = start_publisher(events, journal, game_id)
        if publisher is not None:
            tell(publisher)
            # a broker that answers at once takes the rest; one that is down is not waited for
            reached = publisher.wait_link(catch_up_s).state is LinkState.CONNECTED
            finish_publishing(publisher, catch_up_s if reached else 0.0)
            unsent = unpublished(journal, game_id, True)
    aside = set_aside(journal, game_id)
    log.info("the game in %s is over: kept as %s; the next game starts", journal, aside.name)
    if unsent:
        log.warning("the scoreboard never had the last %d events of that game (the broker "
                    "did not acknowledge them): its end is in %s only", unsent, aside.name)  # fmt: skip
    return aside
