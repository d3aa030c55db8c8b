"""A link in trouble is counted and said: CRC failures, the health line and its rate limit."""

from __future__ import annotations

import logging
import queue
from pathlib import Path

import pytest

from controller.core.events import Event
from firmware import wire
from hardware.board.health import HealthReport
from hardware.board.link import BoardLink
from hardware.board.memory import LinkStats
from hardware.board.relay import FaultRelay
from hardware.board.sim import SimBoard
from tests.waiting import wait_until


def test_the_decoder_counts_a_frame_that_fails_its_crc() -> None:
    frame = bytearray(wire.encode_frame(3, wire.PING, b"\x01\x02"))
    frame[5] ^= 0x40  # a payload byte garbled on the wire
    dec = wire.Decoder()
    assert dec.feed(bytes(frame) + wire.encode_frame(4, wire.PING)) == [
        (wire.PROTOCOL_VERSION, 4, wire.PING, b"")
    ]
    assert (dec.crc_failures, dec.bad_frames, dec.frames) == (1, 1, 1)
    assert dec.bytes_invalid == len(frame)


def test_the_health_line_is_said_when_counters_grow_at_most_once_per_period() -> None:
    stats = LinkStats()
    report = HealthReport(stats, every_s=60.0)
    assert report.due(0.0) is None  # a healthy link says nothing
    stats.bytes_invalid, stats.bad_frames, stats.crc_failures = 7, 1, 1
    assert report.due(1.0) == (
        "link health: 7 garbled bytes, 1 bad frames (1 failed their CRC), 0 resyncs, 0 reconnects"
    )
    stats.reconnects = 1
    assert report.due(30.0) is None  # within the minute
    assert report.due(61.0) is not None and report.due(200.0) is None  # nothing new since
    stats.resyncs = 2
    assert report.now(200.5) == (
        "link health: 7 garbled bytes, 1 bad frames (1 failed their CRC), 2 resyncs, 1 reconnects"
    )


@pytest.mark.timeout(60)
def test_the_link_counts_and_logs_a_noisy_cable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    q: queue.Queue[Event] = queue.Queue()
    noisy = FaultRelay(corrupt=0.02, seed=3)
    with (
        caplog.at_level(logging.WARNING, logger="hardware.board.link"),
        SimBoard(sensors=8, link=tmp_path / "board", relay_up=noisy) as sim,
        BoardLink(sim.path, q) as link,
    ):
        wait_until(lambda: link.stats.crc_failures > 0, 30, "a frame failing its CRC")
        wait_until(
            lambda: any("link health:" in r.getMessage() for r in caplog.records),
            10,
            "the health line in the log",
        )
    said = [r.getMessage() for r in caplog.records if "link health:" in r.getMessage()]
    assert said[0].startswith(f"{sim.path}: link health: ")
    assert "failed their CRC" in said[0]
    assert len(said) == 1  # once a minute at most, however many bytes were garbled
    assert link.stats.bytes_invalid >= link.stats.bad_frames >= link.stats.crc_failures > 0


def test_recent_trouble_shows_for_a_while_after_the_counters_grow() -> None:
    stats = LinkStats()
    report = HealthReport(stats, every_s=60.0)
    report.watch(0.0)
    assert report.recent(0.0, within_s=60.0) is None
    stats.resyncs = 1
    report.watch(10.0)
    assert report.recent(70.0, within_s=60.0) == stats.health_line()
    report.watch(70.0)  # nothing new since 10 s
    assert report.recent(70.5, within_s=60.0) is None
