"""The board's firmware logic: scan, number events, keep them until acked, answer the host.

Runs unchanged on MicroPython (``main.py`` gives it real pins and USB serial) and
on CPython (tests and the simulator give it a simulated matrix and a pseudo-
terminal). Hardware and clock are injected: ``read()`` returns one 0/1 value per
sensor, ``write(data)`` sends bytes, ``ticks()`` returns milliseconds.
"""

from firmware import wire
from firmware.compat import ticks_add, ticks_diff

try:
    from typing import Callable
except ImportError:  # MicroPython has no typing; it does not evaluate annotations either
    pass

FIRMWARE_VERSION = "toptable-fw 1.0"
RESEND_CHUNK = 8  # events per resent frame: short frames survive a noisy line better


class Firmware:
    """One run (boot) of the board firmware. Call ``feed()`` with received bytes and ``tick()`` often."""

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
    ) -> None:
        from firmware.scanner import Scanner

        self.sensors = sensors
        self._read = read
        self._write = write
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
        }
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
        self.frame_seq = (self.frame_seq + 1) & 0xFF
        self.counters["frames_sent"] += 1
        self._write(wire.encode_frame(self.frame_seq, mtype, payload))

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
            fresh.append(sensor | (0x80 if state else 0))
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

    def _send_events(self, first: int, data: bytes | bytearray, per_frame: int = 32) -> int:
        frames = 0
        for at in range(0, len(data), per_frame):
            chunk = data[at : at + per_frame]
            payload = wire.u16(self.boot) + wire.u32(first + at) + bytes(chunk)
            self._send(wire.EVENTS, payload)
            frames += 1
        return frames
