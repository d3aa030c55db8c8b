"""The board link over a serial port: a thread that keeps the board connected and posts events.

Opens the port exclusively (no other program may have it open: :mod:`port_hold`), runs
a :class:`~hardware.board.session.HostSession` on it, and on any port failure or 5 s of
silence posts :class:`LinkLost`, closes the port and reopens it with backoff (0.05 s
doubling to 0.5 s), for ever, until :meth:`BoardLink.close`. Every event goes to the
``queue.Queue`` given by the caller; ``record`` is called for each sensor change before
the board is told it was received (the journal plugs in there). Garbled bytes, CRC
failures, resyncs and reconnects are counted in :attr:`BoardLink.stats` and logged as
one ``link health:`` line when they grow, at most once a minute.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import re
import termios
import threading
import time
from collections.abc import Callable
from types import TracebackType

import serial

from controller.core.events import Event
from hardware.board.errors import BoardPortError
from hardware.board.events import LinkLost, LinkRestored, SensorChanged
from hardware.board.guard import FlickerGuard
from hardware.board.health import HealthReport
from hardware.board.memory import BoardMemory, LinkStats, Record
from hardware.board.port_hold import HeldPort, hold, port_holders
from hardware.board.said import Said
from hardware.board.session import SILENCE_S, HostSession, LinkPhase
from hardware.board.settings import DEFAULT_BAUD

log = logging.getLogger(__name__)

REFUSED_RETRY_S = 5.0
HEALTH_LOG_EVERY_S = 60.0  # a noisy cable says so once a minute, not once per garbled byte


def open_port(path: str, baudrate: int = DEFAULT_BAUD, timeout: float = 0.02) -> serial.Serial:
    """Open a serial port exclusively, with a short read timeout: refused while another
    program has it open, and kept from any program that tries after (:mod:`port_hold`).

    pyserial 3.5 (``serialposix.Serial.open``, ``_reset_input_buffer``) lets
    ``termios.error`` through from ``tcsetattr`` and ``tcflush`` (neither an OSError
    nor a SerialException) when the device goes away while the port opens, as an
    unplugged or re-enumerating USB board does: that is a port error too.

    Raises:
        BoardPortError: the port is missing, busy or not accessible; the message says which.
    """
    try:
        port = HeldPort(path, baudrate, timeout=timeout, write_timeout=1.0, exclusive=True)
    except (OSError, termios.error) as exc:  # (a SerialException is an OSError)
        raise BoardPortError(f"cannot open board port {path}: {_why(exc)}") from None
    hold(port, path)  # first: none comes in while the others are looked for
    others = port_holders(path)
    if others:
        with contextlib.suppress(OSError, termios.error):
            port.close()
        raise BoardPortError(
            f"cannot open board port {path}: busy, {', '.join(others)} has it open: close that "
            "program (a serial terminal, mpremote, ModemManager)"
        )
    try:
        port.reset_input_buffer()
    except (OSError, termios.error) as exc:
        with contextlib.suppress(OSError, termios.error):
            port.close()
        raise BoardPortError(f"cannot open board port {path}: {_why(exc)}") from None
    return port


def _why(exc: OSError | termios.error) -> str:
    """What stopped a port opening: pyserial's own text, an OSError's, or termios.error's
    (errno, text)."""
    if isinstance(exc, termios.error):
        return str(exc.args[1]) if len(exc.args) > 1 else str(exc)
    if isinstance(exc, serial.SerialException) or not exc.strerror:
        return str(exc)
    return exc.strerror


class BoardLink:
    """Keeps one board connected in a background thread. Use as a context manager."""

    def __init__(
        self,
        port: str,
        events: queue.Queue[Event],
        record: Record | None = None,
        *,
        baudrate: int = DEFAULT_BAUD,
        silence_s: float = SILENCE_S,
        backoff_s: tuple[float, float] = (0.05, 0.5),
        guard: FlickerGuard | None = None,
        on_frame: Callable[[tuple[int, int, int, bytes]], None] | None = None,
        on_send: Callable[[bytes], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.port = port
        self.events = events
        self.record = record
        self.baudrate = baudrate
        self.silence_s = silence_s
        self.backoff_s = backoff_s
        self.guard = guard if guard is not None else FlickerGuard()
        self.on_frame = on_frame
        self.on_send = on_send
        self.clock = clock
        self.stats = LinkStats()
        self.health = HealthReport(self.stats, HEALTH_LOG_EVERY_S)
        self.memory = BoardMemory()
        # frames of no use said at most once a minute across sessions, as the session says them
        self.said = Said(logging.getLogger(HostSession.__module__))
        self.connected = False
        self.last_error = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._ser: serial.Serial | None = None

    # -- lifecycle -------------------------------------------------------------
    def start(self) -> BoardLink:
        """Start the link thread (idempotent)."""
        if self._thread is None:
            self._thread = threading.Thread(
                target=self._run, name=f"board-link {self.port}", daemon=True
            )
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the thread and close the port (idempotent)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None

    def __enter__(self) -> BoardLink:
        return self.start()

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def occupied(self) -> frozenset[int]:
        """Occupied sensors as last recorded."""
        return self.memory.occupied()

    def trouble(self, within_s: float = HEALTH_LOG_EVERY_S) -> str | None:
        """The link health line when garbled bytes, CRC failures, resyncs or reconnects
        were counted within the last ``within_s`` seconds (None: a quiet link)."""
        return self.health.recent(self.clock(), within_s)

    # -- the thread --------------------------------------------------------------
    def _post(self, ev: Event) -> None:
        if isinstance(ev, SensorChanged):
            for out in self.guard.filter(ev, self.clock()):
                self.events.put(out)
        else:
            if isinstance(ev, LinkRestored):
                self.connected = True
            self.events.put(ev)

    def _lost(self, reason: str) -> None:
        if self.connected:
            self.connected = False
            log.warning("%s: link lost: %s", self.port, reason)
            self.events.put(LinkLost(self.port, reason))
        elif _said_alike(reason) != _said_alike(self.last_error):
            # no link yet: say why once, not every retry (nor as its count of bytes grows)
            log.warning("%s: no link: %s", self.port, reason)
        self.last_error = reason

    def _run(self) -> None:
        delay = self.backoff_s[0]
        first = True
        opened = False
        while not self._stop.is_set():
            try:
                ser = open_port(self.port, self.baudrate)
            except BoardPortError as exc:
                if first:
                    log.info("%s", exc)
                    first = False
                self.last_error = str(exc)
                self._stop.wait(delay)
                delay = min(delay * 2, self.backoff_s[1])
                continue
            first = True
            delay = self.backoff_s[0]
            if opened:
                self.stats.reconnects += 1
            opened = True
            reason = self._serve(ser)
            with contextlib.suppress(OSError, serial.SerialException):
                ser.close()
            if reason is None:
                break
            if reason.startswith("refused: "):
                if reason != self.last_error:  # say it once, not every retry
                    self.events.put(LinkLost(self.port, reason))
                self.connected = False
                self.last_error = reason
                self._stop.wait(REFUSED_RETRY_S)
            else:
                self._lost(reason)

    def _serve(self, ser: serial.Serial) -> str | None:
        """Run one session on an open port; the reason it ended, or None when asked to stop."""

        def send(data: bytes) -> None:
            if self.on_send is not None:
                self.on_send(data)
            ser.write(data)

        session = HostSession(
            self.port,
            send,
            self._post,
            self.memory,
            self.stats,
            self.record,
            self.silence_s,
            self.on_frame,
            said=self.said,  # its once-a-minute warnings outlive each reconnection
        )
        try:
            session.start(self.clock())
            while not self._stop.is_set():
                data = ser.read(max(1, ser.in_waiting))
                now = self.clock()
                if data:
                    session.feed(data, now)
                reason = session.poll(now)
                for ev in self.guard.poll(now):
                    self.events.put(ev)
                self.health.watch(now)
                said = self.health.due(now)
                if said is not None:
                    log.warning("%s: %s", self.port, said)
                if reason is not None:
                    if session.phase is LinkPhase.REFUSED:
                        return "refused: " + reason
                    return reason
        except (serial.SerialException, OSError) as exc:
            return f"port failed (the board unplugged, or its cable?): {exc}"
        return None


def _said_alike(reason: str | None) -> str | None:
    """``reason`` with its count of bytes and its seconds left out: the same trouble is
    said once, though they change from retry to retry (any other change is a new reason)."""
    if reason is None:
        return None
    return re.sub(r"\b\d+(\.\d+)? s\b", "# s", re.sub(r"\b\d+ bytes\b", "# bytes", reason))
