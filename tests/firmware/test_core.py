"""The firmware's logic on CPython: debounce, numbered events, acks, retransmission, answers."""

from __future__ import annotations

import itertools

import pytest

from firmware import wire
from firmware.core import Firmware, Outbox
from firmware.scanner import Scanner


class Rig:
    """A firmware on a simulated matrix with a hand-driven clock; records every frame sent."""

    def __init__(self, sensors: int = 8, **kw: int) -> None:
        self.now = 0
        self.matrix = bytearray(sensors)
        self.out: list[tuple[int, int, int, bytes]] = []
        self.dec = wire.Decoder()
        self.room: int | None = None  # frames the port still takes (None: all)
        self.fw = Firmware(
            sensors, lambda: self.matrix, self.write, lambda: self.now, boot=7, discard=None, **kw
        )  # writes go straight out: no queue to discard from

    def write(self, data: bytes) -> bool:
        if self.room is not None:
            if self.room <= 0:
                return False
            self.room -= 1
        self.out += self.dec.feed(data)
        return True

    def run(self, ms: int) -> None:
        for _ in range(ms):
            self.now += 1
            self.fw.tick()

    def send(self, mtype: int, payload: bytes = b"", version: int = wire.PROTOCOL_VERSION) -> None:
        self.fw.feed(wire.encode_frame(1, mtype, payload, version))

    def of(self, mtype: int) -> list[bytes]:
        return [f[3] for f in self.out if f[2] == mtype]

    def events(self) -> list[tuple[int, int, list[tuple[int, int]]]]:
        return [wire.decode_events(p) for p in self.of(wire.EVENTS)]


def test_scanner_needs_agreeing_samples() -> None:
    s = Scanner(3, debounce=3)
    assert s.update(b"\x01\x00\x00") == []
    assert s.update(b"\x01\x00\x00") == []
    assert s.update(b"\x00\x00\x00") == []  # bounce resets the count
    assert [s.update(b"\x01\x00\x00") for _ in range(3)] == [[], [], [(0, 1)]]
    with pytest.raises(ValueError, match=r"sensors must be 1\.\.128"):
        Scanner(129)


def test_a_change_becomes_one_numbered_event_within_two_scans() -> None:
    rig = Rig(scan_ms=5, debounce=2)
    rig.run(20)
    rig.matrix[3] = 1
    rig.run(10)
    assert rig.events() == [(7, 1, [(3, 1)])]
    rig.matrix[3] = 0
    rig.matrix[5] = 1
    rig.run(10)
    assert rig.events()[-1] == (7, 2, [(3, 0), (5, 1)])
    assert rig.fw.last_seq == 3


def test_many_changes_at_once_go_in_frames_of_the_wire_formats_size(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Review truth f08: the firmware built EVENTS by hand, 32 a frame whatever the wire
    format said; it writes them with firmware/wire.py now, the one source for both sides."""
    monkeypatch.setattr(wire, "EVENTS_PER_FRAME", 4)
    rig = Rig(sensors=10, scan_ms=5, debounce=2)
    rig.run(20)
    rig.matrix[:] = bytes([1] * 10)
    rig.run(10)
    sent = rig.events()
    assert [len(events) for _boot, _first, events in sent] == [4, 4, 2]
    assert [first for _boot, first, _events in sent] == [1, 5, 9]
    assert [e for *_, events in sent for e in events] == [(i, 1) for i in range(10)]


def test_unacked_events_are_resent_with_backoff_until_acked() -> None:
    rig = Rig(rto_ms=60, rto_max_ms=200)
    rig.matrix[1] = 1
    rig.run(10)
    rig.run(600)
    sends = rig.events()
    assert all(e == (7, 1, [(1, 1)]) for e in sends)
    assert 4 <= len(sends) <= 6  # 60, 120, 200, 200... ms apart
    assert rig.fw.counters["retransmitted_frames"] == len(sends) - 1
    rig.send(wire.ACK, wire.encode_ack(7, 1))
    rig.out.clear()
    rig.run(600)
    assert rig.events() == []
    assert rig.fw.pending == bytearray()


def test_an_ack_that_advances_nothing_makes_it_resend_at_once() -> None:
    rig = Rig(rto_ms=60, rto_max_ms=500)
    rig.matrix[1] = 1
    rig.run(1000)  # backed off to 500 ms between resends
    rig.out.clear()
    rig.send(wire.ACK, wire.encode_ack(7, 0))
    rig.run(2)
    assert rig.events() == [(7, 1, [(1, 1)])]
    rig.send(wire.ACK, wire.encode_ack(7, 0))  # again at once: no storm
    rig.run(2)
    assert len(rig.events()) == 1


def test_acks_for_another_boot_or_unsent_events_are_ignored() -> None:
    rig = Rig()
    rig.matrix[1] = 1
    rig.run(20)
    rig.send(wire.ACK, wire.encode_ack(6, 1))
    rig.send(wire.ACK, wire.encode_ack(7, 9))
    assert len(rig.fw.pending) == 1


def test_overflow_drops_the_oldest_and_says_so() -> None:
    rig = Rig(retain=4)
    for i in range(6):
        rig.matrix[i] = 1
        rig.run(12)
    assert rig.fw.oldest == 3
    assert len(rig.fw.pending) == 4
    assert rig.fw.counters["overflowed_events"] == 2
    assert [wire.decode_notice(p)[0] for p in rig.of(wire.NOTICE)] == [3, 3]
    rig.run(250)
    hb = wire.decode_heartbeat(rig.of(wire.HEARTBEAT)[-1])
    assert hb[1:3] == (6, 3)


def test_identify_snapshot_ping_and_heartbeat() -> None:
    rig = Rig(sensors=12)
    rig.matrix[2] = rig.matrix[11] = 1
    rig.run(20)
    rig.send(wire.IDENTIFY, wire.encode_identify())
    rig.send(wire.SNAPSHOT_REQ)
    rig.send(wire.PING, wire.encode_nonce(99))
    assert wire.decode_ident(rig.of(wire.IDENT)[0]) == (1, 12, 7, 200, "toptable-fw 1.0")
    boot, seq, oldest, states = wire.decode_snapshot(rig.of(wire.SNAPSHOT)[0])
    assert (boot, seq, oldest, [i for i, s in enumerate(states) if s]) == (7, 2, 1, [2, 11])
    assert wire.decode_nonce(rig.of(wire.PONG)[0]) == 99
    rig.run(300)
    hb = wire.decode_heartbeat(rig.of(wire.HEARTBEAT)[-1])
    assert hb == (7, 2, 1, wire.state_hash(states))


def test_wrong_version_frames_are_counted_but_identify_is_answered() -> None:
    rig = Rig()
    rig.send(wire.PING, wire.encode_nonce(1), version=2)
    assert rig.of(wire.PONG) == []
    assert rig.fw.counters["wrong_version"] == 1
    rig.send(wire.IDENTIFY, wire.encode_identify(2), version=2)
    assert rig.out[-1][0] == wire.PROTOCOL_VERSION  # the host sees our version and refuses


def test_unknown_and_malformed_messages_get_a_notice() -> None:
    rig = Rig()
    rig.send(0x33)
    rig.send(wire.ACK, b"\x00")
    codes = [wire.decode_notice(p)[0] for p in rig.of(wire.NOTICE)]
    assert codes == [wire.NOTICE_UNKNOWN_TYPE, wire.NOTICE_MALFORMED]
    assert rig.fw.counters["malformed"] == 2


def test_outbox_writes_a_byte_at_a_time_only_while_the_port_takes_them() -> None:
    taken = bytearray()
    room = [5]

    def write(byte: bytearray) -> None:
        taken.extend(byte)
        room[0] -= len(byte)

    box = Outbox(write, lambda: room[0] > 0, size=20)
    assert box.put(b"a" * 8) and box.put(b"b" * 8)
    assert not box.put(b"c" * 5)  # 21 bytes would wait: dropped whole
    assert box.pump(100) == 5 and taken == b"a" * 5  # the port took 5: no write beyond
    assert box.pump(100) == 0 and box.waiting() == 11
    assert box.put(b"d" * 9) and not box.put(b"e")  # room again for 9, not 10
    room[0] = 100
    assert box.pump(6) == 6  # at most the budget per call
    assert box.pump() == 14 and box.waiting() == 0
    assert taken == b"a" * 8 + b"b" * 8 + b"d" * 9


def test_an_idle_outbox_allocates_nothing() -> None:
    # pump() runs every millisecond of the Pico's loop: a new buffer each time would be
    # garbage for MicroPython's collector to stop the scan for
    box = Outbox(lambda byte: None, lambda: False)
    idle = box.buf
    assert box.pump() == 0 and box.buf is idle  # nothing queued
    assert box.put(b"abc") and box.pump() == 0  # the port takes nothing
    queued = box.buf
    assert box.pump() == 0 and box.buf is queued and box.waiting() == 3


def test_dropped_frames_leave_a_seq_gap_and_are_told_with_the_next_frame_written() -> None:
    rig = Rig(8, rto_ms=60, rto_max_ms=200)
    rig.run(1)  # heartbeat, SEQ 1
    rig.room = 0  # the port takes nothing
    rig.matrix[2] = 1
    rig.run(700)  # the event, its resends and heartbeats: all dropped
    dropped = rig.fw.counters["dropped_frames"]
    assert dropped >= 5 and [f[1] for f in rig.out] == [1]
    rig.room = 1  # one frame gets through, its NOTICE does not
    rig.run(300)
    assert [f[1] for f in rig.out] == [1, 1 + dropped + 1] and not rig.of(wire.NOTICE)
    rig.room = None
    rig.run(300)
    seqs = [f[1] for f in rig.out]
    skipped = sum(b - a - 1 for a, b in itertools.pairwise(seqs))
    notices = [wire.decode_notice(p) for p in rig.of(wire.NOTICE)]
    assert [code for code, _ in notices] == [wire.NOTICE_FRAMES_DROPPED]
    assert notices[0][1] == f"{skipped} frames dropped: output full"
    assert skipped == rig.fw.counters["dropped_frames"]
    assert rig.events()[-1] == (7, 1, [(2, 1)])  # kept, resent: nothing lost
    assert rig.fw.counters["frames_sent"] == len(rig.out)


def test_a_host_that_identifies_is_not_told_of_earlier_drops() -> None:
    rig = Rig(8)
    rig.room = 0
    rig.run(600)  # heartbeats dropped: no host listening
    assert rig.fw.counters["dropped_frames"] == 3
    rig.room = None
    rig.send(wire.IDENTIFY, wire.encode_identify())
    rig.run(300)
    assert [f[2] for f in rig.out] == [wire.IDENT, wire.HEARTBEAT]  # no NOTICE


def heartbeat_frame(seq: int) -> bytes:
    return wire.encode_frame(seq, wire.HEARTBEAT, wire.encode_heartbeat(7, seq, seq + 1, 0))


def test_outbox_discard_finishes_the_frame_in_flight_and_drops_the_frames_not_started() -> None:
    taken = bytearray()
    room = [25]

    def write(byte: bytearray) -> None:
        taken.extend(byte)
        room[0] -= 1

    box = Outbox(write, lambda: room[0] > 0, size=200)
    assert all(box.put(heartbeat_frame(seq)) for seq in (1, 2, 3, 4))  # 21 bytes each
    assert box.pump() == 25  # frame 1 and 4 bytes of frame 2
    assert box.discard() == 2 and box.waiting() == 17  # 3 and 4; the rest of 2 stays
    assert box.put(heartbeat_frame(5))
    room[0] = 1000
    assert box.pump() == 38 and box.waiting() == 0
    dec = wire.Decoder()
    assert [f[1] for f in dec.feed(bytes(taken))] == [1, 2, 5] and dec.bytes_invalid == 0
    # at a frame boundary nothing is in flight: every frame goes; an empty outbox drops nothing
    assert box.put(heartbeat_frame(6)) and box.put(heartbeat_frame(7))
    room[0] = 21
    assert box.pump() == 21 and box.discard() == 1 and box.waiting() == 0
    assert box.discard() == 0 and box.pump() == 0
    assert [f[1] for f in dec.feed(bytes(taken[-21:]))] == [6] and dec.pending() == 0


def test_identify_drops_the_frames_queued_for_an_earlier_host_but_no_event() -> None:
    """The last host stops reading in the middle of a token's EVENTS frame; for 500 ms its resends
    and heartbeats queue up. A host then identifies: after the rest of that frame, its first frame
    is the IDENT, and the event, kept, comes when its ACK asks for it (PROTOCOL.md rules 5, 6)."""
    now = [0]
    matrix = bytearray(8)
    taken = bytearray()
    room = [30]  # the last host takes a heartbeat and 9 bytes of the EVENTS frame, then stops

    def write(byte: bytearray) -> None:
        taken.extend(byte)
        room[0] -= 1

    box = Outbox(write, lambda: room[0] > 0)
    fw = Firmware(8, lambda: matrix, box.put, lambda: now[0], boot=7, discard=box.discard)

    def run(ms: int) -> None:
        for _ in range(ms):
            now[0] += 1
            fw.tick()
            box.pump()

    run(100)
    matrix[2] = 1
    run(500)
    queued = fw.counters["frames_sent"]
    assert queued >= 6 and fw.counters["dropped_frames"] == 0 and len(taken) == 30
    room[0] = 10_000  # a new host opens the port
    fw.feed(wire.encode_frame(1, wire.IDENTIFY, wire.encode_identify()))
    run(1)
    dec = wire.Decoder()
    frames = dec.feed(bytes(taken))
    assert dec.bytes_invalid == 0 and dec.pending() == 0  # the frame in flight was finished
    assert [f[2] for f in frames] == [wire.HEARTBEAT, wire.EVENTS, wire.IDENT]
    assert fw.counters["discarded_frames"] == queued - 2
    assert fw.pending == bytearray(b"\x82")  # the event is kept
    seen = len(taken)
    fw.feed(wire.encode_frame(2, wire.ACK, wire.encode_ack(7, 0)))  # advances nothing: resend
    run(1)
    assert [wire.decode_events(f[3]) for f in dec.feed(bytes(taken[seen:]))] == [(7, 1, [(2, 1)])]
