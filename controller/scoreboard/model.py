"""What the scoreboard knows: each table's latest state, its event stream, the standings.

:meth:`Scoreboard.handle` drops (with a logged warning, rate-limited) a message
that fails the checks of :mod:`.checks`. Events are deduplicated and put back in
order by (game_id, seq) (:mod:`.streams`): a duplicate is counted and dropped, an
event ahead of a gap waits until the gap fills, and ``missing`` lists the
numbers still absent. The standings of the evening
(:func:`~controller.scoreboard.standings.standings`) rank the players of every game seen:

1. games won (a finished game's winners; a shared win counts for each),
2. then warriors left standing, summed over the player's games (live for a game
   in progress, final for a finished one),
3. then endurance left, summed the same way,
4. then the name, alphabetically; equal figures share a rank.

A companion game's winner counts as a game won; its players add nothing to warriors
or endurance left (see :mod:`.standings`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from typing import Any

from controller.publish.messages import OFFLINE, ONLINE, ROOT
from controller.publish.settings import is_table_id
from controller.scoreboard.checks import MessageError, clean_event, clean_state
from controller.scoreboard.standings import standings
from controller.scoreboard.streams import EventLog, TableFeed

log = logging.getLogger(__name__)

MAX_TABLES = 200  # tables shown at most (a broker full of topics must not grow memory)
MAX_GAMES = 2000  # games remembered for the standings (oldest dropped first)
WARN_EVERY_S = 10.0
GAMES_PER_TABLE = 4  # event streams kept per table (a late event of the last game)


# ---------------------------------------------------------------- the store
class Scoreboard:
    """Thread-safe store fed by the MQTT thread and read by the web server's threads."""

    def __init__(self) -> None:
        self._lock = threading.Condition()
        self._tables: dict[str, TableFeed] = {}
        self._games: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
        self._changed: dict[str, int] = {}  # table id -> version of its last change
        self.version = 0
        self._warned: dict[str, float] = {}
        self.delivered: list[tuple[str, str, int]] = []  # (table, game, seq) in delivery order
        self.keep_delivered = False  # tests and the bench turn this on

    # ------------------------------------------------------------ input (the MQTT thread)
    def handle(self, topic: str, payload: bytes) -> None:
        """Take one message from the broker; a bad one is dropped with a logged warning."""
        parts = topic.split("/")
        if len(parts) != 3 or parts[0] != ROOT or not is_table_id(parts[1]):
            self._warn(topic[:80], "a topic that is not toptable/<table id>/<kind>")
            return
        table_id, kind = parts[1], parts[2]
        try:
            if kind == "state":
                self._on_state(table_id, clean_state(table_id, payload))
            elif kind == "events":
                self._on_event(table_id, *clean_event(table_id, payload))
            elif kind == "online":
                self._on_online(table_id, payload)
            else:
                raise MessageError(f"unknown kind {kind[:20]!r}")
        except MessageError as exc:
            with self._lock:
                entry = self._tables.get(table_id)
                if entry is not None:
                    entry.dropped += 1
            self._warn(table_id, str(exc))

    def _warn(self, key: str, why: str) -> None:
        now = time.monotonic()
        if len(self._warned) > MAX_TABLES:
            self._warned.clear()  # a flood of odd topics must not grow memory
        if now - self._warned.get(key, -WARN_EVERY_S) >= WARN_EVERY_S:
            self._warned[key] = now
            log.warning("dropped a message from %r: %s", key, why)

    def _entry(self, table_id: str) -> TableFeed:
        entry = self._tables.get(table_id)
        if entry is None:
            if len(self._tables) >= MAX_TABLES:
                raise MessageError(f"more than {MAX_TABLES} tables: a new one is not shown")
            entry = self._tables[table_id] = TableFeed(table_id)
        return entry

    def _touch(self, table_id: str) -> None:
        self.version += 1
        self._changed[table_id] = self.version
        self._lock.notify_all()

    def _on_state(self, table_id: str, state: dict[str, Any]) -> None:
        with self._lock:
            entry = self._entry(table_id)
            old = entry.state
            if old is not None and old["game_id"] == state["game_id"] and old["seq"] > state["seq"]:
                return  # an older state delivered again after a reconnection
            entry.state = state
            entry.received_at = time.time()
            key = (table_id, state["game_id"])
            self._games[key] = state
            self._games.move_to_end(key)
            while len(self._games) > MAX_GAMES:
                self._games.popitem(last=False)
            self._touch(table_id)

    def _on_event(self, table_id: str, game_id: str, seq: int, kind: str) -> None:
        with self._lock:
            entry = self._entry(table_id)
            log_ = entry.games.get(game_id)
            if log_ is None:
                # Joined mid-game: what the retained state holds, or else the first event
                # seen, is the start (the events before it are gone for this scoreboard).
                if entry.state is not None and entry.state["game_id"] == game_id:
                    start = entry.state["seq"]
                else:
                    start = seq - 1
                log_ = entry.games[game_id] = EventLog(game_id, delivered=start, first=start + 1)
                while len(entry.games) > GAMES_PER_TABLE:
                    entry.games.pop(next(iter(entry.games)))
            out = log_.receive(seq, kind)
            if self.keep_delivered:
                self.delivered.extend((table_id, game_id, s) for s in out)
            self._touch(table_id)

    def _on_online(self, table_id: str, payload: bytes) -> None:
        text = payload[:16].decode("utf-8", "replace")
        if text not in (ONLINE, OFFLINE):
            raise MessageError("online: expected 'online' or 'offline'")
        with self._lock:
            self._entry(table_id).online = text == ONLINE
            self._touch(table_id)

    # ------------------------------------------------------------ output (web threads)
    def tables(self) -> list[dict[str, Any]]:
        """Every table's latest state (``GET /api/tables``), by table id."""
        with self._lock:
            return [self._tables[t].to_json() for t in sorted(self._tables)]

    def table(self, table_id: str) -> dict[str, Any] | None:
        """One table's latest state."""
        with self._lock:
            entry = self._tables.get(table_id)
            return entry.to_json() if entry is not None else None

    def standings(self) -> list[dict[str, Any]]:
        """The evening's standings (``GET /api/standings``)."""
        with self._lock:
            games = list(self._games.values())
        return standings(games)

    def wait_changes(self, since: int, timeout: float) -> tuple[int, list[str]]:
        """Wait up to ``timeout`` s for a change after version ``since``.

        Returns the version now and the tables changed since ``since``.
        """
        with self._lock:
            if self.version == since:
                self._lock.wait(timeout)
            changed = sorted(t for t, v in self._changed.items() if v > since)
            return self.version, changed
