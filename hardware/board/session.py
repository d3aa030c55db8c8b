"""The host half of the board protocol (firmware/PROTOCOL.md) for one open port.

No I/O and no threads: bytes come in through :meth:`HostSession.feed`, frames go
out through ``send``, typed events through ``emit``, and time is passed in, so the
tests drive it against the real firmware code in-process. :class:`BoardLink`
(link.py) runs it over a serial port.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum

from controller.core.events import Event
from controller.core.quoting import printable
from firmware import wire
from hardware.board.errors import ProtocolMismatchError
from hardware.board.events import BoardResynced, LinkRestored, SensorChanged
from hardware.board.memory import BoardMemory, LinkStats, Record, RecordError
from hardware.board.said import Said
from hardware.board.unheard import unheard_reason

log = logging.getLogger(__name__)

RETRY_S = 0.05  # IDENTIFY / SNAPSHOT_REQ repeat
LISTEN_TIMEOUT_S = 3.0  # for the board's first frame: a boot's grace second, then heartbeats
IDENTIFY_TIMEOUT_S = 2.0
STALE_RUN_MAX = 4  # stale snapshots in a row that mean the board counts from 0 again
PROBE_S = 0.5  # for an answer to the carriage return sent to a board that sent no frame
TAIL_BYTES = 200  # the last bytes read, kept to say what a board that sends no frame sends
PING_EVERY_S = 1.0
AHEAD_MAX = 256  # events kept that arrived before a missing one


class LinkPhase(StrEnum):
    """Where the session is in the handshake."""

    IDENTIFY = "identify"
    SNAPSHOT = "snapshot"
    LIVE = "live"
    REFUSED = "refused"


SILENCE_S = 5.0
"""How long the board may send no valid frame before the link is lost (PROTOCOL.md: 5 s;
it sends a heartbeat every 250 ms)."""


@dataclass
class HostSession:
    """One connection's protocol state machine. ``poll`` returns a reason when the link must drop."""

    port: str
    send: Callable[[bytes], None]
    emit: Callable[[Event], None]
    memory: BoardMemory
    stats: LinkStats
    record: Record | None = None
    silence_s: float = SILENCE_S
    on_frame: Callable[[tuple[int, int, int, bytes]], None] | None = None
    phase: LinkPhase = LinkPhase.IDENTIFY
    refusal: str = ""
    _decoder: wire.Decoder = field(default_factory=wire.Decoder)
    _seq: int = 0
    _last_rx: float = 0.0
    _retry_at: float = 0.0
    _deadline: float = 0.0
    _ping_at: float = 0.0
    _pings: dict[int, float] = field(default_factory=dict)
    _nonce: int = 0
    _reconnect: bool = False
    _reason: str = ""
    _checkpoint: tuple[int, bytearray] | None = None
    _ahead: dict[int, tuple[int, int]] = field(default_factory=dict)
    _stale_run: int = 0  # snapshots behind the host's last event, in a row
    _heard: bool = False
    _probed: bool = False
    _tail: bytes = b""
    _invalid_before: int = 0  # bytes that made no frame before this port was opened
    _bad_ident: str = ""  # why the board's last answer to identify was unusable
    said: Said = field(default_factory=lambda: Said(log))  # a link's one, across sessions

    # -- driving -------------------------------------------------------------
    def start(self, now: float) -> None:
        """Begin the handshake on a freshly opened port: listen for the board's first frame
        before sending anything (PROTOCOL.md rule 6). A board that has just reset spends a
        grace second in ``main.py`` with Ctrl-C still on (``BOOT_GRACE_MS``), and a frame
        holding 0x03 sent then would stop the firmware at the MicroPython prompt for good."""
        self.phase = LinkPhase.IDENTIFY
        self._last_rx = now
        self._deadline = now + LISTEN_TIMEOUT_S
        self._reconnect = self.memory.states is not None
        self._reason = "reconnect" if self._reconnect else "first contact"
        self._heard = self._probed = False
        self._tail = b""
        self._bad_ident = ""
        self._invalid_before = self.stats.bytes_invalid

    def _identify(self, now: float) -> None:
        """The board was heard (it runs: past its grace second): send IDENTIFY, repeated."""
        self._heard = True
        self._deadline = now + IDENTIFY_TIMEOUT_S
        self._send(wire.IDENTIFY, wire.encode_identify())
        self._retry_at = now + RETRY_S

    def feed(self, data: bytes, now: float) -> None:
        """Handle bytes read from the port."""
        dec = self._decoder
        before = (dec.bytes_invalid, dec.bad_frames, dec.crc_failures, dec.frames)
        frames = dec.feed(data)
        if not self._heard:
            self._tail = (self._tail + data)[-TAIL_BYTES:]
        self.stats.bytes_invalid += dec.bytes_invalid - before[0]
        self.stats.bad_frames += dec.bad_frames - before[1]
        self.stats.crc_failures += dec.crc_failures - before[2]
        self.stats.frames += dec.frames - before[3]
        for frame in frames:
            if self.on_frame is not None:
                self.on_frame(frame)
            self._last_rx = now
            if not self._heard:
                self._identify(now)
            self._handle(frame, now)

    def poll(self, now: float) -> str | None:
        """Run timers; return why the link must be dropped, or None."""
        if self.phase is LinkPhase.REFUSED:
            return self.refusal
        if now - self._last_rx > self.silence_s:
            return f"no valid frame for {now - self._last_rx:.1f} s (expected a heartbeat every 0.25 s)"
        if self.phase is LinkPhase.IDENTIFY and not self._heard:
            if now > self._deadline and not self._probed:
                # a MicroPython prompt answers Enter with '>>> '; to a firmware that runs
                # a carriage return is a stray byte (no sync): it harms no frame
                self._probed = True
                self.send(b"\r")
                self._deadline = now + PROBE_S
            elif now > self._deadline:
                invalid = self.stats.bytes_invalid - self._invalid_before
                return unheard_reason(LISTEN_TIMEOUT_S, self._tail, invalid)
        elif self.phase is LinkPhase.IDENTIFY:
            if now > self._deadline:
                if self._bad_ident:  # it answered, with an IDENT the host cannot use
                    return f"the board's answer to identify is unusable: {self._bad_ident}"
                return f"no answer to identify within {IDENTIFY_TIMEOUT_S:.0f} s"
            if now >= self._retry_at:
                self._send(wire.IDENTIFY, wire.encode_identify())
                self._retry_at = now + RETRY_S
        elif self.phase is LinkPhase.SNAPSHOT:
            if now >= self._retry_at:
                self._send(wire.SNAPSHOT_REQ, b"")
                self._retry_at = now + RETRY_S
        elif now >= self._ping_at:
            self._nonce = (self._nonce + 1) & 0xFFFFFFFF
            self._pings[self._nonce] = now
            if len(self._pings) > 8:
                self._pings.pop(min(self._pings))
            self._send(wire.PING, wire.encode_nonce(self._nonce))
            self._ping_at = now + PING_EVERY_S
        return None

    # -- frames ---------------------------------------------------------------
    def _send(self, mtype: int, payload: bytes) -> None:
        self._seq = (self._seq + 1) & 0xFF
        self.send(wire.encode_frame(self._seq, mtype, payload))

    def _handle(self, frame: tuple[int, int, int, bytes], now: float) -> None:
        version, _seq, mtype, payload = frame
        if version != wire.PROTOCOL_VERSION:
            self.stats.wrong_version += 1
            self.said.warning("wrong_version", now, "%s: frame %s of protocol version %d, "
                               "expected %d; ignored", self.port,
                               wire.TYPE_NAMES.get(mtype, hex(mtype)), version,
                               wire.PROTOCOL_VERSION)  # fmt: skip
            if mtype == wire.IDENT:
                self._refuse(version)
            return
        try:
            if mtype == wire.EVENTS:
                if self.phase is LinkPhase.LIVE:
                    boot, first, events = wire.decode_events(payload)
                    self._on_events(boot, first, events, now)
            elif mtype == wire.HEARTBEAT:
                if self.phase is LinkPhase.LIVE:
                    self._on_heartbeat(*wire.decode_heartbeat(payload))
            elif mtype == wire.SNAPSHOT:
                if self.phase is LinkPhase.SNAPSHOT:
                    boot, seq, oldest, states = wire.decode_snapshot(payload)
                    self._on_snapshot(boot, seq, oldest, states, now)
            elif mtype == wire.IDENT:
                if self.phase is LinkPhase.IDENTIFY:
                    proto, sensors, boot, hz, fw = wire.decode_ident(payload)
                    self._on_ident(proto, sensors, boot, hz, fw, now)
            elif mtype == wire.PONG:
                sent = self._pings.pop(wire.decode_nonce(payload), None)
                if sent is not None:
                    self.stats.rtt_ms = (now - sent) * 1000
                    self.stats.rtt_max_ms = max(self.stats.rtt_max_ms, self.stats.rtt_ms)
            elif mtype == wire.NOTICE:
                code, text = wire.decode_notice(payload)
                self.stats.notices += 1
                self.said.warning(
                    "notice", now, "%s: board notice %d: %s", self.port, code, printable(text)
                )
            else:
                self.stats.malformed += 1
                self.said.warning("unexpected", now, "%s: unexpected message type 0x%02x from "
                                   "the board", self.port, mtype)  # fmt: skip
        except wire.WireError as exc:
            self.stats.malformed += 1
            if mtype == wire.IDENT and self.phase is LinkPhase.IDENTIFY:
                self._bad_ident = str(exc)
            self.said.warning(f"malformed {mtype}", now, "%s: malformed %s: %s", self.port,
                               wire.TYPE_NAMES.get(mtype), exc)  # fmt: skip

    def _refuse(self, version: int) -> None:
        self.phase = LinkPhase.REFUSED
        self.refusal = str(
            ProtocolMismatchError(
                f"the board on {self.port} speaks board protocol {version}, this host speaks "
                f"{wire.PROTOCOL_VERSION}: flash matching firmware with `toptable firmware deploy`"
            )
        )
        log.error("%s", self.refusal)

    def _on_ident(
        self, protocol: int, sensors: int, boot: int, scan_hz: int, fw: str, now: float
    ) -> None:
        if protocol != wire.PROTOCOL_VERSION:
            self._refuse(protocol)
            return
        mem = self.memory
        if mem.states is not None and len(mem.states) != sensors:
            log.warning(
                "%s: the board now has %d sensors, it had %d; starting afresh",
                self.port,
                sensors,
                len(mem.states),
            )
            mem.states = None
            mem.boot = None
            self._reconnect = False
        mem.sensors = sensors
        mem.firmware = fw
        log.info(
            "%s: %s, protocol %d, %d sensors at %d Hz, boot %d",
            self.port,
            printable(fw),
            protocol,
            sensors,
            scan_hz,
            boot,
        )
        self.emit(LinkRestored(self.port, fw, protocol, sensors, boot))
        self._want_snapshot(now)

    def _want_snapshot(self, now: float) -> None:
        self.phase = LinkPhase.SNAPSHOT
        self._stale_run = 0
        self._checkpoint = None
        self._ahead.clear()
        self._send(wire.SNAPSHOT_REQ, b"")
        self._retry_at = now + RETRY_S

    def resync(self, reason: str, now: float) -> None:
        """Ask for a snapshot and apply it as the truth."""
        self.stats.resyncs += 1
        self._reconnect = False
        self._reason = reason
        log.warning("%s: resynchronising: %s", self.port, reason)
        self._want_snapshot(now)

    def _on_snapshot(self, boot: int, seq: int, oldest: int, states: bytearray, now: float) -> None:
        mem = self.memory
        if len(states) != mem.sensors:
            self.stats.malformed += 1
            self.said.warning("snapshot size", now, "%s: snapshot of %d sensors, the board "
                               "said %d", self.port, len(states), mem.sensors)  # fmt: skip
            return
        same_boot = mem.states is not None and mem.boot == boot
        if same_boot and seq < mem.last:
            self.stats.stale_snapshots += 1
            self._stale_run += 1
            if self._stale_run < STALE_RUN_MAX:
                return  # an answer to an older request; the retry timer asks again
            # every answer is behind: the board counts its events from 0 again under the
            # same boot number (reset with its boot_count file lost): its snapshot is the truth
            log.warning(
                "%s: the board's events went back from %d to %d in boot %d: it was reset and "
                "kept its boot number; applying its snapshot",
                self.port,
                mem.last,
                seq,
                boot,
            )
            self._apply(boot, seq, states, now)
            return
        self._stale_run = 0
        if same_boot and self._reconnect and oldest <= mem.last + 1:
            # the board still holds every event we lack: take them one by one
            self.phase = LinkPhase.LIVE
            self._reconnect = False
            if seq == mem.last:
                self._verify(boot, seq, states, now)
            else:
                self._checkpoint = (seq, states)
            self._ack()
            return
        if same_boot and oldest > mem.last + 1:
            self.stats.gaps += 1
        self._apply(boot, seq, states, now)

    def _verify(self, boot: int, seq: int, states: bytearray, now: float) -> None:
        if self.memory.states == states:
            self.emit(BoardResynced(boot, seq, self.memory.occupied(), 0, self._reason))
        else:
            self.stats.hash_mismatches += 1
            log.warning(
                "%s: state at event %d differs from the board's snapshot; applying it",
                self.port,
                seq,
            )
            self._apply(boot, seq, states, now)

    def _apply(self, boot: int, seq: int, states: bytearray, now: float) -> None:
        mem = self.memory
        old = mem.states if mem.states is not None else bytearray(len(states))
        changed = 0
        for sensor in range(len(states)):
            if old[sensor] != states[sensor]:
                ev = SensorChanged(sensor, bool(states[sensor]), seq, boot, True, now)
                if not self._record(ev):
                    return  # not applied; the snapshot is asked for again
                old[sensor] = states[sensor]
                self.emit(ev)
                changed += 1
        mem.states = bytearray(states)
        mem.boot = boot
        mem.last = seq
        self._ahead.clear()
        self.phase = LinkPhase.LIVE
        self._checkpoint = None
        self._ack()
        self.emit(BoardResynced(boot, seq, mem.occupied(), changed, self._reason))

    def _record(self, ev: SensorChanged) -> bool:
        if self.record is None:
            return True
        try:
            self.record(ev)
        except RecordError as exc:
            self.stats.record_failures += 1
            log.error("%s: could not record %s: %s; it will come again", self.port, ev, exc)
            return False
        except Exception:  # a bug in the hook must not kill the link: not acked, comes again
            self.stats.record_failures += 1
            log.exception("%s: the record hook failed on %s; it will come again", self.port, ev)
            return False
        return True

    def _ack(self) -> None:
        if self.memory.boot is not None:
            self._send(wire.ACK, wire.encode_ack(self.memory.boot, self.memory.last))

    def _on_events(self, boot: int, first: int, events: list[tuple[int, int]], now: float) -> None:
        mem = self.memory
        states = mem.states
        if states is None or boot != mem.boot:
            self.resync(f"board was reset (boot {boot}, was {mem.boot})", now)
            return
        expected = mem.last + 1
        if first > expected:
            # a frame before this one was lost: keep these for later and ask for
            # the resend with an ACK that advances nothing
            self.stats.ahead += 1
            if first - expected < AHEAD_MAX:
                for i, event in enumerate(events):
                    self._ahead[first + i] = event
            self._ack()
            return
        skip = expected - first
        self.stats.duplicates += min(skip, len(events))
        queue = [(first + i, events[i]) for i in range(skip, len(events))]
        nxt = first + len(events)
        while nxt in self._ahead:
            queue.append((nxt, self._ahead[nxt]))
            nxt += 1
        for seq, (sensor, occupied) in queue:
            if sensor >= len(states):
                self.stats.bad_sensor += 1
                self.said.warning("bad_sensor", now, "%s: event %d names sensor %d, the board "
                                   "has sensors 0..%d; ignored", self.port, seq, sensor,
                                   len(states) - 1)  # fmt: skip
                mem.last = seq
                self._ahead.pop(seq, None)
                continue
            if states[sensor] == occupied:
                self.stats.inconsistent += 1
                self.resync(
                    f"event {seq} says sensor {sensor} became {'occupied' if occupied else 'empty'}, "
                    "which it already was",
                    now,
                )
                return
            ev = SensorChanged(sensor, bool(occupied), seq, boot, False, now)
            if not self._record(ev):
                break
            states[sensor] = occupied
            mem.last = seq
            self._ahead.pop(seq, None)
            self.stats.events += 1
            self.emit(ev)
            if self._checkpoint is not None and self._checkpoint[0] == seq:
                _, want = self._checkpoint
                self._checkpoint = None
                self._verify(boot, seq, want, now)
                if self.phase is not LinkPhase.LIVE:
                    return
        self._ack()

    def _on_heartbeat(self, boot: int, last: int, oldest: int, hash_: int) -> None:
        mem = self.memory
        now = self._last_rx
        if mem.states is None or boot != mem.boot:
            self.resync(f"board was reset (boot {boot}, was {mem.boot})", now)
        elif oldest > mem.last + 1:
            self.stats.gaps += 1
            self.resync(
                f"gap: the board kept events from {oldest}, the host has up to {mem.last}", now
            )
        elif last < mem.last:
            self.stats.inconsistent += 1
            self.resync(f"the board's last event is {last}, the host recorded {mem.last}", now)
        elif last == mem.last and hash_ != wire.state_hash(mem.states):
            self.stats.hash_mismatches += 1
            self.resync(f"state hash differs at event {last}", now)
        elif last > mem.last:
            self._ack()  # events are missing: ask for them now
