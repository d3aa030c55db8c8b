"""paho's network side driven by the publisher's own thread: no paho thread, no wake per message.

With ``loop_start()`` paho runs a thread of its own, and every ``publish()`` from
another thread writes a byte to paho's socket pair to wake it, then hands the
PUBACKs back across threads under a lock: at demo speed that hand-over was most
of what publishing cost a table. paho 2.x also supports an *external* event
loop (its ``loop_read``, ``loop_write``, ``loop_misc``, ``socket`` and
``want_write``; "Do not use if you are using loop_start()"): one thread of ours
waits on the broker's socket and on a wake socket of its own, reads, writes and
keeps the connection alive, and a ``publish()`` made on that same thread is
written at once (paho 2.2.0 ``_packet_queue`` calls ``loop_write()`` itself when
no paho thread and no write callback are set).

:class:`NetLoop` also does what ``loop_forever`` did: connects in the background
and reconnects after a loss, every :data:`~controller.publish.client.RECONNECT_MIN_S`
to :data:`~controller.publish.client.RECONNECT_MAX_S` seconds, telling the
:class:`~controller.publish.link.Link` why a connection could not be made.
"""

from __future__ import annotations

import contextlib
import select
import socket
import time
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from controller.publish.client import RECONNECT_MAX_S, RECONNECT_MIN_S
from controller.publish.link import Link


class NetLoop:
    """One client's connection, driven by calls to :meth:`step` from a single thread."""

    def __init__(
        self,
        client: mqtt.Client,
        host: str,
        port: int,
        keepalive: int,
        link: Link,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.client = client
        self.link = link
        self._clock = clock
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        client.connect_async(host, port, keepalive=keepalive)  # no network yet
        self._next_attempt = 0.0
        self._failures = 0
        self._had_socket = False

    def wake(self) -> None:
        """Break the wait in :meth:`step` (any thread; never blocks)."""
        with contextlib.suppress(OSError):  # BlockingIOError: a wake is already pending
            self._wake_w.send(b"\0")

    def step(self, timeout: float) -> None:
        """(Re)connect when due, then wait up to ``timeout`` s for the broker or a wake,
        read what came, write what waits, keep the connection alive."""
        now = self._clock()
        if self.client.socket() is None:
            if self._had_socket:  # lost: try again after a pause
                self._had_socket = False
                self._next_attempt = now + RECONNECT_MIN_S
            if now >= self._next_attempt:
                self._attempt(now)
        sock = self.client.socket()
        readers: list[Any] = [self._wake_r]
        writers: list[Any] = []
        if sock is not None:
            self._had_socket = True
            readers.append(sock)
            if self.client.want_write():
                writers.append(sock)
        else:
            timeout = max(0.0, min(timeout, self._next_attempt - now))
        readable, writable, _ = select.select(readers, writers, [], timeout)
        if self._wake_r in readable:
            with contextlib.suppress(OSError):
                self._wake_r.recv(4096)
        if sock is not None:
            if sock in readable:
                self.client.loop_read()
            if sock in writable and self.client.socket() is not None:
                self.client.loop_write()
            if self.client.socket() is not None:
                self.client.loop_misc()
        self.write()

    def write(self) -> None:
        """Send what paho has queued (after a publish or a callback's subscribe)."""
        if self.client.socket() is not None and self.client.want_write():
            self.client.loop_write()

    def connected_ok(self) -> None:
        """The broker accepted a connection: the next loss waits the shortest pause."""
        self._failures = 0

    def _attempt(self, now: float) -> None:
        try:
            self.client.reconnect()  # TCP (and TLS) connect, then CONNECT; CONNACK comes later
        except (OSError, ValueError) as exc:  # refused, unreachable, DNS, TLS, a bad host
            self.link.connect_failed(exc)
            self._failures += 1
            pause = min(RECONNECT_MAX_S, RECONNECT_MIN_S * 2 ** (self._failures - 1))
            self._next_attempt = now + pause

    def close(self, timeout: float) -> None:
        """Send DISCONNECT (after what is queued, for up to ``timeout`` s) and close."""
        if self.client.socket() is not None:
            self.client.disconnect()
            deadline = self._clock() + timeout
            while self.client.socket() is not None and self.client.want_write():
                if self._clock() >= deadline:
                    break
                self.step(0.05)
        self._wake_r.close()
        self._wake_w.close()
