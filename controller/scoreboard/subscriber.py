"""The scoreboard's MQTT side: subscribes to every table and feeds :class:`Scoreboard`.

A persistent session (``clean_session=False``, a fixed client id, QoS 1): while
the scoreboard is away for a moment, or the broker restarts with its saved
sessions, the broker keeps the events for it, and the tables' own resending
covers the rest. Subscriptions are made again on every connection. A new evening
first ends the last evening's session (:func:`end_old_session`): what the broker
queued for it is of games before the evening.
"""

from __future__ import annotations

import collections
import logging
import socket
import threading
import time
from typing import Any

import paho.mqtt.client as mqtt

from controller.publish.client import make_client, reason_text
from controller.publish.link import Link
from controller.publish.messages import ROOT
from controller.publish.settings import Connection
from controller.scoreboard.model import Scoreboard

log = logging.getLogger(__name__)

TOPICS = [(f"{ROOT}/+/state", 1), (f"{ROOT}/+/events", 1), (f"{ROOT}/+/online", 1)]


SHORT_LIFE_S = 10.0
"""A connection dropped this soon after it was made counts toward a taken-over id."""
TAKEN_OVER_AFTER = 3
TAKEN_OVER_WITHIN_S = 60.0


def default_client_id() -> str:
    """The scoreboard's MQTT client id unless told: one per machine."""
    return f"toptable-scoreboard-{socket.gethostname()}"[:64]


def end_old_session(conn: Connection, client_id: str, timeout: float = 5.0) -> bool:
    """Connect once as ``client_id`` with a clean session, which makes the broker drop
    that id's stored session and the messages queued for it (MQTT 3.1.1 §3.1.2.4), then
    disconnect. False (and a logged warning) if the broker did not answer in ``timeout`` s
    or refused; the scoreboard goes on either way.
    """
    answered = threading.Event()
    accepted: list[bool] = []

    def on_connect(client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any) -> None:
        accepted.append(not getattr(reason, "is_failure", False))
        answered.set()

    client = make_client(conn, client_id, clean_session=True)
    client.on_connect = on_connect
    try:
        client.connect_async(conn.broker.host, conn.broker.port, keepalive=conn.keepalive)
        client.loop_start()
        answered.wait(timeout)
    finally:
        client.disconnect()
        client.loop_stop()
    if accepted and accepted[0]:
        return True
    log.warning("broker %s: the last evening's session could not be ended (%s); "
                "messages it kept for the scoreboard may be counted tonight",
                conn.broker.url, "refused" if accepted else "no answer")  # fmt: skip
    return False


class Subscriber:
    """Keeps a :class:`Scoreboard` up to date from the broker (paho's own thread)."""

    def __init__(self, conn: Connection, board: Scoreboard, client_id: str | None = None) -> None:
        self.conn = conn
        self.board = board
        self.client_id = client_id or default_client_id()
        self._client = make_client(conn, self.client_id, clean_session=False)
        self._client.on_connect = self._on_connect
        self._client.on_disconnect = self._on_disconnect
        self._closing = False  # close() disconnects: paho reports it as a disconnection
        self._connected_at = 0.0
        self._short_lived: collections.deque[float] = collections.deque(maxlen=TAKEN_OVER_AFTER)
        self._said_taken_over = False
        self._client.on_message = self._on_message
        self._client.on_subscribe = self._on_subscribe
        self._client.on_connect_fail = self._on_connect_fail
        self._connected = threading.Event()
        self.link = Link("the scoreboard", conn.broker.url, on_change=board.set_link)
        board.own_user = conn.username
        board.set_link(self.link.status())

    def start(self) -> Subscriber:
        """Connect in the background (the page is served whether the broker is up or not)."""
        b = self.conn.broker
        self._client.connect_async(b.host, b.port, keepalive=self.conn.keepalive)
        self._client.loop_start()
        return self

    def wait_connected(self, timeout: float) -> bool:
        """Wait up to ``timeout`` s for a connection with its subscriptions made."""
        return self._connected.wait(timeout)

    @property
    def connected(self) -> bool:
        """Whether the broker is connected now."""
        return self._connected.is_set()

    def close(self) -> None:
        """Disconnect and stop paho's thread (idempotent)."""
        self._closing = True
        self._client.disconnect()
        self._client.loop_stop()

    def _on_connect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        self._connected_at = time.monotonic()
        if self.link.connack(reason):
            client.subscribe(TOPICS)

    def _on_connect_fail(self, client: mqtt.Client, userdata: Any) -> None:
        self.link.connect_failed()

    def _on_subscribe(
        self, client: mqtt.Client, userdata: Any, mid: int, reasons: Any, props: Any
    ) -> None:
        if any(getattr(r, "is_failure", False) for r in reasons):
            log.warning("broker %s refused the scoreboard's subscriptions (check its ACL)",
                        self.conn.broker.url)  # fmt: skip
            self.link.refused("the broker refused the subscriptions (its ACL)")
        else:
            self.link.connected()
        self._connected.set()

    def _on_disconnect(
        self, client: mqtt.Client, userdata: Any, flags: Any, reason: Any, props: Any
    ) -> None:
        # paho 2.2.0 calls this after the client's own disconnect() too (close): no loss
        if self._connected.is_set() and not self._closing:
            self.link.lost(reason_text(reason))  # which logs it, once per outage
            self._note_short_life()
        self._connected.clear()

    def _note_short_life(self) -> None:
        """Say once when the connection keeps dropping soon after it is made: the broker
        drops the older of two connections with one client id (MQTT 3.1.1 §3.1.4), and two
        scoreboards of one id (a second started by hand, two Pis of one hostname) took
        each other's place over and over without a word on either (review 105)."""
        now = time.monotonic()
        if now - self._connected_at > SHORT_LIFE_S:
            return
        self._short_lived.append(now)
        first = self._short_lived[0]
        full = len(self._short_lived) == TAKEN_OVER_AFTER
        if full and now - first <= TAKEN_OVER_WITHIN_S and not self._said_taken_over:
            self._said_taken_over = True
            log.warning(
                "broker %s: the scoreboard's connection was dropped %d times within a minute "
                "of being made: is another client using its id %r (a second scoreboard, or "
                "a machine of the same hostname)? give each its own --client-id",
                self.conn.broker.url, TAKEN_OVER_AFTER, self.client_id,
            )  # fmt: skip

    def _on_message(self, client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        try:
            self.board.handle(msg.topic, bytes(msg.payload), bool(msg.retain))
        except Exception:  # a bug in one message's handling must not stop the scoreboard
            log.exception("scoreboard: a message from %r failed", msg.topic[:80])
