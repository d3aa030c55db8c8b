"""What the scoreboard knows: each table's latest state, its event streams, the standings.

What it believes, and why:

- **A table's topics are the table's.** The broker lets each table write only
  its own topics (the shipped ACL, ``service files mosquitto-toptable.acl``),
  so a message on ``toptable/table-1/...`` is table-1 speaking.
- **Nothing else is trusted.** A message is checked field by field and bounded
  (:mod:`.checks`); one that fails is dropped with a rate-limited warning and
  counted against its own table only. Every piece of work per message is
  bounded (:mod:`.streams`), and memory too: at most :data:`MAX_TABLES` shown
  tables, :data:`MAX_UNSEEN` not yet shown, :data:`MAX_GAMES` games.
- **A sequence number is believed as far as the event stream supports it.** A
  state of the game shown whose ``seq`` is past what the game's events have
  reached (more than :data:`STATE_AHEAD`) is held, not shown, and counted as not
  believed until its events come (a state, sent at QoS 0, may overtake the QoS 1
  events queued before it after a broker's restart); a state older
  than the one shown (a replay after a reconnection) is ignored, unless the shown
  one has turned out to be ahead of its events; a late state of an older game
  updates the standings but not the card.
- **A table is shown once it sent a valid state**, and disappears after
  ``expire_s`` of silence (its games stay in the standings). Two processes
  publishing as one table id are detected and said so on the card (:mod:`.feeds`).

:meth:`Scoreboard.handle` runs on the MQTT thread; the web server's threads read.
With an :class:`~controller.scoreboard.evening.Evening` store, every state shown
or counted is saved, so a restarted scoreboard starts with the same standings.

- **A new evening counts no game from before it.** The broker holds each table's
  last state, retained, from whenever it was sent (last week's final, a game left
  unfinished). On an evening begun now (``--new-evening``), the retained states its
  first subscription brings (within :data:`RETAINED_BURST_S` of a first connection made
  within :data:`BEGIN_GRACE_S` of the start) are of games older than it: shown on their
  table's card, set aside from the standings (and kept so in the evening's file), until
  the game goes on: a later row of it, sent live, not over. Later on, a retained state
  is counted as usual (a game that ended while the scoreboard was away).
  The table's clock is not asked: a Pi without network time can be hours off.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

from controller.publish.link import LinkState, LinkStatus
from controller.publish.messages import ROOT
from controller.publish.settings import is_table_id
from controller.scoreboard.checks import (
    MessageError,
    clean_event,
    clean_online,
    clean_state,
)
from controller.scoreboard.evening import Evening
from controller.scoreboard.feeds import TableFeed
from controller.scoreboard.standings import Ranking, standings

log = logging.getLogger(__name__)

MAX_TABLES = 200  # tables shown at most
MAX_UNSEEN = 200  # tables heard from without a valid state yet (never shown; oldest dropped)
MAX_GAMES = 2000  # games remembered for the standings (oldest dropped first)
EXPIRE_S = 2 * 3600.0  # a table silent this long leaves the page (its games stay counted)
STATE_AHEAD = 16  # rows a state may include past the events seen (a resubscription's race)
BEGIN_GRACE_S = 60.0  # a new evening's broker first reached later: its retained states count
RETAINED_BURST_S = 10.0  # the retained states a subscription brings come at once
WARN_EVERY_S = 10.0
MAX_WARNED = 256


class Scoreboard:
    """Thread-safe store fed by the MQTT thread and read by the web server's threads."""

    def __init__(
        self,
        *,
        evening: Evening | None = None,
        ranking: Ranking = Ranking.GAME,
        expire_s: float = EXPIRE_S,
        clock: Callable[[], float] = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self._lock = threading.Condition()
        self._clock = clock
        self._wall = wall
        self.expire_s = expire_s
        self.ranking = ranking
        self.evening = evening
        self._tables: dict[str, TableFeed] = {}
        self._unseen: OrderedDict[str, TableFeed] = OrderedDict()
        self._games: OrderedDict[tuple[str, str], dict[str, Any]] = OrderedDict()
        self._changed: dict[str, int] = {}  # table id -> version of its last change
        self.version = 0
        self._warned: dict[str, float] = {}
        self._link: LinkStatus | None = None
        self._standings: list[dict[str, Any]] | None = None  # cached until a game changes
        self._shown_standings: list[dict[str, Any]] = []
        self.standings_version = 0  # counts the changes of the standings' content
        self.delivered: list[tuple[str, str, int]] = []  # (table, game, seq) in delivery order
        self.keep_delivered = False  # tests and the bench turn this on
        self._aside: dict[tuple[str, str], int] = {}  # games from before the evening -> row
        self._before = evening is not None and evening.new  # retained means "older" now
        self._begun_at = clock()
        self._before_until: float | None = None  # the first connection's retained burst
        self._was_connected = False
        self.own_user: str | None = None  # the scoreboard's broker user (its Subscriber's)
        if evening is not None:
            self._aside = evening.load_aside()
            self._restore(evening)

    def _restore(self, evening: Evening) -> None:
        now = self._clock()
        for state, saved_at in evening.load(MAX_GAMES):
            key = (state["table_id"], state["game_id"])
            self._games[key] = state
            feed = self._tables.get(state["table_id"])
            if feed is None and len(self._tables) < MAX_TABLES:
                feed = self._tables[state["table_id"]] = TableFeed(state["table_id"])
            if feed is not None:
                feed.note_game(state["game_id"])
                feed.state, feed.received_at = state, saved_at
                # A Pi has no real-time clock: after a power cut it boots on the time
                # fake-hwclock kept (behind the last saves) until NTP steps it. A save
                # "in the future" is aged from the restart; any other by the wall clock
                # (a restart the next day expires yesterday's tables; the broker's
                # retained states, sent again at once, bring back each live table's card).
                ago = max(0.0, self._wall() - saved_at)
                feed.heard_at = feed.shown_at = now - ago

    # ------------------------------------------------------------ input (the MQTT thread)
    def handle(self, topic: str, payload: bytes, retained: bool = False) -> None:
        """Take one message from the broker (``retained``: the broker's stored copy, sent on
        subscribing); a bad one is dropped with a logged warning."""
        parts = topic.split("/")
        if len(parts) != 3 or parts[0] != ROOT or not is_table_id(parts[1]):
            self._warn("topics", f"a topic that is not {ROOT}/<table id>/<kind>")
            return
        if parts[1] == self.own_user:  # the ACL lets every user write under its own name
            self._warn(parts[1], "the scoreboard's own broker user is no table")
            return
        table_id, kind = parts[1], parts[2]
        try:
            if kind == "state":
                self._on_state(table_id, clean_state(table_id, payload), retained)
            elif kind == "events":
                self._on_event(table_id, *clean_event(table_id, payload))
            elif kind == "online":
                self._on_online(table_id, *clean_online(table_id, payload))
            else:
                raise MessageError(f"unknown kind {kind[:20]!r}")
        except MessageError as exc:
            with self._lock:
                feed = self._tables.get(table_id) or self._unseen.get(table_id)
                if feed is not None:
                    feed.dropped += 1
            self._warn(table_id, str(exc))

    def set_link(self, status: LinkStatus) -> None:
        """The scoreboard's own link to the broker (from the subscriber)."""
        with self._lock:
            self._link = status
            if status.state is LinkState.CONNECTED and not self._was_connected:
                self._was_connected = True
                self._first_connection()
            elif status.state is not LinkState.CONNECTED and self._was_connected:
                self._before = False  # a retained state now may be of a game ended meanwhile
            self.version += 1
            self._lock.notify_all()

    def _warn(self, key: str, why: str, said: str = "dropped a message from %r: %s") -> None:
        now = self._clock()
        with self._lock:
            if len(self._warned) > MAX_WARNED:
                self._warned.clear()  # a flood of odd topics must not grow memory
            if now - self._warned.get(key, -WARN_EVERY_S) < WARN_EVERY_S:
                return
            self._warned[key] = now
        log.warning(said, key, why)

    def _feed(self, table_id: str) -> TableFeed:
        """The table's feed, shown or not yet (a new one goes with the unseen)."""
        feed = self._tables.get(table_id) or self._unseen.get(table_id)
        if feed is None:
            feed = self._unseen[table_id] = TableFeed(table_id)
            while len(self._unseen) > MAX_UNSEEN:
                self._unseen.popitem(last=False)
        feed.heard_at = self._clock()
        return feed

    def _show(self, feed: TableFeed) -> bool:
        """Move a table with its first valid state onto the page, room permitting."""
        if feed.table_id in self._tables:
            return True
        self._expire()
        if len(self._tables) >= MAX_TABLES:
            return False
        self._unseen.pop(feed.table_id, None)
        self._tables[feed.table_id] = feed
        return True

    def _expire(self) -> None:
        now = self._clock()
        for table_id in [t for t, f in self._tables.items() if now - f.heard_at > self.expire_s]:
            del self._tables[table_id]
            self._changed.pop(table_id, None)
            self.version += 1
            log.info("table %s left the page after %.0f s of silence", table_id, self.expire_s)

    def _touch(self, table_id: str) -> None:
        self.version += 1
        self._changed[table_id] = self.version
        self._lock.notify_all()

    def _on_state(self, table_id: str, state: dict[str, Any], retained: bool = False) -> None:
        with self._lock:
            feed = self._feed(table_id)
            feed.note_instance(state.pop("instance", None), self._clock())
            game_id, seq = state["game_id"], state["seq"]
            log_ = feed.games.get(game_id)
            if log_ is not None and not log_.supports(seq, STATE_AHEAD):
                self._hold(feed, state, retained)
                flagged = True
            else:
                flagged = False
                self._take_state(feed, state, retained)
        if flagged:  # not dropped: shown once its events come (said at most once a minute)
            self._warn(table_id, f"a state of row {seq}, past the events seen: held until "
                       "they come", said="held a message from %r: %s")  # fmt: skip

    def _hold(self, feed: TableFeed, state: dict[str, Any], retained: bool) -> None:
        """Keep a state ahead of its events until they come (review 99: after a broker's
        restart a state, sent at QoS 0, overtook the QoS 1 events queued before it, and
        every honest table stayed flagged all evening). It counts as not believed while
        held, and for good if its events never come."""
        feed.flagged += 1
        self._unhold(feed, state)
        feed.held = (state, retained)
        self._touch(feed.table_id)

    def _unhold(self, feed: TableFeed, state: dict[str, Any]) -> None:
        """Forget the held state that ``state`` stands for (its game, no later): no longer
        counted as not believed."""
        if feed.held is None:
            return
        held = feed.held[0]
        if held["game_id"] == state["game_id"] and held["seq"] <= state["seq"]:
            feed.held = None
            feed.flagged -= 1

    def _take_state(self, feed: TableFeed, state: dict[str, Any], retained: bool) -> None:
        game_id, seq = state["game_id"], state["seq"]
        self._unhold(feed, state)
        new_game = feed.note_game(game_id)
        shown = feed.state
        # the broker's stored copy of the state shown (a restart, a new subscription) is
        # not a new state: the card keeps its age
        again = retained and shown is not None and shown["seq"] == seq
        if shown is not None and shown["game_id"] == game_id and (shown["seq"] > seq or again):
            log_ = feed.games.get(game_id)
            if log_ is None or log_.supports(shown["seq"], STATE_AHEAD):
                return  # an older state delivered again after a reconnection
        if not self._show(feed):
            raise MessageError(f"more than {MAX_TABLES} tables: a new one is not shown")
        key = (feed.table_id, game_id)
        if not self._older_than_evening(key, state, retained):
            self._games[key] = state
            self._games.move_to_end(key)
            while len(self._games) > MAX_GAMES:
                self._games.popitem(last=False)
            self._standings = None
            if self.evening is not None:
                self.evening.save(state, self._wall())
        if shown is not None and shown["game_id"] != game_id and not new_game:
            return  # a late state of an older game: counted, not shown
        feed.state = state
        feed.received_at, feed.shown_at = self._wall(), self._clock()
        self._touch(feed.table_id)

    def _first_connection(self) -> None:
        """The first connection (under the lock): the retained states it brings at once are
        of games older than the evening only when it came soon after the evening began; a
        broker first reached later holds tonight's games too."""
        now = self._clock()
        if not self._before:
            return
        if now - self._begun_at > BEGIN_GRACE_S:
            self._before = False
            log.warning("the broker was first reached %.0f s after the evening began: the "
                        "games it holds are counted (a game of before the evening among them "
                        "too)", now - self._begun_at)  # fmt: skip
        else:
            self._before_until = now + RETAINED_BURST_S

    def _older_than_evening(
        self, key: tuple[str, str], state: dict[str, Any], retained: bool
    ) -> bool:
        """Whether this state's game is left out of the standings as older than the
        evening (see the module's docstring); notes a game set aside or taken back."""
        seq, aside_at = state["seq"], self._aside.get(key)
        if aside_at is not None:
            if retained or seq <= aside_at or state.get("over"):
                return True  # an ended game said again (a table resumed its journal) stays
            del self._aside[key]  # the game went on this evening
            log.info("table %s's game %s goes on: counted", *key)
        elif (
            retained
            and self._before
            and self._before_until is not None
            and self._clock() <= self._before_until
            and key not in self._games
        ):
            self._aside[key] = seq
            log.info("table %s's game %s is older than the evening: not counted", *key)
        else:
            return False
        if self.evening is not None:
            self.evening.set_aside(*key, self._aside.get(key))
        return key in self._aside

    def _on_event(
        self, table_id: str, game_id: str, seq: int, kind: str, instance: str | None
    ) -> None:
        with self._lock:
            feed = self._feed(table_id)
            feed.note_instance(instance, self._clock())
            log_ = feed.events(game_id, seq)
            out = log_.receive(seq, kind)
            if self.keep_delivered:
                self.delivered.extend((table_id, game_id, s) for s in out)
            held = feed.held
            caught_up = held is not None and held[0]["game_id"] == game_id
            if held is not None and caught_up and log_.supports(held[0]["seq"], STATE_AHEAD):
                with contextlib.suppress(MessageError):  # its events came: believed, shown
                    self._take_state(feed, *held)  # (unless the page is full of tables)
            if table_id in self._tables:
                self._touch(table_id)

    def _on_online(self, table_id: str, online: bool, instance: str | None) -> None:
        with self._lock:
            feed = self._feed(table_id)
            if online:
                feed.note_instance(instance, self._clock())
            if not feed.note_online(online, instance):
                return  # a dead process's last will, after its successor said online
            if table_id in self._tables:
                self._touch(table_id)

    # ------------------------------------------------------------ output (web threads)
    def tables(self) -> list[dict[str, Any]]:
        """Every shown table (``GET /api/tables``), by table id."""
        with self._lock:
            self._expire()
            now = self._clock()
            return [self._tables[t].to_json(now) for t in sorted(self._tables)]

    def table(self, table_id: str) -> dict[str, Any] | None:
        """One shown table (None if it is not on the page)."""
        with self._lock:
            feed = self._tables.get(table_id)
            return feed.to_json(self._clock()) if feed is not None else None

    def table_ids(self) -> list[str]:
        """The ids of the shown tables."""
        with self._lock:
            self._expire()
            return sorted(self._tables)

    def standings(self) -> list[dict[str, Any]]:
        """The evening's standings (``GET /api/standings``): one ranking per group."""
        return self.standings_now()[1]

    def standings_now(self) -> tuple[int, list[dict[str, Any]]]:
        """The standings and their version, which moves only when they change (most
        events change no figure of any ranking: the page need not redraw them)."""
        with self._lock:
            if self._standings is None:
                self._standings = standings(list(self._games.values()), self.ranking)
                if self._standings != self._shown_standings:
                    self._shown_standings = self._standings
                    self.standings_version += 1
            return self.standings_version, self._standings

    def link(self) -> dict[str, Any]:
        """The scoreboard's own link to the broker (``GET /api/status``)."""
        with self._lock:
            status = self._link
        if status is None:
            return {"state": LinkState.CONNECTING.value, "broker": None, "problem": None,
                    "since": None}  # fmt: skip
        return status.to_json()

    def wait_changes(self, since: int, timeout: float) -> tuple[int, list[str]]:
        """Wait up to ``timeout`` s for a change after version ``since``.

        Returns the version now and the tables changed since ``since``.
        """
        with self._lock:
            if self.version == since:
                self._lock.wait(timeout)
            changed = sorted(t for t, v in self._changed.items() if v > since)
            return self.version, changed
