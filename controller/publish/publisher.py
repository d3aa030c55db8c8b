"""The table's publisher: its own thread sends the journal's rows and the state to MQTT.

The game thread only calls :meth:`Publisher.notify` (the dice game) or
:meth:`Publisher.notify_companion` (a companion mode) after a journalled row: it
stores a reference to the new state and wakes the publisher thread (one byte on
a local socket pair), never touching the network or a lock the network holds.
The publisher thread is the only one that talks to the broker (paho runs no
thread of its own: :mod:`.netloop`): it reads the rows after the last one it
sent from the journal (the outbox), publishes each at QoS 1 with its sequence
number, and once it has caught up publishes the latest state, retained. PUBACKs
advance the acknowledged mark kept beside the journal.

Broker down, Wi-Fi gone, DNS failing: the publisher thread retries; the game
goes on and the rows wait in the journal. On every (re)connection the publisher
goes back a few rows before the acknowledged mark (a broker that crashed may
have acknowledged rows it never delivered), sends every row from there in
order, then the state: at least once; a subscriber dedupes on (game_id, seq).
paho's own copies of what was in flight are dropped at the CONNACK (the session
is clean: the broker kept nothing of them), so a connection sends each row once:
a row arrives twice after an outage at most (the replay margin, and the rows in
flight when the link went), never three times.
"""

from __future__ import annotations

import logging
import secrets
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Mapping
from functools import partial
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from controller.companion.base import CompanionMode
from controller.game.state import GameState
from controller.publish.client import make_client, reason_text
from controller.publish.companion import companion_state_message
from controller.publish.link import Link, LinkState, LinkStatus
from controller.publish.messages import (
    CombatTracker,
    encode,
    event_message,
    events_topic,
    online_message,
    online_topic,
    state_message,
    state_topic,
)
from controller.publish.netloop import NetLoop
from controller.publish.own_online import Heard, OwnOnline, no_echo_text
from controller.publish.progress import (
    Delivery,
    LatestState,
    PublishedGame,
    PublishStats,
    StateBuilder,
)
from controller.publish.settings import Connection, check_table_id

log = logging.getLogger(__name__)

WINDOW = 100  # rows in flight (sent, not yet acknowledged) at most
REPLAY = 32  # rows before the acknowledged mark sent again after each (re)connection
IDLE_POLL_S = 0.5  # the journal is read at least this often, notified or not
DUPLICATE_WARN_EVERY_S = 60.0


class Publisher:
    """Publishes one table's game; ``start()``, ``attach()`` a journal, ``notify()``, ``close()``."""

    def __init__(
        self,
        conn: Connection,
        table_id: str,
        *,
        client_id: str | None = None,
        window: int = WINDOW,
        replay: int = REPLAY,
        people: Mapping[str, str] | None = None,
    ) -> None:
        """``people``: name -> person id of the players the organiser gave an id.

        Raises:
            TableIdError: ``table_id`` is not a table id.
            CredentialsError: the password file cannot be read or holds no password.
        """
        self.conn = conn
        self.table_id = check_table_id(table_id)
        self.window = window
        self.replay = replay
        self.people = dict(people or {})
        self.stats = PublishStats()
        # A random name for this process: two tables publishing as one id (a cloned SD
        # card) each have their own, so they neither take each other's broker session
        # nor go unnoticed (see _on_message).
        self.instance = secrets.token_hex(4)
        self.link = Link(f"table {table_id}", conn.broker.url, backlog=self._backlog)
        cid = client_id or f"toptable-{table_id}-{self.instance}"
        will = online_message(table_id, False, self.instance)
        self._client = make_client(
            conn, cid, clean_session=True, will=(online_topic(table_id), will)
        )
        self._client.max_inflight_messages_set(window + 20)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._client.on_publish = self._on_publish
        self._client.on_message = self._on_message
        b = conn.broker
        self._net = NetLoop(self._client, b.host, b.port, conn.keepalive, self.link)
        self._duplicate_warned_at = -DUPLICATE_WARN_EVERY_S
        self._own = OwnOnline(self.instance)
        self._announce = False  # say "online" (again) on the next pump
        self._stop = threading.Event()
        self._connected = threading.Event()
        self._fresh_connection = False
        self._acks: deque[int] = deque()
        self._attach: tuple[Path, str] | None = None
        self._latest: LatestState | None = None
        self._tracker = CombatTracker()
        self._game: PublishedGame | None = None
        self._caught_up = threading.Event()
        self._flushing = threading.Event()  # someone waits in flush(): acks matter right now
        self._thread = threading.Thread(target=self._run, name=f"publish-{table_id}", daemon=True)

    # ------------------------------------------------------------ the game thread's side
    def attach(self, journal: Path | str, game_id: str) -> None:
        """Publish the game journalled at ``journal`` (a new game replaces the previous one)."""
        self._tracker = CombatTracker()
        self._latest = None
        self._attach = (Path(journal), game_id)
        self._caught_up.clear()
        self._net.wake()

    def notify(self, state: GameState, seq: int, seconds_left: int | None = None) -> None:
        """A row up to ``seq`` is journalled and ``state`` is the dice game now. Never blocks.

        ``state`` must not be changed afterwards (TableGame's states never are).
        """
        last = self._tracker.observe(state)
        self.notify_state(
            seq, partial(state_message, state, seconds_left=seconds_left, last_combat=last)
        )

    def notify_companion(self, mode: CompanionMode[Any, Any], state: Any, seq: int) -> None:
        """A row up to ``seq`` is journalled and ``state`` is the companion game now.

        Never blocks; the message is built on the publisher thread (the modes' states
        are frozen, their ``to_json`` pure).
        """
        self.notify_state(seq, partial(companion_state_message, mode, state))

    def notify_state(self, seq: int, build: StateBuilder) -> None:
        """A row up to ``seq`` is journalled and ``build`` makes the state message of then."""
        self._latest = LatestState(build, seq, time.time())
        self._caught_up.clear()
        self._net.wake()

    # ------------------------------------------------------------ life cycle
    def start(self) -> Publisher:
        """Start the thread, which connects in the background (never waits for the broker)."""
        self._thread.start()
        return self

    @property
    def connected(self) -> bool:
        """Whether the broker is connected now."""
        return self._connected.is_set()

    def wait_link(self, timeout: float) -> LinkStatus:
        """Wait up to ``timeout`` s for the broker's first answer (or the lack of one)."""
        return self.link.wait_answer(timeout)

    def flush(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for every row and the latest state to be acknowledged."""
        self._flushing.set()
        self._net.wake()
        try:
            return self._caught_up.wait(timeout)
        finally:
            self._flushing.clear()

    def finish(self, timeout: float) -> Delivery:
        """Wait up to ``timeout`` s for the outbox to empty (the broker may come back in that
        time), close, and say how much was delivered."""
        if timeout > 0 and self.link.status().state is not LinkState.REFUSED:
            self.flush(timeout)
        self.close(flush_s=0)
        return self.delivery()

    def delivery(self) -> Delivery:
        """How much of the attached journal the broker has acknowledged."""
        game = self._game
        if game is None:
            return Delivery(0, 0, None, None)
        try:
            total = game.reader.last_seq()
        except sqlite3.Error:
            total = max(game.sent, game.mark.value)
        finally:
            if self._stop.is_set():
                game.reader.close()  # reopened for the count after close()
        status = self.link.status()
        problem = status.problem if status.state is not LinkState.CONNECTED else None
        return Delivery(min(game.mark.value, total), total, game.path, problem)

    def close(self, flush_s: float = 2.0) -> None:
        """Flush for up to ``flush_s`` s, say "offline", disconnect and stop (idempotent)."""
        if self._stop.is_set():
            return
        if flush_s > 0 and self.connected:
            self.flush(flush_s)
        self._stop.set()
        self._net.wake()
        if self._thread.is_alive():
            self._thread.join(5.0)
        # the thread has ended: this one drives the connection from here
        if self.connected:
            info = self._client.publish(
                online_topic(self.table_id),
                online_message(self.table_id, False, self.instance),
                qos=1,
                retain=True,
            )
            deadline = time.monotonic() + 1.0
            while not info.is_published() and self.connected and time.monotonic() < deadline:
                self._net.step(0.05)
        self._net.close(1.0)
        if self._game is not None:
            self._game.close()

    def __enter__(self) -> Publisher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ paho's callbacks
    # They run on the publisher thread, inside NetLoop.step (no paho thread: netloop.py).
    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        if not self.link.connack(reason):
            return
        # paho 2.2.0 keeps every QoS 1 message the broker has not acknowledged (in
        # _out_messages, also one publish() answered MQTT_ERR_NO_CONN); reconnect() re-arms
        # them (_messages_reconnect_reset_out: dup) and _handle_connack sends them all again
        # right after this callback. The pump sends again from the mark anyway, in order
        # (pending is forgotten): without this, a row in flight at a loss went out three
        # times (ours, paho's dup, the replay).
        client.drop_out_messages()
        # Before this process says "online" (on the next pump): the retained "online" of
        # another process using this table id then reaches us (_on_message).
        client.subscribe(online_topic(self.table_id), qos=1)
        self._net.connected_ok()
        self._fresh_connection = True
        self._connected.set()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        # paho 2.2.0 calls this after the client's own disconnect() too (close): no loss
        if self._connected.is_set() and not self._stop.is_set():
            self.stats.disconnections += 1
            self.link.lost(reason_text(reason))  # which says what waits in the journal
        self._connected.clear()

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        """Our own ``online`` topic (:mod:`~controller.publish.own_online`)."""
        heard, other = self._own.heard(bytes(msg.payload[:512]), bool(msg.retain))
        if heard is Heard.WILL:  # a dead predecessor's will, retained over our "online"
            self._announce = True
        if heard not in (Heard.SUSPECT, Heard.CLONE):
            return
        self.stats.other_instances += 1
        now = time.monotonic()
        if heard is Heard.CLONE and now - self._duplicate_warned_at >= DUPLICATE_WARN_EVERY_S:
            self._duplicate_warned_at = now
            self._announce = True  # the other table hears us live too
            log.error(
                "table %s: another table publishes as %r too (its instance %s, ours %s): "
                "a cloned SD card? Give each table its own [events] table_id",
                self.table_id, self.table_id, other[:16], self.instance,
            )  # fmt: skip

    def _on_publish(
        self, client: mqtt.Client, userdata: Any, mid: int, reason: Any, props: Any
    ) -> None:
        self._acks.append(mid)  # counted by the pump that follows this step

    # ------------------------------------------------------------ the publisher thread
    def _backlog(self) -> str | None:
        """How many of the game's events the broker has not acknowledged, in words (None:
        no game yet, or its journal cannot be read); asked by the link on this thread."""
        self._take_attached()
        game = self._game
        if game is None:
            return None
        try:
            waiting = max(0, game.reader.last_seq() - game.mark.value)
        except sqlite3.Error:
            return None
        return f"{waiting} event{'' if waiting == 1 else 's'} of the game wait in {game.path}"

    def _take_attached(self) -> None:
        """Switch to the journal :meth:`attach` named, if it named one since."""
        if self._attach is not None:
            path, game_id = self._attach
            self._attach = None
            if self._game is not None:
                self._game.close()
            self._game = PublishedGame(path, game_id)
            self._fresh_connection = self._fresh_connection or self.connected

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._net.step(IDLE_POLL_S)
                self._pump()
                self._net.write()
            except sqlite3.Error as exc:  # a journal being replaced, a full card...
                log.warning("table %s: cannot read the journal: %s", self.table_id, exc)
                time.sleep(IDLE_POLL_S)
            except Exception:  # a bug here must not stop the table: log it, keep going
                log.exception("table %s: publisher error", self.table_id)
                time.sleep(IDLE_POLL_S)
        if self._game is not None:
            self._drain_acks(self._game)
            self._game.mark.save()

    def _drain_acks(self, game: PublishedGame) -> None:
        while self._acks:
            mid = self._acks.popleft()
            game.pending.pop(mid, None)
            if mid == game.state_mid:
                game.state_acked, game.state_mid = True, None
        acked = min(game.pending.values()) - 1 if game.pending else game.sent
        game.mark.advance(acked)
        self.stats.acked = game.mark.value

    def _pump(self) -> None:
        self._take_attached()
        game = self._game
        if game is None:
            return
        self._drain_acks(game)
        if not self.connected:
            return
        if self._fresh_connection:
            self._fresh_connection = False
            self.stats.connections += 1
            game.pending.clear()
            self._acks.clear()
            game.sent = max(0, game.mark.value - self.replay)
            game.state_for, game.state_mid, game.state_acked = None, None, False
            self._own.said_online(time.monotonic())
            self._announce = True
        if self._announce:
            self._announce = False
            self._client.publish(
                online_topic(self.table_id),
                online_message(self.table_id, True, self.instance),
                qos=1,
                retain=True,
            )
        if self._own.echo_overdue(time.monotonic()):
            log.error("%s", no_echo_text(self.table_id, self.conn.username))
        topic = events_topic(self.table_id)
        now = time.monotonic()
        notified = self._latest
        # The journal is read when a row was notified past the last one sent, and at
        # least every IDLE_POLL_S (notified or not); not on every ack's wake-up.
        due = (notified is not None and notified.seq > game.sent) or (
            now - game.read_at >= IDLE_POLL_S
        )
        while due and len(game.pending) < self.window and self.connected:
            limit = self.window - len(game.pending)
            rows = game.reader.rows_after(game.sent, limit)
            game.read_at = now
            due = len(rows) == limit  # a full batch: more may wait
            for row in rows:
                payload = event_message(
                    self.table_id, game.game_id, row.seq, row.kind, row.payload, row.undoes,
                    self.instance,
                )  # fmt: skip
                info = self._client.publish(topic, payload, qos=1)
                if info.rc != mqtt.MQTT_ERR_SUCCESS:
                    # not connected after all: paho keeps the message, dropped at the next
                    # CONNACK (_on_connect); the pump then starts again from the mark
                    return
                game.pending[info.mid] = row.seq
                game.sent = row.seq
                self.stats.events_sent += 1
        latest = self._latest
        flushing = self._flushing.is_set()
        if latest is not None and game.sent >= latest.seq:
            sent = game.state_for == (latest.seq, latest.at)
            unconfirmed = not game.state_acked and game.state_mid is None  # it went at QoS 0
            if not sent or (flushing and unconfirmed):
                self._send_state(game, latest, flushing)
        self._drain_acks(game)
        if (
            flushing
            and not game.pending
            and self._latest is latest
            and (latest is None or (game.state_for == (latest.seq, latest.at) and game.state_acked))
            and game.sent >= game.reader.last_seq()
        ):
            self._caught_up.set()

    def _send_state(self, game: PublishedGame, latest: LatestState, flushing: bool) -> None:
        """Publish the state of row ``latest.seq``, retained.

        A state in mid-game goes at QoS 0: the next one replaces it within a second, and
        after a reconnection the latest is sent again anyway; waiting for its PUBACK
        would double what each event costs the table. The game's last state, and any
        state someone waits for (:meth:`flush`), go at QoS 1, acknowledged.
        """
        message = latest.build(
            table_id=self.table_id, seq=latest.seq, game_id=game.game_id, sent_at=latest.at,
            people=self.people,
        )  # fmt: skip
        message["instance"] = self.instance
        qos = 1 if flushing or message.get("over") else 0
        info = self._client.publish(
            state_topic(self.table_id), encode(message), qos=qos, retain=True
        )
        if info.rc == mqtt.MQTT_ERR_SUCCESS:
            game.state_for = (latest.seq, latest.at)
            game.state_acked = False
            if qos:
                game.pending[info.mid] = latest.seq
                game.state_mid = info.mid
            self.stats.states_sent += 1
