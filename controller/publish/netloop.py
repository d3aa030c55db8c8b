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
and reconnects after a loss, telling the :class:`~controller.publish.link.Link` why a
connection could not be made. It waits as paho 2.2.0's ``Client._reconnect_wait`` does:
:data:`~controller.publish.client.RECONNECT_MIN_S` first, doubling at each failure up
to :data:`~controller.publish.client.RECONNECT_MAX_S`, and from the minimum again only
after a CONNACK that accepts (``_handle_connack`` resets ``_reconnect_delay``): a
broker that refuses every CONNECT (a wrong password) is asked every 4 s, not every 1 s.
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
        self._delay: float | None = None  # paho's _reconnect_delay: None until a failure
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
            if self._had_socket:  # lost (or refused): try again after a pause
                self._had_socket = False
                self._pause(now)
            if now >= self._next_attempt:
                self._attempt(now)
        sock = self.client.socket()
        readers: list[Any] = [self._wake_r]
        writers: list[Any] = []
        pending = 0
        if sock is not None:
            self._had_socket = True
            readers.append(sock)
            if self.client.want_write():
                writers.append(sock)
            # paho 2.2.0 Client._loop: bytes TLS has already decrypted are invisible to
            # select(); read them without waiting (several packets in one TLS record)
            pending = sock.pending() if hasattr(sock, "pending") else 0
            if pending > 0:
                timeout = 0.0
        else:
            timeout = max(0.0, min(timeout, self._next_attempt - now))
        readable, writable, _ = select.select(readers, writers, [], timeout)
        if self._wake_r in readable:
            with contextlib.suppress(OSError):
                self._wake_r.recv(4096)
        if sock is not None:
            if sock in readable or pending > 0:
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
        self._delay = None

    def _pause(self, now: float) -> None:
        """The next attempt after paho 2.2.0's ``_reconnect_wait``: the minimum, then doubled."""
        self._delay = (
            RECONNECT_MIN_S if self._delay is None else min(self._delay * 2, RECONNECT_MAX_S)
        )
        self._next_attempt = now + self._delay

    def _attempt(self, now: float) -> None:
        try:
            self.client.reconnect()  # TCP (and TLS) connect, then CONNECT; CONNACK comes later
        except (OSError, ValueError) as exc:  # refused, unreachable, DNS, TLS, a bad host
            self.link.connect_failed(exc)
            self._pause(now)

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
