"""The Pico's USB CDC serial as ``sys.stdin``/``sys.stdout``, with a scripted host at the far end.

On MicroPython ``sys.stdin``/``sys.stdout`` are text streams whose ``.buffer``
is the raw byte stream of the same port; both can be polled (``select.poll``).
``read(n)`` on the raw stream blocks until ``n`` bytes came: the fake refuses
to block (``WouldBlockError``), since the firmware must only read what poll says is
there. Text written to ``sys.stdout`` (a stray ``print``) would corrupt the
link: it is kept apart in ``Usb.text``.
"""

from __future__ import annotations

from collections.abc import Callable

from firmware import wire
from tests.firmware.fakes import uselect
from tests.firmware.fakes.clock import Clock

Frame = tuple[int, int, int, bytes]


class WouldBlockError(RuntimeError):
    """A read of more bytes than have arrived: the real port would hang here."""


class _RawIn:
    def __init__(self, usb: Usb) -> None:
        self._usb = usb

    def read(self, n: int = -1) -> bytes:
        rx = self._usb.rx
        if n < 0 or n > len(rx):
            raise WouldBlockError(f"read({n}) with {len(rx)} bytes received")
        data = bytes(rx[:n])
        del rx[:n]
        self._usb.bytes_read += n
        return data

    def poll_flags(self, eventmask: int) -> int:
        return uselect.POLLIN if self._usb.rx and eventmask & uselect.POLLIN else 0


class _Stdin:
    def __init__(self, usb: Usb) -> None:
        self.buffer = _RawIn(usb)

    def poll_flags(self, eventmask: int) -> int:
        return self.buffer.poll_flags(eventmask)

    def read(self, n: int = -1) -> str:
        return self.buffer.read(n).decode()


class _RawOut:
    def __init__(self, usb: Usb) -> None:
        self._usb = usb

    def write(self, data: bytes) -> int:
        self._usb.received(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def poll_flags(self, eventmask: int) -> int:
        return eventmask & uselect.POLLOUT


class _Stdout:
    def __init__(self, usb: Usb) -> None:
        self.buffer = _RawOut(usb)
        self._usb = usb

    def write(self, text: str) -> int:
        self._usb.text += text
        return len(text)

    def flush(self) -> None:
        pass

    def poll_flags(self, eventmask: int) -> int:
        return eventmask & uselect.POLLOUT


class Usb:
    """Both ends of the serial link: the board's stdin/stdout and the host's view of it."""

    def __init__(self, clock: Clock, latency_ms: int = 1) -> None:
        self.clock = clock
        self.latency_ms = latency_ms
        self.rx = bytearray()  # arrived at the board, not read yet
        self.bytes_read = 0
        self.sent: list[tuple[int, bytes]] = []  # (elapsed ms, bytes) the board wrote
        self.frames: list[tuple[int, Frame]] = []  # (elapsed ms, frame) decoded by the host
        self.text = ""
        self.stdin = _Stdin(self)
        self.stdout = _Stdout(self)
        self._decoder = wire.Decoder()
        self._reply: Callable[[Frame], bytes | None] | None = None

    def send(self, data: bytes, at: int | None = None) -> None:
        """The host sends ``data``; it arrives at elapsed ``at`` ms (default: after the latency)."""
        when = self.clock.elapsed + self.latency_ms if at is None else at
        self.clock.at(when, lambda: self.rx.extend(data))

    def reply_with(self, reply: Callable[[Frame], bytes | None]) -> None:
        """Answer every frame the board sends with ``reply(frame)`` (None: no answer)."""
        self._reply = reply

    def received(self, data: bytes) -> None:
        self.sent.append((self.clock.elapsed, data))
        for frame in self._decoder.feed(data):
            self.frames.append((self.clock.elapsed, frame))
            if self._reply is not None:
                answer = self._reply(frame)
                if answer:
                    self.send(answer)

    def of(self, mtype: int) -> list[bytes]:
        """Payloads of the frames of type ``mtype`` the board sent, oldest first."""
        return [f[3] for _, f in self.frames if f[2] == mtype]

    @property
    def garbage(self) -> int:
        """Bytes the host could not make frames of."""
        return self._decoder.bytes_invalid
