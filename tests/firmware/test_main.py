"""firmware/main.py, hw_165.py and hw_4067.py on a simulated Pico (tests/firmware/fakes).

The fakes stand in for MicroPython's ``machine``, ``micropython``, ``select``,
``time`` ticks and the USB serial (with the rp2's write path, ``fakes/usb.py``);
``main.py`` runs unchanged, its endless loop ended by the simulated clock.
``ticks_ms()`` wraps around half a second into the firmware loop of every run,
as it does on the Pico every 12.4 days.
"""

from __future__ import annotations

import functools
import itertools
import random
from pathlib import Path

import pytest

from firmware import config, wire
from tests.firmware.fakes import micropython
from tests.firmware.fakes import usb as usb_fakes
from tests.firmware.fakes.hc165 import ShiftRegisterChain
from tests.firmware.fakes.hc4067 import Multiplexer
from tests.firmware.fakes.machine import WatchdogResetError
from tests.firmware.fakes.pico import Pico

GRACE = config.BOOT_GRACE_MS


def wire_165(pico: Pico, sensors: int = config.SENSORS) -> ShiftRegisterChain:
    """The README's 74HC165 chain on config.py's pins, enough chips for ``sensors``."""
    return ShiftRegisterChain(
        pico.bus, config.PIN_LOAD, config.PIN_CLOCK, config.PIN_DATA, chips=(sensors + 7) // 8
    )


def place(chain: ShiftRegisterChain, sensor: int, present: bool = True) -> None:
    """A token on (or off) ``sensor``: README wiring, sensor 0 = D7 of the chip nearest the Pico."""
    chain.set_input(sensor // 8, 7 - sensor % 8, 0 if present else 1)  # active low


def ack_events(frame: tuple[int, int, int, bytes]) -> bytes | None:
    """A host that records and acks every EVENTS frame at once."""
    if frame[2] != wire.EVENTS:
        return None
    boot, first, events = wire.decode_events(frame[3])
    return wire.encode_frame(1, wire.ACK, wire.encode_ack(boot, first + len(events) - 1))


def test_main_boots_scans_and_talks_to_the_host(pico: Pico) -> None:
    Path(config.BOOT_FILE).write_text("41\n")
    chain = wire_165(pico)
    place(chain, 9)
    identify = wire.encode_frame(1, wire.IDENTIFY, wire.encode_identify())
    pico.usb.send(b"\x00\x13\x7e", at=GRACE + 50)  # line noise first
    for i, byte in enumerate(identify):  # then IDENTIFY, a byte a millisecond
        pico.usb.send(bytes((byte,)), at=GRACE + 100 + i)
    pico.usb.reply_with(ack_events)
    pico.clock.at(GRACE + 300, lambda: place(chain, 5))
    pico.clock.at(GRACE + 600, lambda: place(chain, 9, present=False))
    pico.run(GRACE + 1200)

    assert ("kbd_intr", -1) in micropython.calls  # no Ctrl-C on the binary link
    assert Path(config.BOOT_FILE).read_text() == "42"
    (ident,) = [wire.decode_ident(p) for p in pico.usb.of(wire.IDENT)]
    assert ident == (1, 42, 42, 200, "toptable-fw 1.0")
    events = [(t, wire.decode_events(f[3])) for t, f in pico.usb.frames if f[2] == wire.EVENTS]
    # each change once (acked, never resent), two 5 ms scans after it happened
    assert [e for _, e in events] == [(42, 1, [(5, 1)]), (42, 2, [(9, 0)])]
    assert GRACE + 300 < events[0][0] <= GRACE + 312
    beats = [t for t, f in pico.usb.frames if f[2] == wire.HEARTBEAT]
    assert len(beats) == 5 and beats[0] <= GRACE + 2
    assert all(240 <= b - a <= 260 for a, b in itertools.pairwise(beats))
    last = wire.decode_heartbeat(pico.usb.of(wire.HEARTBEAT)[-1])
    assert last[:3] == (42, 2, 3)  # both events acked
    acks = 2 * len(wire.encode_frame(1, wire.ACK, wire.encode_ack(42, 1)))
    assert pico.usb.rx == bytearray() and pico.usb.bytes_read == 3 + len(identify) + acks
    assert pico.usb.garbage == 0 and pico.usb.text == ""
    (wdt,) = pico.watchdogs()
    assert wdt.timeout == config.WATCHDOG_MS and wdt.feeds > 1000
    assert pico.clock.ticks_ms() < 1000  # ticks_ms wrapped during the run


def test_main_resends_until_acked_and_answers_snapshot_and_ping(pico: Pico) -> None:
    chain = wire_165(pico)
    pico.clock.at(GRACE + 20, lambda: place(chain, 41))
    pico.usb.send(wire.encode_frame(1, wire.SNAPSHOT_REQ), at=GRACE + 200)
    pico.usb.send(wire.encode_frame(2, wire.PING, wire.encode_nonce(77)), at=GRACE + 201)
    pico.usb.send(wire.encode_frame(3, wire.ACK, wire.encode_ack(1, 1)), at=GRACE + 400)
    pico.run(GRACE + 900)

    assert Path(config.BOOT_FILE).read_text() == "1"  # no counter yet: boot 1
    sends = [t for t, f in pico.usb.frames if f[2] == wire.EVENTS]
    assert len(sends) >= 3 and sends[-1] < GRACE + 400  # resent with backoff, then acked
    assert all(p == pico.usb.of(wire.EVENTS)[0] for p in pico.usb.of(wire.EVENTS))
    boot, seq, oldest, states = wire.decode_snapshot(pico.usb.of(wire.SNAPSHOT)[0])
    assert (boot, seq, oldest) == (1, 1, 1) and [i for i, s in enumerate(states) if s] == [41]
    assert [wire.decode_nonce(p) for p in pico.usb.of(wire.PONG)] == [77]


def test_main_reads_74hc4067_multiplexers(pico: Pico, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "DRIVER", "4067")
    monkeypatch.setattr(config, "SENSORS", 20)
    muxes = [Multiplexer(pico.bus, config.PINS_SELECT, pin) for pin in config.PINS_SIGNAL[:2]]
    muxes[0].channels[3] = 0  # a token on sensor 3 from the start
    pico.usb.send(wire.encode_frame(1, wire.IDENTIFY, wire.encode_identify()), at=GRACE + 10)
    pico.usb.reply_with(ack_events)

    def put_token() -> None:
        muxes[1].channels[1] = 0  # sensor 17

    pico.clock.at(GRACE + 100, put_token)
    pico.run(GRACE + 300)

    assert wire.decode_ident(pico.usb.of(wire.IDENT)[0])[1] == 20
    assert [wire.decode_events(p) for p in pico.usb.of(wire.EVENTS)] == [(1, 1, [(17, 1)])]
    last = wire.decode_heartbeat(pico.usb.of(wire.HEARTBEAT)[-1])
    states = bytearray(20)
    states[3] = states[17] = 1
    assert last == (1, 1, 2, wire.state_hash(states))


def test_maintenance_pin_keeps_the_repl(pico: Pico) -> None:
    pico.bus.drive(config.PIN_MAINTENANCE, lambda: 0)  # tied to GND
    wire_165(pico)
    pico.run(GRACE + 500)
    assert pico.clock.slept == GRACE  # main.py returned after the grace second
    assert pico.watchdogs() == [] and micropython.calls == [] and pico.usb.sent == []
    assert not Path(config.BOOT_FILE).exists()


@pytest.mark.parametrize(
    ("stored", "boot"), [(None, 1), ("7", 8), ("garbage", 1), ("65535", 0), ("", 1)]
)
def test_boot_counter(pico: Pico, stored: str | None, boot: int) -> None:
    pico.bus.drive(config.PIN_MAINTENANCE, lambda: 0)
    pico.run(GRACE + 1)
    import firmware.main

    if stored is not None:
        Path("count").write_text(stored)
    assert firmware.main.next_boot("count") == boot
    assert Path("count").read_text() == str(boot)


def test_a_stalled_loop_is_reset_by_the_watchdog(pico: Pico) -> None:
    chain = wire_165(pico)
    stuck = {"now": False}

    def data_line() -> int:
        if stuck["now"]:
            pico.clock.advance(config.WATCHDOG_MS + 10)  # e.g. a scan that hangs
        return chain.q7()

    pico.bus.drive(config.PIN_DATA, data_line)
    pico.clock.at(GRACE + 500, lambda: stuck.update(now=True))
    with pytest.raises(WatchdogResetError):
        pico.run(GRACE + 5000)
    assert GRACE + config.WATCHDOG_MS < pico.clock.elapsed <= GRACE + 500 + config.WATCHDOG_MS + 2


def frame_seq_gaps(frames: list[tuple[int, tuple[int, int, int, bytes]]]) -> list[int]:
    """How many frame numbers (SEQ) the host saw skipped before each frame, in order."""
    seqs = [f[1] for _, f in frames]
    return [(b - a - 1) % 256 for a, b in itertools.pairwise(seqs)]


@pytest.mark.parametrize("version", [(1, 22), (1, 24)], ids=["mp1.22", "mp1.24"])
def test_a_host_that_stops_reading_stalls_neither_the_scan_nor_the_watchdog(
    pico: Pico, version: tuple[int, int]
) -> None:
    """The daemon hangs with the port open for 6 s while 30 tokens go down and one is lifted
    for 40 ms: no write waits, the watchdog is fed every loop, every change is scanned and
    numbered, and once the host reads again it gets them all and is told what was dropped."""
    pico.usb.micropython = version
    chain = wire_165(pico)
    place(chain, 40)  # a token there from the start
    pico.usb.send(wire.encode_frame(1, wire.IDENTIFY, wire.encode_identify()), at=GRACE + 50)
    pico.usb.reply_with(ack_events)
    pico.usb.stop_reading(at=GRACE + 200)
    for sensor in range(30):
        pico.clock.at(GRACE + 400 + 100 * sensor, functools.partial(place, chain, sensor))
    pico.clock.at(GRACE + 4000, lambda: place(chain, 40, present=False))
    pico.clock.at(GRACE + 4040, lambda: place(chain, 40))  # back after 40 ms
    pico.usb.read_again(at=GRACE + 6500)
    pico.run(GRACE + 9000)  # a watchdog reset would raise here

    (wdt,) = pico.watchdogs()
    assert wdt.longest <= 3 and pico.usb.waited_ms == 0 and pico.usb.lost == 0
    assert chain.loads >= 9000 // config.SCAN_MS - 5  # a scan every 5 ms throughout
    got: dict[int, tuple[int, int]] = {}
    for payload in pico.usb.of(wire.EVENTS):
        _, first, events = wire.decode_events(payload)
        got.update(enumerate(events, first))
    want = [(s, 1) for s in range(30)] + [(40, 0), (40, 1)]
    assert [got[seq] for seq in sorted(got)] == want  # every change, numbered in order
    assert wire.decode_heartbeat(pico.usb.of(wire.HEARTBEAT)[-1])[1:3] == (32, 33)  # all acked
    # whole frames only; every frame number skipped is a frame the board says it dropped
    assert pico.usb.garbage == 0 and pico.usb.text == ""
    gaps = frame_seq_gaps(pico.usb.frames)
    notices = [wire.decode_notice(p) for p in pico.usb.of(wire.NOTICE)]
    assert notices and {code for code, _ in notices} == {wire.NOTICE_FRAMES_DROPPED}
    told = [int(text.split()[0]) for _, text in notices]
    assert sum(told) == sum(gaps) > 0


def test_a_host_that_never_stops_writing_stalls_neither_the_scan_nor_the_watchdog(
    pico: Pico, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any program writing to the port for 3 s: on the rp2 each poll refills stdin from
    TinyUSB (``shared/tinyusb/mp_usbd_cdc.c``) as USB flow control lets the writer go on, so
    the loop read for ever: no heartbeat, no scan, and the watchdog reset the board. Here
    the Pico reads a byte in 1 us (faster than it can)."""
    chain = wire_165(pico)
    flood = (GRACE + 500, GRACE + 3500)
    read = usb_fakes._RawIn.read
    count = [0]

    def refill() -> None:  # the writer's next packet comes in as room frees
        if flood[0] <= pico.clock.elapsed < flood[1] and len(pico.usb.rx) < 512:
            pico.usb.rx.extend(b"hello board, are you there?\r\n" * 18)
            del pico.usb.rx[512:]

    def costly_read(raw: usb_fakes._RawIn, n: int = -1) -> bytes:
        data = read(raw, n)
        count[0] += 1
        refill()
        if count[0] % 1000 == 0:
            pico.clock.advance(1)
        return data

    monkeypatch.setattr(usb_fakes._RawIn, "read", costly_read)
    pico.clock.every_ms(refill)
    pico.clock.at(GRACE + 1000, lambda: place(chain, 5))  # a token placed meanwhile
    pico.run(GRACE + 4500)  # a watchdog reset would raise here
    beats = [t for t, f in pico.usb.frames if f[2] == wire.HEARTBEAT]
    assert [t for t in beats if flood[0] <= t < flood[1]]  # the board went on talking
    events = [t for t, f in pico.usb.frames if f[2] == wire.EVENTS]
    assert events and min(events) < GRACE + 1100  # and scanning


# --- the scanners on their own ---------------------------------------------------------


def test_74hc165_chain_reads_every_sensor_in_readme_order(pico: Pico) -> None:
    from firmware.hw_165 import ShiftRegisters

    chain = wire_165(pico, 128)
    reader = ShiftRegisters(128, config.PIN_LOAD, config.PIN_CLOCK, config.PIN_DATA)
    rng = random.Random(165)
    for _ in range(5):
        occupied = set(rng.sample(range(128), rng.randrange(0, 40)))
        for sensor in range(128):
            place(chain, sensor, sensor in occupied)
        loads, shifts = chain.loads, chain.shifts
        got = reader.read()
        assert [i for i, v in enumerate(got) if v] == sorted(occupied)
        assert (chain.loads - loads, chain.shifts - shifts) == (1, 128)
    assert chain.ignored_clocks == 0


def test_74hc165_reads_fewer_sensors_than_inputs_and_active_high(pico: Pico) -> None:
    from firmware.hw_165 import ShiftRegisters

    chain = wire_165(pico, 42)  # 6 chips, 48 inputs
    reader = ShiftRegisters(42, config.PIN_LOAD, config.PIN_CLOCK, config.PIN_DATA, False)
    for sensor in (0, 8, 41):
        place(chain, sensor)
    chain.set_input(5, 0, 0)  # input 47, no sensor: never read
    got = reader.read()
    assert len(got) == 42 and chain.shifts == 42
    assert [i for i, v in enumerate(got) if not v] == [0, 8, 41]  # not flipped
    place(chain, 8, present=False)
    assert [i for i, v in enumerate(reader.read()) if not v] == [0, 41]  # latched afresh


def test_74hc4067_multiplexers_return_the_selected_channel(pico: Pico) -> None:
    from firmware.hw_4067 import Multiplexers

    signal = config.PINS_SIGNAL[:3]
    muxes = [Multiplexer(pico.bus, config.PINS_SELECT, pin) for pin in signal]
    reader = Multiplexers(40, config.PINS_SELECT, signal)
    occupied = {0, 5, 15, 16, 31, 32, 39}
    for sensor in occupied:
        muxes[sensor // 16].channels[sensor % 16] = 0
    assert [i for i, v in enumerate(reader.read()) if v] == sorted(occupied)
    assert muxes[0].reads == [1] * 16 and muxes[1].reads == [1] * 16
    assert muxes[2].reads == [1] * 8 + [0] * 8  # sensors 40..47 are not wired
    with pytest.raises(ValueError, match="2 multiplexers cannot read 40 sensors"):
        Multiplexers(40, config.PINS_SELECT, signal[:2])


class Host:
    """The host's side of PROTOCOL.md rules 2, 4, 5 and 6 on one port, its memory kept across
    reconnects as ``BoardLink``'s is: it ignores what comes before the IDENT, asks a snapshot,
    then records events strictly in order and acks each."""

    def __init__(self) -> None:
        self.phase = "identify"
        self.boot: int | None = None
        self.last = 0  # the last event recorded
        self.recorded: list[tuple[int, int]] = []

    def reopen(self) -> None:
        """A new session on the port (``HostSession.start``)."""
        self.phase = "identify"

    def __call__(self, frame: tuple[int, int, int, bytes]) -> bytes | None:
        mtype, payload = frame[2], frame[3]
        if self.phase == "identify":
            if mtype != wire.IDENT:
                return None
            self.phase = "snapshot"
            return wire.encode_frame(1, wire.SNAPSHOT_REQ)
        if self.phase == "snapshot":
            if mtype != wire.SNAPSHOT:
                return None
            boot, seq, oldest, _ = wire.decode_snapshot(payload)
            if boot != self.boot or oldest > self.last + 1:
                self.boot, self.last = boot, seq  # rule 4: the snapshot is the truth
            self.phase = "live"  # rule 5: or the board still holds what we lack
            return wire.encode_frame(1, wire.ACK, wire.encode_ack(boot, self.last))
        if mtype != wire.EVENTS:
            return None
        boot, first, events = wire.decode_events(payload)
        for seq, event in enumerate(events, first):
            if seq == self.last + 1:
                self.recorded.append(event)
                self.last = seq
        return wire.encode_frame(1, wire.ACK, wire.encode_ack(boot, self.last))


@pytest.mark.parametrize(
    ("version", "gone_ms"), [((1, 22), 2000), ((1, 24), 0)], ids=["mp1.22", "mp1.24"]
)
def test_a_new_host_gets_its_ident_before_frames_queued_for_the_last_one(
    pico: Pico, version: tuple[int, int], gone_ms: int
) -> None:
    """A host hangs with the port open while ten tokens go down; the port's FIFO and the outbox
    fill up. Its program goes away (on 1.22 the outbox keeps its frames while no host holds the
    port; on 1.24 it drains then, so the next program comes at once) and another opens the port
    and identifies: after what the FIFO held and the rest of the frame in flight, the first
    frame it reads is the IDENT, and the ten events, never acked, still come to it after."""
    pico.usb.micropython = version
    chain = wire_165(pico)
    host = Host()
    pico.usb.reply_with(host)
    identify = wire.encode_frame(1, wire.IDENTIFY, wire.encode_identify())
    pico.usb.send(identify, at=GRACE + 50)
    pico.usb.stop_reading(at=GRACE + 200)
    for sensor in range(10):
        pico.clock.at(GRACE + 400 + 100 * sensor, functools.partial(place, chain, sensor))
    pico.usb.hang_up(at=GRACE + 3000)
    reopen = GRACE + 3000 + gone_ms
    pico.clock.at(reopen, host.reopen)
    pico.usb.open(at=reopen)
    pico.usb.send(identify, at=reopen)
    for retry in range(reopen + 50, reopen + 2000, 50):  # HostSession: every 50 ms until IDENT

        def again() -> None:
            if host.phase == "identify":
                pico.usb.send(identify)

        pico.clock.at(retry, again)
    pico.run(reopen + 1500)

    usb = pico.usb
    new = [frame for _, frame in usb.frames[usb.opened :]]
    starts = list(itertools.accumulate((wire.OVERHEAD + len(f[3]) for f in new), initial=0))
    first = next(i for i, at in enumerate(starts) if at >= len(usb.stale))
    # the FIFO ended inside a frame; its rest came next, so the new host saw whole frames only
    assert usb.garbage == 0 and starts[first - 1] < len(usb.stale) < starts[first]
    assert new[first][2] == wire.IDENT  # then the IDENT: nothing queued for the hung host
    assert host.recorded == [(sensor, 1) for sensor in range(10)]  # each event, in order
    assert wire.decode_heartbeat(usb.of(wire.HEARTBEAT)[-1])[1:3] == (10, 11)  # all acked
    (wdt,) = pico.watchdogs()
    assert wdt.longest <= 3 and usb.text == ""
