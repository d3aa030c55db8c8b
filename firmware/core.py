"""The board's firmware logic: scan, number events, keep them until acked, answer the host.

Runs unchanged on MicroPython (``main.py`` gives it real pins and USB serial) and
on CPython (tests and the simulator give it a simulated matrix and a pseudo-
terminal). Hardware and clock are injected: ``read()`` returns one 0/1 value per
sensor, ``write(frame)`` sends one whole frame (or returns False: dropped),
``ticks()`` returns milliseconds. ``Outbox`` is the ``write`` of a port whose
writes may block (the Pico's USB serial: README, "A host that stops reading").
"""

from firmware import wire
from firmware.compat import ticks_add, ticks_diff

try:
    from typing import Callable
except ImportError:  # MicroPython has no typing; it does not evaluate annotations either
    pass

FIRMWARE_VERSION = "toptable-fw 1.0"
RESEND_CHUNK = 8  # events per resent frame: short frames survive a noisy line better
OUTBOX_BYTES = 1024  # frames waiting for the port; the most one tick sends is about 700
PUMP_BYTES = 64  # bytes handed to the port per pump(): a few ms of the loop on the Pico
FEED_BYTES = 64  # bytes read from the host per loop turn: a writer that never stops (USB
# flow control keeps the rp2's stdin buffer full) must not starve the scan and the watchdog


class Outbox:
    """Frames on their way to a port whose writes may block: queued whole, written byte by byte.

    ``put(frame)`` is the ``write`` to give ``Firmware``: it queues the frame,
    or drops it whole and returns False when it would take more than ``size``
    bytes waiting. ``pump()`` hands queued bytes to ``write`` one at a time, each
    only after ``writable()`` said the port takes one more byte now, at most
    ``budget`` bytes a call; it never waits. ``write`` gets the same one-byte
    bytearray each time (it must copy it). ``discard()`` is the ``discard`` to
    give ``Firmware``: it drops the frames that have not started going out.
    """

    def __init__(
        self,
        write: Callable[[bytearray], object],
        writable: Callable[[], bool],
        size: int = OUTBOX_BYTES,
    ) -> None:
        self._write = write
        self._writable = writable
        self.size = size
        self.buf = bytearray()
        self.head = 0  # buf[head:] waits; buf[:head] is written
        self.start = 0  # where the frame holding buf[head] starts: a frame written in part
        self._one = bytearray(1)

    def waiting(self) -> int:
        """Bytes queued and not yet written."""
        return len(self.buf) - self.head

    def put(self, frame: bytes) -> bool:
        """Queue one whole frame; False (and nothing queued) when there is no room for it."""
        if self.waiting() + len(frame) > self.size:
            return False
        if self.start:
            self.buf = self.buf[self.start :]
            self.head -= self.start
            self.start = 0
        self.buf.extend(frame)
        return True

    def pump(self, budget: int = PUMP_BYTES) -> int:
        """Write queued bytes while the port takes them, at most ``budget``; return how many."""
        buf = self.buf
        one = self._one
        start = self.head
        at = start
        end = min(len(buf), start + budget)
        while at < end and self._writable():
            one[0] = buf[at]
            self._write(one)
            at += 1
        if at == start:
            return 0  # nothing written (most loops: nothing queued): nothing allocated
        if at == len(buf):
            self.buf = bytearray()
            self.head = self.start = 0
        else:
            self.head = at
            frame = self.start
            while frame + wire.frame_size(buf, frame) <= at:
                frame += wire.frame_size(buf, frame)
            self.start = frame
        return at - start

    def discard(self) -> int:
        """Drop every queued frame that has not started going out; return how many.

        A frame written in part stays, to be finished: the port never carries a cut frame.
        """
        buf = self.buf
        keep = self.start
        if self.head > keep:
            keep += wire.frame_size(buf, keep)
        dropped = 0
        at = keep
        while at < len(buf):
            at += wire.frame_size(buf, at)
            dropped += 1
        if keep == self.head:
            self.buf = bytearray()
            self.head = self.start = 0
        elif dropped:
            self.buf = buf[:keep]
        return dropped


class Firmware:
    """One run (boot) of the board firmware. Call ``feed()`` with received bytes and ``tick()`` often.

    A frame ``write`` drops (returns False) still used its SEQ, so the host sees
    a gap; it is counted (``dropped_frames``) and, with the next frame written,
    reported to the host by NOTICE 4 naming how many were dropped since the last
    such notice or IDENTIFY. ``discard()``, if given, drops the frames ``write``
    queued that have not started going out and returns how many (``Outbox``):
    IDENTIFY calls it, so its IDENT follows at most the frame in flight
    (PROTOCOL.md rule 6; ``discarded_frames``).
    """

    def __init__(
        self,
        sensors: int,
        read: Callable[[], bytes | bytearray],
        write: Callable[[bytes], object],
        ticks: Callable[[], int],
        boot: int = 1,
        scan_ms: int = 5,
        debounce: int = 2,
        heartbeat_ms: int = 250,
        rto_ms: int = 60,
        rto_max_ms: int = 500,
        retain: int = 128,
        discard: Callable[[], int] | None = None,
    ) -> None:
        from firmware.scanner import Scanner

        self.sensors = sensors
        self._read = read
        self._write = write
        self._discard = discard
        self._ticks = ticks
        self.boot = boot & 0xFFFF
        self.scan_ms = scan_ms
        self.heartbeat_ms = heartbeat_ms
        self.rto_ms = rto_ms
        self.rto_max_ms = rto_max_ms
        self.retain = retain
        self.scanner = Scanner(sensors, debounce)
        self.decoder = wire.Decoder()
        self.pending = bytearray()  # event bytes of unacked events, oldest first
        self.oldest = 1  # event number of pending[0]
        self.last_seq = 0
        self.frame_seq = 0
        self.counters = {
            "frames_sent": 0,
            "events": 0,
            "retransmitted_frames": 0,
            "overflowed_events": 0,
            "scans": 0,
            "wrong_version": 0,
            "malformed": 0,
            "dropped_frames": 0,
            "discarded_frames": 0,
        }
        self._unreported = 0  # frames dropped and not yet told by NOTICE 4
        self._hash = -1
        self._rto = rto_ms
        self._retx_at = None  # type: int | None
        now = self._now()
        self._last_retx = ticks_add(now, -rto_ms)
        self._next_scan = now
        self._next_heartbeat = now
        self.scanner.prime(self._sample())

    # -- clock and i/o -------------------------------------------------------
    def _now(self) -> int:
        return self._ticks()

    def _sample(self) -> bytes | bytearray:
        return self._read()

    def _send(self, mtype: int, payload: bytes) -> None:
        """Write one frame; one that ``write`` drops is counted and told with the next one written."""
        self.frame_seq = (self.frame_seq + 1) & 0xFF
        if self._write(wire.encode_frame(self.frame_seq, mtype, payload)) is False:
            self.counters["dropped_frames"] += 1
            self._unreported += 1
            return
        self.counters["frames_sent"] += 1
        dropped = self._unreported
        if dropped:
            self._unreported = 0
            text = "%d frames dropped: output full" % dropped
            self._send(wire.NOTICE, wire.encode_notice(wire.NOTICE_FRAMES_DROPPED, text))
            if self._unreported:  # the notice was dropped too (and counted itself)
                self._unreported += dropped

    # -- state ---------------------------------------------------------------
    def states(self) -> bytearray:
        """The debounced state of every sensor (0/1), as of event ``last_seq``."""
        return self.scanner.stable

    def state_hash(self) -> int:
        """The CRC-32 fingerprint of the current state (cached until it changes)."""
        if self._hash < 0:
            self._hash = wire.state_hash(self.scanner.stable)
        return self._hash

    # -- receiving -----------------------------------------------------------
    def feed(self, data: bytes) -> None:
        """Handle bytes received from the host."""
        for frame in self.decoder.feed(data):
            self.handle(frame)

    def handle(self, frame: tuple[int, int, int, bytes]) -> None:
        """Act on one decoded frame ``(version, seq, type, payload)``."""
        version, _seq, mtype, payload = frame
        if mtype == wire.IDENTIFY:
            # a host starting its session: frames queued before it are not for it (events
            # stay pending and are resent) and drops before it were no loss to it
            if self._discard is not None:
                self.counters["discarded_frames"] += self._discard()
            self._unreported = 0
            # answered whatever the version, so the host can see ours and refuse
            self._send(
                wire.IDENT,
                wire.encode_ident(self.sensors, self.boot, 1000 // self.scan_ms, FIRMWARE_VERSION),
            )
            return
        if version != wire.PROTOCOL_VERSION:
            self.counters["wrong_version"] += 1
            return
        try:
            if mtype == wire.ACK:
                boot, seq = wire.decode_ack(payload)
                self._on_ack(boot, seq)
            elif mtype == wire.SNAPSHOT_REQ:
                self._send(
                    wire.SNAPSHOT,
                    wire.encode_snapshot(
                        self.boot, self.last_seq, self.oldest, self.scanner.stable
                    ),
                )
            elif mtype == wire.PING:
                self._send(wire.PONG, wire.encode_nonce(wire.decode_nonce(payload)))
            else:
                self.counters["malformed"] += 1
                self._send(
                    wire.NOTICE, wire.encode_notice(wire.NOTICE_UNKNOWN_TYPE, "type %d" % mtype)
                )
        except wire.WireError as exc:
            self.counters["malformed"] += 1
            self._send(wire.NOTICE, wire.encode_notice(wire.NOTICE_MALFORMED, str(exc)))

    def _on_ack(self, boot: int, seq: int) -> None:
        if boot != self.boot or seq > self.last_seq or seq < self.oldest - 1:
            return
        now = self._now()
        self._rto = self.rto_ms
        if seq == self.oldest - 1:
            # advances nothing: the host is there but lacks our pending events; resend
            # at once unless we just did
            if self.pending and ticks_diff(now, self._last_retx) >= self.rto_ms:
                self._retx_at = now
            return
        self.pending = self.pending[seq - self.oldest + 1 :]
        self.oldest = seq + 1
        if self.pending:
            self._retx_at = ticks_add(now, self._rto)
        else:
            self._retx_at = None

    # -- the loop ------------------------------------------------------------
    def tick(self) -> None:
        """Scan if due, retransmit unacked events if due, send a heartbeat if due."""
        now = self._now()
        if ticks_diff(now, self._next_scan) >= 0:
            self._next_scan = ticks_add(now, self.scan_ms)
            self.scan()
        if self._retx_at is not None and ticks_diff(now, self._retx_at) >= 0:
            self.counters["retransmitted_frames"] += self._send_events(
                self.oldest, self.pending, RESEND_CHUNK
            )
            self._last_retx = now
            self._rto = min(self._rto * 2, self.rto_max_ms)
            self._retx_at = ticks_add(now, self._rto)
        if ticks_diff(now, self._next_heartbeat) >= 0:
            self._next_heartbeat = ticks_add(now, self.heartbeat_ms)
            self._send(
                wire.HEARTBEAT,
                wire.encode_heartbeat(self.boot, self.last_seq, self.oldest, self.state_hash()),
            )

    def scan(self) -> list[tuple[int, int]]:
        """Sample the sensors once; number and send any debounced changes; return them."""
        self.counters["scans"] += 1
        changes = self.scanner.update(self._sample())
        if not changes:
            return changes
        self._hash = -1
        first = self.last_seq + 1
        fresh = bytearray()
        for sensor, state in changes:
            fresh.append(wire.event_byte(sensor, state))
        self.last_seq += len(changes)
        self.counters["events"] += len(changes)
        self.pending.extend(fresh)
        over = len(self.pending) - self.retain
        if over > 0:
            self.pending = self.pending[over:]
            self.oldest += over
            self.counters["overflowed_events"] += over
            self._send(
                wire.NOTICE, wire.encode_notice(wire.NOTICE_OVERFLOW, "%d events dropped" % over)
            )
        if len(fresh) > len(self.pending):
            fresh = fresh[len(fresh) - len(self.pending) :]
            first = self.oldest
        self._send_events(first, fresh)
        if self._retx_at is None:
            self._retx_at = ticks_add(self._now(), self._rto)
        return changes

    def _send_events(self, first: int, data: bytes | bytearray, per_frame: int = 0) -> int:
        """Send ``data`` (events as ``wire.event_byte``) numbered from ``first``, in frames
        of ``per_frame`` events (0: as many as the wire format allows); return the frames."""
        frames = 0
        per_frame = min(per_frame or wire.EVENTS_PER_FRAME, wire.EVENTS_PER_FRAME)
        for at in range(0, len(data), per_frame):
            chunk = data[at : at + per_frame]
            self._send(wire.EVENTS, wire.events_payload(self.boot, first + at, chunk))
            frames += 1
        return frames
