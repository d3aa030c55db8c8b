"""The board simulator: the real firmware code on a simulated sensor matrix behind a pseudo-terminal.

``SimBoard`` runs :class:`firmware.core.Firmware` in a thread. Its serial side is
the master of a real pty; the host opens the slave (or a symlink to it) with
pyserial exactly as it would open ``/dev/ttyACM0``. ``unplug()`` closes the pty
(the host's reads fail, as when the USB cable is pulled) and ``replug()`` makes a
new one (the symlink follows); ``reset()`` reboots the firmware (new boot number,
unacknowledged events gone). An optional :class:`FaultRelay` damages the bytes
going each way.

With ``boot_grace_s`` the board boots as ``firmware/main.py`` does on a Pico: it is
silent for that long after power-up and each reset (``BOOT_GRACE_MS``, the second in
which mpremote may interrupt it), and a 0x03 byte received then is MicroPython's Ctrl-C
(``shared/tinyusb/mp_usbd_cdc.c``, ``tud_cdc_rx_cb``, MicroPython 1.27): ``main.py``
stops, the board prints the prompt and sends no frame again until it is reset
(:attr:`at_prompt`). Bytes received in the grace without one are read once it ends.
"""

from __future__ import annotations

import contextlib
import os
import select
import threading
import time
import tty
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from firmware.core import Firmware
from firmware.wire import MAX_SENSORS, Decoder, encode_frame
from hardware.board.accounting import TruthChange
from hardware.board.errors import SimulatorError
from hardware.board.relay import FaultRelay
from hardware.board.settings import EXAMPLE_SENSORS

PROMPT_AFTER_INTERRUPT = (
    b'Traceback (most recent call last):\r\n  File "main.py", line 44, in <module>\r\n'
    b"KeyboardInterrupt: \r\nMicroPython v1.27.0 on 2025-12-09; Raspberry Pi Pico with RP2040"
    b'\r\nType "help()" for more information.\r\n>>> '
)
"""What a Pico prints when Ctrl-C stops main.py in its grace second (in its
``sleep_ms(config.BOOT_GRACE_MS)``), as MicroPython 1.27 prints a KeyboardInterrupt."""


class SimBoard:
    """A simulated board; use as a context manager. ``path`` is what the host opens."""

    def __init__(
        self,
        sensors: int = EXAMPLE_SENSORS,  # the example board's
        link: str | Path | None = None,
        *,
        relay_up: FaultRelay | None = None,
        relay_down: FaultRelay | None = None,
        scan_ms: int = 5,
        heartbeat_ms: int = 250,
        record_frames: bool = False,
        clock: Callable[[], float] = time.monotonic,
        boot_grace_s: float = 0.0,
    ) -> None:
        if not 1 <= sensors <= MAX_SENSORS:
            raise SimulatorError(f"sensors must be 1..{MAX_SENSORS}, got {sensors}")
        self.sensors = sensors
        self.link = Path(link) if link is not None else None
        self.relay_up = relay_up
        self.relay_down = relay_down
        self.scan_ms = scan_ms
        self.heartbeat_ms = heartbeat_ms
        self.clock = clock
        self.matrix = bytearray(sensors)
        self.truth: list[TruthChange] = []
        self.boot = 1
        self.record_frames = record_frames
        self.sent_frames: set[bytes] = set()  # every frame the firmware wrote (before the relay)
        self.bad_host_frames = 0  # frames the firmware accepted that the host never sent
        self.host_frames: set[bytes] = set()
        self.dropped_unplugged = 0
        self.unplugs = 0
        self.resets = 0
        self._t0 = clock()
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._master = -1
        self._slave = -1
        self._slave_name = ""
        self._decoder = Decoder()
        self.boot_grace_s = boot_grace_s
        self.at_prompt = False  # main.py was interrupted in its grace: the MicroPython prompt
        self._grace_until = clock() + boot_grace_s
        self._held = bytearray()  # bytes received in the grace, read when main.py runs
        self.firmware = self._new_firmware()

    @classmethod
    def pico(cls, sensors: int, link: str | Path | None = None) -> SimBoard:
        """A board that boots as the firmware's ``main.py`` does on a Pico: silent for its
        grace second after power-up and each reset (``firmware/config.py``
        ``BOOT_GRACE_MS``), and stopped at the prompt by a Ctrl-C then."""
        from firmware import config

        return cls(sensors, link, boot_grace_s=config.BOOT_GRACE_MS / 1000)

    # -- lifecycle ---------------------------------------------------------------
    def start(self) -> SimBoard:
        """Open the pty and start the firmware thread (idempotent)."""
        if self._thread is None:
            self.replug()
            self._thread = threading.Thread(target=self._run, name="sim-board", daemon=True)
            self._thread.start()
        return self

    def close(self) -> None:
        """Stop the thread, close the pty, remove the symlink (idempotent)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        with self._lock:
            self._close_pty()

    def __enter__(self) -> SimBoard:
        return self.start()

    def __exit__(
        self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    @property
    def path(self) -> str:
        """The path the host should open: the symlink if one was asked for, else the pty slave."""
        return str(self.link) if self.link is not None else self._slave_name

    @property
    def plugged(self) -> bool:
        """Whether the pty exists."""
        return self._master >= 0

    # -- the players' hands ---------------------------------------------------------
    def set(self, sensor: int, occupied: bool) -> float:
        """Put a magnet on (or take it off) ``sensor``; return the time it happened.

        Raises:
            SimulatorError: no such sensor.
        """
        if not 0 <= sensor < self.sensors:
            raise SimulatorError(
                f"sensor {sensor} does not exist: this board has 0..{self.sensors - 1}"
            )
        with self._lock:
            now = self.clock()
            if bool(self.matrix[sensor]) != occupied:
                self.matrix[sensor] = int(occupied)
                self.truth.append(TruthChange(now, sensor, occupied))
        return now

    def place(self, sensor: int) -> float:
        """A token is put on ``sensor``."""
        return self.set(sensor, True)

    def lift(self, sensor: int) -> float:
        """The token on ``sensor`` is lifted."""
        return self.set(sensor, False)

    def occupied(self) -> frozenset[int]:
        """The true occupied sensors."""
        return frozenset(i for i, v in enumerate(self.matrix) if v)

    # -- faults -------------------------------------------------------------------
    def reset(self) -> None:
        """Reboot the firmware: next boot number, unacknowledged events lost."""
        with self._lock:
            self.boot += 1
            self.resets += 1
            self.firmware = self._new_firmware()
            self.at_prompt = False
            self._grace_until = self.clock() + self.boot_grace_s
            self._held.clear()

    def unplug(self) -> None:
        """Pull the cable: the pty goes away and the host's port fails."""
        with self._lock:
            if self._master >= 0:
                self.unplugs += 1
            self._close_pty()

    def replug(self) -> None:
        """Plug the cable back: a new pty (the symlink, if any, points to it)."""
        with self._lock:
            if self._master >= 0:
                return
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line editing, before the host opens it
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            self._slave_name = os.ttyname(slave)
            self._decoder = Decoder()
            if self.link is not None:
                tmp = self.link.with_name(self.link.name + ".tmp")
                with contextlib.suppress(FileNotFoundError):
                    tmp.unlink()
                tmp.symlink_to(self._slave_name)
                tmp.replace(self.link)

    # -- internals -------------------------------------------------------------------
    def _close_pty(self) -> None:
        if self.link is not None:
            with contextlib.suppress(FileNotFoundError):
                self.link.unlink()
        for fd in (self._master, self._slave):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._master = self._slave = -1

    def _ticks(self) -> int:
        return int((self.clock() - self._t0) * 1000)

    def _new_firmware(self) -> Firmware:
        return Firmware(
            self.sensors,
            lambda: self.matrix,
            self._write,
            self._ticks,
            boot=self.boot,
            scan_ms=self.scan_ms,
            heartbeat_ms=self.heartbeat_ms,
        )

    def _write(self, data: bytes) -> None:
        if self.record_frames:
            self.sent_frames.add(bytes(data))
        if self.relay_up is not None:
            data = self.relay_up.process(data)
        if self._master < 0:
            self.dropped_unplugged += len(data)
            return
        try:
            os.write(self._master, data)
        except (BlockingIOError, OSError):
            self.dropped_unplugged += len(data)  # nobody reading, or the host side vanished

    def _running(self) -> bool:
        """Whether main.py runs the firmware now: not in its boot grace nor stopped at the
        prompt; the bytes held through the grace are read as it ends."""
        if self.at_prompt:
            return False
        if self._grace_until and self.clock() < self._grace_until:
            return False
        if self._grace_until:
            self._grace_until = 0.0
            held, self._held = bytes(self._held), bytearray()
            self._frames_in(held)
        return True

    def _tick(self) -> None:
        if self._running():
            self.firmware.tick()

    def _run(self) -> None:
        while not self._stop.is_set():
            master = self._master
            if master < 0:
                with self._lock:
                    self._tick()
                self._stop.wait(0.001)
                continue
            try:
                ready, _, _ = select.select([master], [], [], 0.001)
            except (OSError, ValueError):
                ready = []
            with self._lock:
                if ready and self._master == master:
                    try:
                        data = os.read(master, 4096)
                    except (BlockingIOError, OSError):
                        data = b""
                    if data:
                        self._receive(data)
                self._tick()

    def _receive(self, data: bytes) -> None:
        if self.relay_down is not None:
            data = self.relay_down.process(data)
        if self.at_prompt:  # the prompt takes the bytes as keystrokes: no frame comes of them
            if b"\r" in data:
                self._write_raw(b"\r\n>>> ")  # Enter: a new prompt
            return
        if self._grace_until and self.clock() < self._grace_until:
            if 0x03 in data:  # Ctrl-C while main.py sleeps out its grace second
                self.at_prompt = True
                self._held.clear()
                self._write_raw(PROMPT_AFTER_INTERRUPT)
            else:
                self._held += data
            return
        self._frames_in(data)

    def _write_raw(self, data: bytes) -> None:
        if self._master >= 0:
            with contextlib.suppress(BlockingIOError, OSError):
                os.write(self._master, data)

    def _frames_in(self, data: bytes) -> None:
        fw = self.firmware
        for frame in self._decoder.feed(data):
            if self.record_frames:
                version, seq, mtype, payload = frame
                if encode_frame(seq, mtype, payload, version) not in self.host_frames:
                    self.bad_host_frames += 1
            fw.handle(frame)

    def note_host_frame(self, data: bytes) -> None:
        """Remember a frame the host sent (for counting corrupted frames the firmware accepts)."""
        self.host_frames.add(bytes(data))
