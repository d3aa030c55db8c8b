"""The Pico's USB CDC serial as ``sys.stdin``/``sys.stdout``, with a scripted host at the far end.

On MicroPython ``sys.stdin``/``sys.stdout`` are text streams whose ``.buffer``
is the raw byte stream of the same port; all four can be polled
(``select.poll``), and all answer alike: ``stdio_ioctl`` hands every poll to the
port's ``mp_hal_stdio_poll`` (``shared/runtime/sys_stdio_mphal.c``).
``read(n)`` on the raw stream blocks until ``n`` bytes came: the fake refuses
to block (``WouldBlockError``), since the firmware must only read what poll says is
there. Text written to ``sys.stdout`` (a stray ``print``) would corrupt the
link: it is kept apart in ``Usb.text``.

Writing goes through TinyUSB's CDC transmit FIFO (``CFG_TUD_CDC_TX_BUFSIZE``,
256 bytes at full speed, ``shared/tinyusb/tusb_config.h``). A host program that
reads empties it at once; one that holds the port open (DTR set, so
``tud_cdc_connected()``) but stops reading lets it fill, and a write that does
not fit then waits, the clock running, as the rp2 port's code does (the
watchdog and the firmware's scan wait with it):

* MicroPython 1.22 and 1.23, ``ports/rp2/mphalport.c`` ``mp_hal_stdout_tx_strn``:
  each chunk of at most ``CFG_TUD_CDC_EP_BUFSIZE`` (64) bytes waits, 1 ms at a
  time (``mp_event_wait_ms(1)``), up to ``MICROPY_HW_USB_CDC_TX_TIMEOUT``
  (500, ``ports/rp2/mphalport.h``) for room for the whole chunk, then gives
  up the rest of the write; with no host holding the port nothing is written.
  ``mp_hal_stdio_poll`` reports POLLOUT only while connected with room for
  one byte or more.
* MicroPython 1.24, ``shared/tinyusb/mp_usbd_cdc.c`` ``mp_usbd_cdc_tx_strn``:
  the same wait, then the part of the chunk that fits is written and the next
  chunk waits again (a frame can be cut); POLLOUT
  (``mp_usbd_cdc_poll_interfaces``) is also reported with no host connected,
  when writes go to the FIFO without waiting.

Either way ``stdio_buffer_write`` returns the full size whatever went out, so
the writer never learns of a drop. ``Usb.waited_ms`` adds up the time writes
spent waiting. A host program may also close the port (``hang_up``) and
another open it (``open``), finding what the FIFO kept.
"""

from __future__ import annotations

from collections.abc import Callable

from firmware import wire
from tests.firmware.fakes import select
from tests.firmware.fakes.clock import Clock

Frame = tuple[int, int, int, bytes]

CDC_TX_BUFSIZE = 256  # CFG_TUD_CDC_TX_BUFSIZE, full speed (shared/tinyusb/tusb_config.h)
CDC_EP_BUFSIZE = 64  # CFG_TUD_CDC_EP_BUFSIZE: the chunk the rp2 write loop waits room for
CDC_TX_TIMEOUT_MS = 500  # MICROPY_HW_USB_CDC_TX_TIMEOUT (ports/rp2/mphalport.h)


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
        return self._usb.poll_flags(eventmask)


class _Stdin:
    def __init__(self, usb: Usb) -> None:
        self.buffer = _RawIn(usb)
        self._usb = usb

    def poll_flags(self, eventmask: int) -> int:
        return self._usb.poll_flags(eventmask)

    def read(self, n: int = -1) -> str:
        return self.buffer.read(n).decode()


class _RawOut:
    def __init__(self, usb: Usb) -> None:
        self._usb = usb

    def write(self, data: bytes | bytearray) -> int:
        self._usb.transmit(bytes(data))
        return len(data)  # stdio_buffer_write: the size asked, whatever went out

    def flush(self) -> None:
        pass

    def poll_flags(self, eventmask: int) -> int:
        return self._usb.poll_flags(eventmask)


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
        return self._usb.poll_flags(eventmask)


class Usb:
    """Both ends of the serial link: the board's stdin/stdout and the host's view of it.

    ``micropython`` picks the rp2 write path modelled (module docstring);
    ``connected`` is DTR (a host program holds the port open), ``reading``
    whether that program reads; ``fifo`` holds what the board wrote and the
    host has not taken.
    """

    def __init__(
        self, clock: Clock, latency_ms: int = 1, micropython: tuple[int, int] = (1, 24)
    ) -> None:
        self.clock = clock
        self.latency_ms = latency_ms
        self.micropython = micropython
        self.connected = True
        self.reading = True
        self.fifo = bytearray()
        self.waited_ms = 0  # time writes spent waiting for room in the FIFO
        self.lost = 0  # bytes a write gave up on
        self.rx = bytearray()  # arrived at the board, not read yet
        self.bytes_read = 0
        self.sent: list[tuple[int, bytes]] = []  # (elapsed ms, bytes) the host received
        self.frames: list[tuple[int, Frame]] = []  # (elapsed ms, frame) decoded by the host
        self.text = ""
        self.opened = 0  # frames[opened:] are those of the program that opened the port last
        self.stale = b""  # what it found waiting in the FIFO (``open``)
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

    def stop_reading(self, at: int) -> None:
        """From elapsed ``at`` ms the host program keeps the port open but reads nothing."""
        self.clock.at(at, lambda: setattr(self, "reading", False))

    def read_again(self, at: int) -> None:
        """From elapsed ``at`` ms the host reads again, first what waited in the FIFO."""

        def resume() -> None:
            self.reading = True
            waiting, self.fifo = bytes(self.fifo), bytearray()
            if waiting:
                self.received(waiting)

        self.clock.at(at, resume)

    def hang_up(self, at: int) -> None:
        """At elapsed ``at`` ms the host program closes the port (DTR cleared): nobody reads."""

        def close() -> None:
            self.connected = False
            self.reading = False

        self.clock.at(at, close)

    def open(self, at: int) -> None:
        """At elapsed ``at`` ms another host program opens the port (DTR set) and reads.

        TinyUSB keeps the transmit FIFO when DTR changes (``cdcd_control_xfer_cb``,
        ``src/class/cdc/cdc_device.c``, only makes it overwritable while DTR is
        clear), so what the last program left unread reaches the new one first
        (``stale``). The new program decodes afresh (``garbage`` counts its bytes
        only); its frames are ``frames[opened:]``.
        """

        def start() -> None:
            self.connected = True
            self.reading = True
            self._decoder = wire.Decoder()
            self.opened = len(self.frames)
            self.stale, self.fifo = bytes(self.fifo), bytearray()
            if self.stale:
                self.received(self.stale)

        self.clock.at(at, start)

    # -- the board's side ---------------------------------------------------------------
    def room(self) -> int:
        """``tud_cdc_write_available()``: free bytes in the transmit FIFO."""
        return CDC_TX_BUFSIZE - len(self.fifo)

    def poll_flags(self, eventmask: int) -> int:
        """``mp_hal_stdio_poll``: POLLIN with bytes received, POLLOUT as the version has it."""
        flags = 0
        if self.rx and eventmask & select.POLLIN:
            flags |= select.POLLIN
        if eventmask & select.POLLOUT:
            if self.micropython >= (1, 24):
                writable = not self.connected or self.room() > 0
            else:
                writable = self.connected and self.room() > 0
            if writable:
                flags |= select.POLLOUT
        return flags

    def transmit(self, data: bytes) -> None:
        """``mp_hal_stdout_tx_strn(data)`` on the rp2 port (module docstring)."""
        if not self.connected:
            return  # nobody to send to (1.24 keeps the latest in the FIFO; none of it is seen)
        at = 0
        while at < len(data):
            n = min(len(data) - at, CDC_EP_BUFSIZE)
            waited = 0
            while n > self.room() and waited < CDC_TX_TIMEOUT_MS:
                self.clock.advance(1)  # mp_event_wait_ms(1): timers, the watchdog, the host
                waited += 1
            self.waited_ms += waited
            if self.micropython >= (1, 24):
                n = min(n, self.room())
                if n == 0:
                    break
            elif n > self.room():
                break
            self._put(data[at : at + n])
            at += n
        self.lost += len(data) - at

    def _put(self, data: bytes) -> None:
        if self.reading:
            self.received(data)
        else:
            self.fifo += data

    # -- the host's side ----------------------------------------------------------------
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
