"""Tell systemd how the daemon is doing: the sd_notify protocol, and a watchdog that means it.

Under a ``Type=notify`` unit systemd sets ``$NOTIFY_SOCKET`` to a datagram
socket (a path, or ``@name`` in the abstract namespace); each message is one
datagram of ``KEY=value`` lines: ``READY=1`` once the hardware is up,
``STATUS=...`` for ``systemctl status``, ``WATCHDOG=1`` keep-alives,
``STOPPING=1`` on the way out. Outside systemd there is no socket and every
call is a no-op, so the daemon calls them unconditionally.

:class:`Watchdog` sends ``WATCHDOG=1`` only while the main loop proves it is
alive: the loop calls :meth:`Watchdog.heartbeat` each turn, and a pinger
thread sends a keep-alive every half interval *only if* the last heartbeat is
recent. A hung loop stops the pings, and systemd restarts the service
(``WatchdogSec=`` in the unit; systemd passes it as ``$WATCHDOG_USEC``).
"""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
from collections.abc import Callable, Mapping
from types import TracebackType

log = logging.getLogger(__name__)

MAX_STATUS = 1024  # keep a STATUS= line short: it is shown in `systemctl status`


def notify_address(env: Mapping[str, str] | None = None) -> bytes | None:
    """The socket address from ``$NOTIFY_SOCKET`` ('@' means the abstract namespace), or None.

    Only AF_UNIX addresses are supported (a path or '@name'); anything else
    (e.g. ``vsock:``) gives None, with a warning.
    """
    value = (os.environ if env is None else env).get("NOTIFY_SOCKET", "")
    if not value:
        return None
    if value.startswith("@"):
        return b"\0" + os.fsencode(value[1:])
    if value.startswith("/"):
        return os.fsencode(value)
    log.warning("NOTIFY_SOCKET=%r is not a unix socket address; not notifying systemd", value)
    return None


def watchdog_interval(env: Mapping[str, str] | None = None, pid: int | None = None) -> float | None:
    """The watchdog interval in seconds systemd asks for, or None if there is none for us.

    ``$WATCHDOG_USEC`` gives the interval; ``$WATCHDOG_PID``, when set, names the
    process it is meant for (``pid``, default this process).
    """
    source = os.environ if env is None else env
    usec = source.get("WATCHDOG_USEC", "")
    if not usec:
        return None
    wanted_pid = source.get("WATCHDOG_PID", "")
    if wanted_pid:
        try:
            if int(wanted_pid) != (os.getpid() if pid is None else pid):
                return None
        except ValueError:
            log.warning("WATCHDOG_PID=%r is not a process id; ignoring the watchdog", wanted_pid)
            return None
    try:
        value = int(usec)
    except ValueError:
        log.warning("WATCHDOG_USEC=%r is not a number; ignoring the watchdog", usec)
        return None
    return value / 1_000_000 if value > 0 else None


class Notifier:
    """Sends sd_notify messages; a no-op when not started by systemd.

    Sending never raises: a failure is logged once and the daemon carries on
    (systemd being unreachable must not stop the table).
    """

    def __init__(self, env: Mapping[str, str] | None = None) -> None:
        self.address = notify_address(env)
        self._sock: socket.socket | None = None
        self._lock = threading.Lock()
        self._warned = False

    @property
    def enabled(self) -> bool:
        """Whether there is a systemd socket to talk to."""
        return self.address is not None

    def send(self, *lines: str) -> bool:
        """Send ``KEY=value`` lines as one datagram; True if sent."""
        if self.address is None or not lines:
            return False
        payload = "\n".join(lines).encode("utf-8")
        with self._lock:
            try:
                if self._sock is None:
                    self._sock = socket.socket(
                        socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC
                    )
                self._sock.sendto(payload, self.address)
            except OSError as exc:
                if not self._warned:
                    log.warning("cannot notify systemd at %r: %s", self.address, exc)
                    self._warned = True
                return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """READY=1 (and STATUS=): the hardware is up and the table is playing."""
        return self.send("READY=1", *self._status(status))

    def status(self, text: str) -> bool:
        """STATUS=: one line for ``systemctl status``."""
        return self.send(*self._status(text))

    def watchdog(self) -> bool:
        """WATCHDOG=1: a keep-alive. Prefer :class:`Watchdog`, which checks the loop first."""
        return self.send("WATCHDOG=1")

    def stopping(self, status: str | None = None) -> bool:
        """STOPPING=1: a clean shutdown has begun."""
        return self.send("STOPPING=1", *self._status(status))

    def extend_timeout(self, seconds: float) -> bool:
        """EXTEND_TIMEOUT_USEC=: ask for more time to start or stop (e.g. a slow camera)."""
        return self.send(f"EXTEND_TIMEOUT_USEC={max(0, round(seconds * 1_000_000))}")

    @staticmethod
    def _status(text: str | None) -> tuple[str, ...]:
        if text is None:
            return ()
        one_line = " ".join(text.split())[:MAX_STATUS]
        return (f"STATUS={one_line}",)

    def close(self) -> None:
        """Close the socket; idempotent. Later sends open it again."""
        with self._lock:
            if self._sock is not None:
                self._sock.close()
                self._sock = None

    def __enter__(self) -> Notifier:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class Watchdog:
    """WATCHDOG=1 every ``interval / 2`` seconds, but only while the main loop heartbeats.

    ``interval`` defaults to systemd's ``$WATCHDOG_USEC``; with no interval the
    watchdog is disabled and every method is a cheap no-op. The loop is healthy
    while its last :meth:`heartbeat` is at most ``stale_after`` seconds old
    (default half the interval), so a hung loop is restarted at most
    ``stale_after + interval`` seconds after its last heartbeat.

    Use it as a context manager, or :meth:`start` and :meth:`stop`; or call
    :meth:`tick` from the loop itself instead of starting the thread.
    """

    def __init__(
        self,
        notifier: Notifier,
        interval: float | None = None,
        stale_after: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.notifier = notifier
        self.interval = interval if interval is not None else watchdog_interval(env)
        if self.interval is not None and self.interval <= 0:
            raise ValueError(f"watchdog interval must be positive, got {self.interval}")
        self.period = self.interval / 2 if self.interval else 0.0
        self.stale_after = stale_after if stale_after is not None else self.period
        self.clock = clock
        self._last_beat = clock()
        self._last_ping: float | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.pings = 0
        self.missed = 0

    @property
    def enabled(self) -> bool:
        """Whether systemd watches us (an interval) and can hear us (a socket)."""
        return self.interval is not None and self.notifier.enabled

    def heartbeat(self) -> None:
        """The main loop is alive: call once per loop turn (cheap)."""
        self._last_beat = self.clock()

    def healthy(self) -> bool:
        """Whether the last heartbeat is recent enough."""
        return self.clock() - self._last_beat <= self.stale_after

    def tick(self) -> bool:
        """Send WATCHDOG=1 if one is due and the loop is healthy; True if sent."""
        if not self.enabled:
            return False
        now = self.clock()
        if self._last_ping is not None and now - self._last_ping < self.period:
            return False
        if not self.healthy():
            self.missed += 1
            if self.missed == 1:
                log.error(
                    "main loop silent for %.1f s: no watchdog ping, systemd will restart us",
                    now - self._last_beat,
                )
            return False
        if self.missed:
            log.warning("main loop alive again after %d missed watchdog pings", self.missed)
            self.missed = 0
        self._last_ping = now
        if self.notifier.watchdog():
            self.pings += 1
            return True
        return False

    def start(self) -> None:
        """Start the pinger thread (nothing when disabled; idempotent)."""
        if not self.enabled or self._thread is not None:
            return
        self._stop.clear()
        self.heartbeat()
        self._thread = threading.Thread(target=self._run, name="watchdog", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while True:
            self.tick()
            if self._stop.wait(self.period / 4 if self.period else 1.0):
                return

    def stop(self) -> None:
        """Stop the pinger thread and wait for it; idempotent."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def __enter__(self) -> Watchdog:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()
