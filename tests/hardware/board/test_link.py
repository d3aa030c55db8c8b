"""The board link over a real pseudo-terminal, against the simulated board."""

from __future__ import annotations

import logging
import queue
import select
import time
from pathlib import Path
from types import UnionType

import pytest
import serial

from controller.core.events import Event
from hardware.board import link as link_module
from hardware.board.errors import BoardPortError
from hardware.board.events import BoardResynced, LinkLost, LinkRestored, SensorChanged
from hardware.board.link import BoardLink, open_port
from hardware.board.memory import BoardMemory, LinkStats
from hardware.board.session import HostSession
from hardware.board.sim import SimBoard
from hardware.board.unheard import unheard_reason
from tests.waiting import posted, wait_until


def wait_for(
    q: queue.Queue[Event], kind: type | UnionType, timeout: float = 10.0, **match: object
) -> Event:
    """The next event of ``kind`` whose fields match; fails after ``timeout``."""
    end = time.monotonic() + timeout
    while True:
        left = end - time.monotonic()
        if left <= 0:
            pytest.fail(f"no {getattr(kind, '__name__', kind)} {match} within {timeout} s")
        try:
            ev = q.get(timeout=left)
        except queue.Empty:
            continue
        if isinstance(ev, kind) and all(getattr(ev, k) == v for k, v in match.items()):
            return ev


@pytest.mark.timeout(60)
def test_link_follows_moves_unplug_and_reset(tmp_path: Path) -> None:
    q: queue.Queue[Event] = queue.Queue()
    recorded: list[SensorChanged] = []
    with SimBoard(sensors=12, link=tmp_path / "board") as sim:
        sim.place(3)  # debounced before the host connects: part of the first snapshot
        wait_until(lambda: sim.firmware.states()[3], 5, "the firmware to debounce sensor 3")
        with BoardLink(sim.path, q, recorded.append):
            restored = wait_for(q, LinkRestored)
            assert isinstance(restored, LinkRestored) and restored.sensors == 12
            first = wait_for(q, BoardResynced)
            assert isinstance(first, BoardResynced) and first.occupied == {3}
            sim.place(9)
            ev = wait_for(q, SensorChanged, sensor=9)
            assert isinstance(ev, SensorChanged) and ev.occupied and not ev.resync
            assert ev.at - sim.truth[-1].t < 0.5

            sim.unplug()
            lost = wait_for(q, LinkLost)
            assert isinstance(lost, LinkLost) and "port failed" in lost.reason
            sim.lift(3)  # moved while unplugged
            sim.replug()
            wait_for(q, LinkRestored)
            # the lift made while unplugged, and the reconnect's resync, in either order
            seen = [wait_for(q, SensorChanged | BoardResynced) for _ in range(2)]
            back = next(e for e in seen if isinstance(e, SensorChanged))
            assert back.sensor == 3 and not back.occupied
            assert any(isinstance(e, BoardResynced) and e.reason == "reconnect" for e in seen)

            sim.lift(9)
            sim.reset()
            again = wait_for(q, BoardResynced)
            assert (
                isinstance(again, BoardResynced)
                and again.boot == 2
                and again.occupied == frozenset()
            )
        assert [(e.sensor, e.occupied) for e in recorded] == [
            (3, True),
            (9, True),
            (3, False),
            (9, False),
        ]


@pytest.mark.timeout(20)
def test_silence_is_a_lost_link(tmp_path: Path) -> None:
    q: queue.Queue[Event] = queue.Queue()
    with SimBoard(sensors=4, link=tmp_path / "b") as sim, BoardLink(sim.path, q, silence_s=0.6):
        wait_for(q, BoardResynced)
        sim.firmware.heartbeat_ms = 10**6  # a hung board: the port stays but nothing comes
        sim.firmware._next_heartbeat = 10**9
        lost = wait_for(q, LinkLost, timeout=3)
        assert isinstance(lost, LinkLost) and lost.reason.startswith("no valid frame for")


def test_a_missing_port_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(BoardPortError, match=f"cannot open board port {tmp_path}/nope"):
        open_port(str(tmp_path / "nope"))


@pytest.mark.timeout(20)
def test_a_board_unplugged_while_its_port_opens_is_a_port_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pyserial 3.5 Serial.reset_input_buffer is termios.tcflush, unwrapped: on a port
    # whose device went away it raises termios.error (EIO), neither an OSError nor a
    # SerialException; the cable is pulled right after the port opened
    with SimBoard(sensors=4, link=tmp_path / "b") as sim:
        flush = serial.Serial.reset_input_buffer

        def unplug_then_flush(port: serial.Serial) -> None:
            sim.unplug()
            hup = select.poll()
            hup.register(port.fileno(), select.POLLHUP)
            hup.poll(2000)  # the kernel hangs the line up (pty_close: tty_vhangup)
            flush(port)

        monkeypatch.setattr(serial.Serial, "reset_input_buffer", unplug_then_flush)
        with pytest.raises(
            BoardPortError, match=r"cannot open board port .*Input/output error"
        ) as e:
            open_port(sim.path)
    assert str(e.value).endswith(": Input/output error")  # termios.error's text, not its tuple


@pytest.mark.timeout(20)
def test_the_port_is_opened_exclusively(tmp_path: Path) -> None:
    q: queue.Queue[Event] = queue.Queue()
    with SimBoard(sensors=4, link=tmp_path / "b") as sim, BoardLink(sim.path, q):
        wait_for(q, BoardResynced)
        with pytest.raises(BoardPortError, match="cannot open board port"):
            open_port(sim.path)


def _speaks_version_2(sim: SimBoard) -> None:
    """The simulated board's firmware sends its frames as board protocol 2."""
    from firmware import wire

    plain = sim.firmware._write

    def as_version_2(data: bytes) -> None:
        for _v, seq, mtype, payload in wire.Decoder().feed(data):
            plain(wire.encode_frame(seq, mtype, payload, version=2))

    sim.firmware._write = as_version_2


@pytest.mark.timeout(20)
def test_a_board_of_another_protocol_version_is_refused(tmp_path: Path) -> None:
    q: queue.Queue[Event] = queue.Queue()
    with SimBoard(sensors=4, link=tmp_path / "b") as sim:
        _speaks_version_2(sim)
        with BoardLink(sim.path, q) as link:
            lost = wait_for(q, LinkLost, timeout=5)
            assert isinstance(lost, LinkLost)
            assert "speaks board protocol 2, this host speaks 1" in lost.reason
            assert "toptable firmware deploy" in lost.reason
            assert link.stats.wrong_version >= 1 and not link.connected


@pytest.mark.timeout(30)
def test_a_board_of_another_protocol_version_is_posted_once_not_at_each_retry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The link retries a refused board (it may be flashed meanwhile), and each retry is
    refused alike: the table is told once, not a LinkLost every retry."""
    monkeypatch.setattr(link_module, "REFUSED_RETRY_S", 0.05)
    q: queue.Queue[Event] = queue.Queue()
    with SimBoard(sensors=4, link=tmp_path / "b") as sim:
        _speaks_version_2(sim)
        with BoardLink(sim.path, q) as link:
            # the third opening: two refused sessions are over
            wait_until(lambda: link.stats.reconnects >= 2, 20, "the link to retry twice")
            assert link.stats.wrong_version >= 2
    lost = [e for e in posted(q) if isinstance(e, LinkLost)]
    assert len(lost) == 1 and "speaks board protocol 2" in lost[0].reason


@pytest.mark.timeout(30)
def test_a_board_reset_mid_game_is_not_stopped_in_its_grace_second(tmp_path: Path) -> None:
    """A Pico that resets re-enumerates and spends its grace second with Ctrl-C still on
    (firmware/main.py ``BOOT_GRACE_MS``): the host listens before it speaks, so none of its
    frames (an IDENTIFY's sequence byte 3, a checksum) stops main.py at the prompt."""
    from firmware import config

    q: queue.Queue[Event] = queue.Queue()
    grace = config.BOOT_GRACE_MS / 1000
    with (
        SimBoard(sensors=6, link=tmp_path / "b", boot_grace_s=grace) as sim,
        BoardLink(sim.path, q),
    ):
        wait_for(q, BoardResynced)
        sim.unplug()
        wait_for(q, LinkLost)
        sim.reset()
        sim.replug()
        again = wait_for(q, BoardResynced, timeout=10)
        assert isinstance(again, BoardResynced) and again.boot == 2
        sim.place(2)
        wait_for(q, SensorChanged, sensor=2)
        assert not sim.at_prompt


@pytest.mark.timeout(30)
def test_a_board_at_the_micropython_prompt_is_named(tmp_path: Path) -> None:
    """A board whose main.py stopped (Ctrl-C in its grace second) sends the prompt, never a
    frame: the link says so and what to do, not only that nobody answered."""
    from hardware.board.session import LISTEN_TIMEOUT_S

    q: queue.Queue[Event] = queue.Queue()
    with SimBoard(sensors=4, link=tmp_path / "b", boot_grace_s=60) as sim:
        sim.replug()
        fd = open_port(sim.path)  # a stray Ctrl-C while it boots, as an old host would send
        fd.write(b"\x03")
        wait_until(lambda: sim.at_prompt, 5, "the board to stop at the prompt")
        fd.close()
        with BoardLink(sim.path, q) as link:
            wait_until(lambda: link.last_error, LISTEN_TIMEOUT_S + 5, "the link to give up")
            assert not link.connected
    assert "MicroPython prompt" in link.last_error and "'>>>'" in link.last_error
    assert "unplug the board and plug it back in" in link.last_error


def test_a_port_of_no_frames_is_said_once_though_its_byte_count_grows(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The reason a board is not heard counts its bytes of no frame: a count that grows
    from retry to retry is the same trouble, said once (it was a WARNING every 3.5 s)."""
    link = BoardLink("/dev/toptable-test-garbage", queue.Queue())
    with caplog.at_level(logging.WARNING, logger="hardware.board.link"):
        for count in (435, 443, 449, 476):
            link._lost(unheard_reason(3.0, b"scan 4: ok\r\n", count))
        link._lost(unheard_reason(3.0, b"", 0))  # another trouble: said
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and "435 bytes came" in said[0] and "heartbeat" in said[1]


def _silent_for(seconds: float) -> str:
    """The reason a session gives for a board heard of no frame for ``seconds``."""
    session = HostSession("loop", lambda _: None, lambda _: None, BoardMemory(), LinkStats(),
                          silence_s=1.0)  # fmt: skip
    session.start(0.0)
    reason = session.poll(seconds)
    assert reason is not None
    return reason


def test_a_silent_board_is_said_once_though_its_seconds_of_silence_change(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The reason a board is dropped for silence counts its seconds, which differ from retry
    to retry: the same trouble, said once (a WARNING at every retry otherwise)."""
    link = BoardLink("/dev/toptable-test-silent", queue.Queue())
    with caplog.at_level(logging.WARNING, logger="hardware.board.link"):
        for seconds in (1.2, 1.35, 2.5, 11.0):
            link._lost(_silent_for(seconds))
        link._lost(unheard_reason(3.0, b"", 0))  # another trouble: said
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 2 and "no valid frame for 1.2 s" in said[0] and "heartbeat" in said[1]


@pytest.mark.timeout(30)
def test_a_clean_first_connection_is_no_reconnect_and_no_trouble(tmp_path: Path) -> None:
    """The first connection of a link is not a reconnect: a healthy start puts no link
    trouble on the screens; the board unplugged and back is one reconnect."""
    q: queue.Queue[Event] = queue.Queue()
    with SimBoard(sensors=4, link=tmp_path / "b") as sim, BoardLink(sim.path, q) as link:
        wait_for(q, BoardResynced)
        assert link.stats.reconnects == 0 and link.trouble() is None
        sim.unplug()
        wait_for(q, LinkLost)
        sim.replug()
        wait_for(q, BoardResynced)
        assert link.stats.reconnects == 1


def test_a_link_lost_is_posted_once_until_it_is_back() -> None:
    """A link lost is no longer connected: the next failed attempt is said as "no link"
    in the log, not posted as a second LinkLost."""
    q: queue.Queue[Event] = queue.Queue()
    link = BoardLink("/dev/toptable-test-lost", q)
    link.connected = True  # as a LinkRestored leaves it
    link._lost("port failed (the board unplugged, or its cable?): gone")
    link._lost("cannot open board port /dev/toptable-test-lost: No such file or directory")
    assert not link.connected
    assert [type(e) for e in posted(q)] == [LinkLost]


@pytest.mark.timeout(30)
def test_a_missing_port_is_retried_at_the_backoffs_cap_not_ever_more_slowly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Retries of a missing port double their wait up to the cap (0.5 s by default), never
    beyond: a board plugged in after a minute is found within the cap, not minutes later."""
    tries: list[str] = []
    real_open = link_module.open_port

    def counted(path: str, baudrate: int = 0) -> serial.Serial:
        tries.append(path)
        return real_open(path, baudrate)

    monkeypatch.setattr(link_module, "open_port", counted)
    with BoardLink(str(tmp_path / "none"), queue.Queue(), backoff_s=(0.001, 0.002)):
        wait_until(lambda: len(tries) >= 20, 10, "20 tries of the missing port")
