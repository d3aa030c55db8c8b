"""The host protocol session against the real firmware in-process: nothing lost, nothing invented."""

from __future__ import annotations

import itertools
import logging
import random
from collections.abc import Callable

import pytest

from firmware import wire
from hardware.board.accounting import tally
from hardware.board.events import BoardResynced, LinkRestored, SensorChanged
from hardware.board.memory import BoardMemory, LinkStats, RecordError
from hardware.board.said import Said
from hardware.board.session import HostSession, LinkPhase
from tests.hardware.board.helpers import Loopback


def occupied(lb: Loopback) -> frozenset[int]:
    return frozenset(i for i, s in enumerate(lb.matrix) if s)


def test_handshake_then_live_events_in_order() -> None:
    lb = Loopback()
    lb.set(2, True)
    lb.run(50)
    assert lb.session.phase is LinkPhase.LIVE
    kinds = [type(e) for e in lb.events]
    assert kinds == [LinkRestored, BoardResynced, SensorChanged]
    lb.set(5, True)
    lb.set(2, False)
    lb.run(30)
    live = [e for e in lb.changes() if not e.resync]
    assert [(e.sensor, e.occupied, e.seq) for e in live] == [
        (2, True, 1),
        (2, False, 2),
        (5, True, 3),
    ]
    assert lb.fw.pending == bytearray()  # all acked
    assert lb.memory.occupied() == {5}


@pytest.mark.timeout(30)
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_noisy_line_unplugs_and_resets_lose_nothing(seed: int) -> None:
    lb = Loopback(sensors=24, corrupt=0.01, drop=0.005, seed=seed)
    rng = random.Random(seed)
    lb.run(100)
    for round_ in range(6):
        lb.random_play(rng, 60)
        if round_ % 2 == 0:
            lb.unplug()
            lb.random_play(rng, 10)  # moves while the cable is out
            lb.replug()
        else:
            lb.reset()
    lb.run(3000)
    t = tally(lb.truth, lb.changes())
    assert (t.lost, t.phantom) == (0, 0), (t.lost_examples, t.phantom_examples)
    assert lb.memory.occupied() == occupied(lb)
    assert lb.stats.bad_frames > 0 and lb.stats.resyncs >= 3


def test_reconnect_replays_kept_events_one_by_one() -> None:
    lb = Loopback()
    lb.run(50)
    lb.unplug()
    lb.set(1, True)
    lb.run(40)
    lb.set(1, False)  # lifted and put back while unplugged: a snapshot alone would miss both
    lb.run(40)
    lb.replug()
    lb.run(600)  # the host speaks once it hears the board: its next heartbeat, 0.25 s at most
    live = [(e.sensor, e.occupied, e.resync) for e in lb.changes()]
    assert live == [(1, True, False), (1, False, False)]
    assert isinstance(lb.events[-1], BoardResynced) or any(
        isinstance(e, BoardResynced) and e.reason == "reconnect" for e in lb.events
    )


def test_reset_resyncs_from_the_snapshot() -> None:
    lb = Loopback()
    lb.set(3, True)
    lb.run(50)
    lb.set(3, False)  # moved while the board rebooted
    lb.set(4, True)
    lb.reset()
    lb.run(400)
    resynced = [e for e in lb.events if isinstance(e, BoardResynced)]
    assert resynced[-1].boot == 2 and resynced[-1].occupied == {4}
    assert resynced[-1].changed == 2
    assert "reset" in resynced[-1].reason


def test_events_are_acked_only_after_the_record_hook_returns() -> None:
    recorded: list[SensorChanged] = []
    fail = {"n": 2}

    def record(ev: SensorChanged) -> None:
        if not ev.resync and fail["n"] > 0:
            fail["n"] -= 1
            raise RecordError("disk full")
        recorded.append(ev)

    lb = Loopback(record=record)
    lb.run(50)
    lb.set(7, True)
    lb.run(5)
    for _ in range(10):
        lb.run(1)
        if lb.stats.record_failures == 1:
            break
    assert lb.fw.pending  # not acked while recording fails
    lb.run(500)
    assert [(e.sensor, e.seq) for e in recorded if not e.resync] == [(7, 1)]
    assert lb.stats.record_failures == 2
    assert not lb.fw.pending


def test_a_change_the_journal_could_not_take_during_a_resync_comes_again() -> None:
    """Review tests h02: a snapshot's change whose recording failed must not be applied
    (nor acked): the snapshot is asked for again and the change recorded then, once."""
    recorded: list[SensorChanged] = []
    fail = {"n": 1}

    def record(ev: SensorChanged) -> None:
        if ev.resync and fail["n"] > 0:
            fail["n"] -= 1
            raise RecordError("disk full")
        recorded.append(ev)

    lb = Loopback(record=record)
    lb.run(50)
    lb.set(3, True)  # on the board as it restarts: told by its snapshot
    lb.set(4, True)
    lb.reset()
    lb.run(800)
    assert fail["n"] == 0 and lb.stats.record_failures == 1
    assert sorted((e.sensor, e.occupied) for e in recorded) == [(3, True), (4, True)]
    emitted = [e for e in lb.events if isinstance(e, SensorChanged)]
    assert sorted((e.sensor, e.occupied) for e in emitted) == [(3, True), (4, True)]
    assert occupied(lb) == {3, 4}


def test_wrong_protocol_version_is_refused_with_a_clear_message(
    caplog: pytest.LogCaptureFixture,
) -> None:
    lb = Loopback()
    real = lb.fw._send

    def v2(mtype: int, payload: bytes) -> None:
        lb.fw.frame_seq += 1
        lb._board_write(wire.encode_frame(lb.fw.frame_seq, mtype, payload, version=2))

    lb.fw._send = v2  # type: ignore[method-assign]
    with caplog.at_level(logging.ERROR):
        drops = lb.run(50)
    assert drops and "speaks board protocol 2, this host speaks 1" in drops[0]
    assert "toptable firmware deploy" in caplog.text
    assert lb.stats.wrong_version >= 1
    assert not lb.changes()
    lb.fw._send = real  # type: ignore[method-assign]


def test_sensor_beyond_the_board_is_counted_and_skipped() -> None:
    lb = Loopback(sensors=8)
    lb.run(50)
    bad = wire.encode_frame(1, wire.EVENTS, wire.encode_events(1, 1, [(100, 1)]))
    lb.session.feed(bad, lb.now)
    assert lb.stats.bad_sensor == 1
    assert lb.memory.last == 1
    assert lb.session.phase is LinkPhase.LIVE


def test_garbage_between_frames_is_counted_not_fatal() -> None:
    lb = Loopback()
    lb.run(50)
    lb.session.feed(b"\r\nMicroPython v1.23\r\n>>> AT+GCAP\r\n\x7e\x7e\x01", lb.now)
    lb.set(0, True)
    lb.run(50)
    assert lb.stats.bytes_invalid > 20
    assert [e.sensor for e in lb.changes() if not e.resync] == [0]


def test_silence_drops_the_link_after_five_seconds() -> None:
    lb = Loopback()
    lb.run(50)
    lb.plugged = False  # line dead but the port stays open
    drops = lb.run(5300)
    assert drops and drops[0].startswith("no valid frame for 5.0 s")


def test_a_gap_after_the_board_overflowed_is_healed_by_the_snapshot() -> None:
    lb = Loopback(sensors=40)
    lb.run(50)
    lb.unplug()
    for round_ in range(4):  # 160 changes > the 128 the board keeps
        for s in range(40):
            lb.set(s, round_ % 2 == 0)
            lb.run(12)
    lb.set(7, True)
    lb.run(20)
    assert lb.fw.counters["overflowed_events"] > 0
    lb.replug()
    lb.run(500)
    assert lb.stats.gaps == 1
    assert lb.memory.occupied() == occupied(lb) == {7}
    assert lb.memory.last == lb.fw.last_seq


def test_a_state_that_drifted_is_caught_by_the_heartbeat_hash() -> None:
    lb = Loopback()
    lb.set(1, True)
    lb.run(50)
    assert lb.memory.states is not None
    lb.memory.states[5] = 1  # as if a bad frame had slipped through
    lb.run(300)
    assert lb.stats.hash_mismatches == 1
    assert lb.memory.occupied() == {1}
    fixed = [e for e in lb.changes() if e.resync and e.sensor == 5]
    assert [e.occupied for e in fixed] == [False]


def test_a_board_reset_that_kept_its_boot_number_is_resynced() -> None:
    """A board reset with its boot_count file lost (a wiped or swapped Pico) comes back with
    the boot number the host knows but counts its events from 0: its snapshots all look
    older than the host's last event. The host takes the snapshot as the truth rather than
    asking again for ever."""
    lb = Loopback()
    lb.run(50)
    for sensor in range(6):
        lb.set(sensor, True)
        lb.run(40)
    lb.unplug()
    lb.fw = lb._firmware()  # the same boot number, events from 0 again
    lb.set(0, False)
    lb.set(9, True)
    lb.replug()
    lb.run(1500)
    assert lb.session.phase is LinkPhase.LIVE
    assert lb.memory.occupied() == occupied(lb) == {1, 2, 3, 4, 5, 9}
    lb.set(12, True)
    lb.run(300)
    assert 12 in lb.memory.occupied()


def _unknown_type(n: int) -> bytes:
    return wire.encode_frame(1, 0x99, b"")


def _short_heartbeat(n: int) -> bytes:
    return wire.encode_frame(1, wire.HEARTBEAT, b"\x01")


def _other_protocol(n: int) -> bytes:
    return wire.encode_frame(1, wire.HEARTBEAT, b"", version=2)


def _missing_sensor(n: int) -> bytes:  # event n of boot 1 (each a new one)
    return wire.encode_frame(1, wire.EVENTS, wire.encode_events(1, n, [(100, 1)]))


@pytest.mark.parametrize(
    ("frame", "counter"),
    [
        (_unknown_type, "malformed"),
        (_short_heartbeat, "malformed"),
        (_other_protocol, "wrong_version"),
        (_missing_sensor, "bad_sensor"),
    ],
)
def test_frames_the_host_cannot_use_are_said_once_a_minute_and_counted_as_trouble(
    frame: Callable[[int], bytes], counter: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Review 96: 500 CRC-valid frames the host cannot use gave 500 warnings."""
    lb = Loopback(sensors=8)
    lb.run(50)
    with caplog.at_level(logging.WARNING, logger="hardware.board.session"):
        for n in range(1, 501):
            lb.session.feed(frame(n), lb.now)
        lb.ms += 61_000  # a minute later
        lb.session.feed(frame(501), lb.now)
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2, said
    assert said[1].endswith("(499 more like it in the 61 s before)")
    assert getattr(lb.stats, counter) == 501
    assert lb.stats.trouble()[counter] == 501
    assert "frames the host cannot use" in lb.stats.health_line()


def test_an_unusable_answer_to_identify_is_named_as_the_reason() -> None:
    lb = Loopback(sensors=8)
    ident = lb.fw._send

    def no_sensors(mtype: int, payload: bytes) -> None:
        if mtype == wire.IDENT:
            payload = payload[:1] + b"\x00" + payload[2:]  # an IDENT naming 0 sensors
        ident(mtype, payload)

    lb.fw._send = no_sensors  # type: ignore[method-assign]
    drops = lb.run(3000)
    assert drops and drops[0] == (
        "the board's answer to identify is unusable: IDENT names 0 sensors, expected 1..128"
    )


def test_text_from_the_board_is_logged_escaped(caplog: pytest.LogCaptureFixture) -> None:
    lb = Loopback(sensors=8)
    lb.run(50)
    with caplog.at_level(logging.WARNING, logger="hardware.board.session"):
        notice = wire.encode_frame(1, wire.NOTICE, b"\x05fw\nFAKE LOG LINE\x1b[2J")
        lb.session.feed(notice, lb.now)
    (said,) = [r.getMessage() for r in caplog.records]
    assert "\n" not in said and "\x1b" not in said and "FAKE LOG LINE" in said


def test_the_sessions_of_one_link_share_their_warnings_limit(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Review 98: each reconnection made a new session, and with it a new once-a-minute
    limit (27 warnings a minute from a board dropped every 2 s)."""
    said = Said(logging.getLogger("hardware.board.session"))
    frame = wire.encode_frame(1, 0x99, b"")
    with caplog.at_level(logging.WARNING, logger="hardware.board.session"):
        for at in (0.0, 2.0, 4.0):
            session = HostSession("loop", lambda _: None, lambda _: None, BoardMemory(),
                                  LinkStats(), said=said)  # fmt: skip
            session.start(at)
            session.feed(frame, at)
    assert len(caplog.records) == 1


def test_a_frame_that_fails_its_crc_is_counted_as_such() -> None:
    """A frame garbled on the wire is counted as a bad frame that failed its CRC (the
    health line a noisy cable is found by), and the next good one still counts."""
    lb = Loopback()
    lb.run(50)
    good = wire.encode_frame(1, wire.PONG, wire.encode_nonce(12345))
    garbled = good[:-1] + bytes([good[-1] ^ 0xFF])
    lb.session.feed(garbled, lb.now)
    assert (lb.stats.crc_failures, lb.stats.bad_frames) == (1, 1)
    assert "1 failed their CRC" in lb.stats.health_line()


def test_the_hosts_frame_counter_wraps_at_256() -> None:
    """PROTOCOL.md: SEQ is the sender's frame counter, +1 per frame, wrapping at 256."""
    lb = Loopback()
    seqs: list[int] = []
    to_board = lb.down.process

    def seen(data: bytes) -> bytes:  # what the host writes, a frame a write
        seqs.extend(seq for _v, seq, _t, _p in wire.Decoder().feed(data))
        return to_board(data)

    lb.down.process = seen  # type: ignore[method-assign]
    lb.random_play(random.Random(7), 400)
    assert len(seqs) > 256 and max(seqs) == 255
    assert all(b == (a + 1) % 256 for a, b in itertools.pairwise(seqs))


def test_a_prompt_read_in_pieces_is_still_named() -> None:
    """A board at the MicroPython prompt whose banner and prompt come in several reads is
    named as such when the host gives up listening, not as bytes of no frame."""
    session = HostSession("loop", lambda _: None, lambda _: None, BoardMemory(), LinkStats())
    session.start(0.0)
    for i, chunk in enumerate(
        (b"MicroPython v1.23 on 2024-06-02; Raspberry Pi Pico\r\n", b">", b">> ")
    ):
        session.feed(chunk, 0.1 * i)
    assert session.poll(3.5) is None  # listened 3 s: the carriage return's probe
    reason = session.poll(4.1)
    assert reason is not None and "MicroPython prompt" in reason


def test_the_slowest_round_trip_is_kept_though_later_ones_are_quick() -> None:
    """The link's RTT figures: the last ping's, and the slowest one seen (a stall of the
    line shows there after it has passed)."""
    lb = Loopback()
    lb.run(2500)
    held = bytearray()
    for _ in range(1200):  # the host's frames stuck on the way for 1.2 s: a ping among them
        held += lb.to_board
        lb.to_board.clear()
        lb.run(1)
    lb.to_board[:0] = held
    lb.run(2500)  # quick pings again
    assert lb.stats.rtt_max_ms >= 200 and lb.stats.rtt_ms < 100
