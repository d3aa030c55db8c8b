"""The MicroPython fakes behave as the MicroPython docs say (the firmware tests rely on it).

``test_micropython_wasm.py`` also checks the ticks functions against the real
MicroPython (its WebAssembly port).
"""

from __future__ import annotations

import errno

import pytest

from firmware import wire
from tests.firmware.fakes import clock, machine, select
from tests.firmware.fakes import usb as usb_fake
from tests.firmware.fakes.hc165 import ShiftRegisterChain
from tests.firmware.fakes.hc4067 import Multiplexer
from tests.firmware.fakes.machine import FloatingPinError, Pin, WatchdogResetError
from tests.firmware.fakes.pico import Pico
from tests.firmware.fakes.usb import WouldBlockError


def test_ticks_wrap_around_like_micropython() -> None:
    top = clock.TICKS_MAX
    assert clock.ticks_add(top, 1) == 0 and clock.ticks_add(0, -1) == top
    assert clock.ticks_diff(0, top) == 1 and clock.ticks_diff(top, 0) == -1
    assert clock.ticks_diff(clock.TICKS_PERIOD // 2, 0) == -clock.TICKS_PERIOD // 2
    with pytest.raises(OverflowError):
        clock.ticks_add(0, clock.TICKS_PERIOD // 2)
    with pytest.raises(ValueError):
        clock.ticks_add(-1, 1)
    c = clock.Clock(start=top - 1)
    c.sleep_ms(3)
    assert c.ticks_ms() == 1 and c.elapsed == 3 and clock.ticks_diff(c.ticks_ms(), top - 1) == 3


def test_clock_runs_timers_in_order_and_stops_at_its_limit() -> None:
    c = clock.Clock(limit=10)
    seen: list[tuple[str, int]] = []
    c.at(5, lambda: seen.append(("b", c.elapsed)))
    c.at(2, lambda: seen.append(("a", c.elapsed)))
    c.at(5, lambda: seen.append(("c", c.elapsed)))
    c.sleep_ms(-4)  # negative: no time passes
    c.sleep_ms(6)
    assert seen == [("a", 2), ("b", 5), ("c", 5)]
    with pytest.raises(clock.TimeUpError):
        c.sleep_ms(100)
    assert c.elapsed == 10


def test_pin_modes_pulls_and_values(pico: Pico) -> None:
    floating = Pin(5, Pin.IN)
    with pytest.raises(FloatingPinError):
        floating.value()
    assert Pin(5, Pin.IN, Pin.PULL_UP).value() == 1
    assert Pin(5, pull=Pin.PULL_DOWN).value() == 0  # same GPIO, mode kept
    assert (pico.bus.state(5).mode, pico.bus.state(5).pull) == (Pin.IN, Pin.PULL_DOWN)
    pin = Pin(6, Pin.IN, Pin.PULL_UP)
    pin.value(0)  # remembered, not driven while an input
    assert pico.bus.output(6) is None and pin.value() == 1
    pin.init(Pin.OUT)
    assert pico.bus.output(6) == 0 and pin.value() == 0
    pin.on()
    assert pin() == 1
    pin.toggle()
    assert pin.value() == 0
    pin.value("yes")  # anything truthy is 1
    assert pin.value() == 1
    Pin(7, Pin.OUT, value=1)
    Pin(7, mode=9)  # another mode: the alternate function alt=SIO, the direction kept
    assert pico.bus.output(7) == 1
    with pytest.raises(ValueError):
        Pin(30)


def test_init_sets_the_pull_every_time_and_open_drain_starts_released(pico: Pico) -> None:
    # MicroPython ports/rp2/machine_pin.c, machine_pin_obj_init_helper: "Configure pull
    # (unconditionally because None means no-pull)"; OPEN_DRAIN without value= starts
    # released (value == -1 ? 1 : value); value= is used with OUT and OPEN_DRAIN only
    Pin(5, Pin.IN, Pin.PULL_UP)
    with pytest.raises(FloatingPinError):
        Pin(5, Pin.IN).value()  # the pull-up is gone
    assert pico.bus.state(5).pull is None
    assert Pin(11, Pin.OPEN_DRAIN, Pin.PULL_UP).value() == 1 and pico.bus.output(11) is None
    Pin(12, Pin.IN, Pin.PULL_DOWN, value=1)
    assert pico.bus.state(12).out == 0  # not latched for an input
    # the rp2's Pin has init, value, low/high, off/on, toggle and irq: no mode() nor pull()
    assert not hasattr(Pin(5), "mode") and not hasattr(Pin(5), "pull")


def test_pin_value_keyword_is_set_before_the_mode_so_there_is_no_glitch(pico: Pico) -> None:
    levels: list[int | None] = []
    pico.bus.watch(8, levels.append)
    Pin(8, Pin.OUT, value=1)
    Pin(8, Pin.OUT, value=1)
    Pin(8).value(0)
    assert levels == [1, 0]  # never 0 first, and only changes are signalled


def test_open_drain_drives_only_low(pico: Pico) -> None:
    line: dict[str, int | None] = {"level": None}
    pico.bus.drive(9, lambda: line["level"])
    pin = Pin(9, Pin.OPEN_DRAIN, Pin.PULL_UP, value=0)
    assert pin.value() == 0 and pico.bus.output(9) == 0
    pin.value(1)  # released: the pull-up, or whoever drives the line
    assert pico.bus.output(9) is None and pin.value() == 1
    line["level"] = 0
    assert pin.value() == 0


def test_watchdog_resets_unless_fed(pico: Pico) -> None:
    with pytest.raises(ValueError):
        machine.WDT(timeout=9000)  # over the rp2's 8388 ms
    wdt = machine.WDT(timeout=100)
    for _ in range(5):
        pico.clock.sleep_ms(90)
        wdt.feed()
    with pytest.raises(WatchdogResetError):
        pico.clock.sleep_ms(101)
    assert pico.watchdogs() == [wdt]
    with pytest.raises(machine.MachineResetError):
        machine.reset()


class Stream:
    def __init__(self) -> None:
        self.flags = 0

    def poll_flags(self, eventmask: int) -> int:
        return self.flags


def test_poll_register_modify_unregister(pico: Pico) -> None:
    p = select.poll()
    s = Stream()
    s.flags = select.POLLIN | select.POLLOUT
    p.register(s)  # default mask: POLLIN | POLLOUT
    assert p.poll(0) == [(s, select.POLLIN | select.POLLOUT)]
    p.register(s, select.POLLIN)  # again: updates the mask
    assert p.poll(0) == [(s, select.POLLIN)]
    s.flags = select.POLLHUP  # reported even though not asked for
    assert p.poll(0) == [(s, select.POLLHUP)]
    p.unregister(s)
    p.unregister(s)  # unknown: no error
    assert p.poll(0) == []
    with pytest.raises(OSError) as err:
        p.modify(s, select.POLLIN)
    assert err.value.errno == errno.ENOENT
    with pytest.raises(TypeError):
        p.register(object())  # type: ignore[arg-type]


def test_poll_waits_for_data_or_timeout_and_ipoll_one_shot(pico: Pico) -> None:
    p = select.poll()
    p.register(pico.usb.stdin, select.POLLIN)
    assert p.poll(0) == [] and pico.clock.elapsed == 0
    assert p.poll(25) == [] and pico.clock.elapsed == 25
    pico.usb.send(b"ab", at=40)
    assert p.poll(-1) == [(pico.usb.stdin, select.POLLIN)] and pico.clock.elapsed == 40
    assert pico.usb.stdin.buffer.read(1) == b"a"
    assert list(p.ipoll(0, 1)) == [(pico.usb.stdin, select.POLLIN)]
    assert list(p.ipoll(0, 1)) == []  # one-shot: mask is 0 until modified
    p.modify(pico.usb.stdin, select.POLLIN)
    assert list(p.ipoll(0)) == [(pico.usb.stdin, select.POLLIN)]
    assert pico.usb.stdin.buffer.read(1) == b"b"
    with pytest.raises(WouldBlockError):
        pico.usb.stdin.buffer.read(1)  # the real port would hang


@pytest.mark.parametrize(
    ("version", "wrote", "waited"),
    [((1, 22), 0, 500), ((1, 24), 10, 1000)],
    ids=["mp1.22", "mp1.24"],
)
def test_usb_writes_wait_500_ms_a_chunk_when_a_connected_host_stops_reading(
    pico: Pico, version: tuple[int, int], wrote: int, waited: int
) -> None:
    usb = pico.usb
    usb.micropython = version
    p = select.poll()
    p.register(usb.stdout.buffer, select.POLLOUT)
    usb.reading = False
    usb.stdout.buffer.write(b"x" * (usb_fake.CDC_TX_BUFSIZE - 10))  # fits: no wait
    assert pico.clock.elapsed == 0 and p.poll(0) == [(usb.stdout.buffer, select.POLLOUT)]
    assert usb.stdout.buffer.write(b"y" * 30) == 30  # stdio_buffer_write: the size asked
    # MICROPY_HW_USB_CDC_TX_TIMEOUT: 1.22 gives the write up after 500 ms; 1.24 then writes
    # the 10 bytes that fit and waits 500 ms more for room for the other 20
    assert pico.clock.elapsed == usb.waited_ms == waited
    assert usb.room() == 10 - wrote and usb.lost == 30 - wrote
    usb.read_again(at=pico.clock.elapsed)
    assert usb.room() == usb_fake.CDC_TX_BUFSIZE and usb.sent[-1][1].endswith(b"x" + b"y" * wrote)
    usb.connected = False  # the host closed the port: writes go nowhere, at once
    usb.stdout.buffer.write(b"z" * 300)
    assert pico.clock.elapsed == waited and usb.lost == 30 - wrote
    writable = p.poll(0) == [(usb.stdout.buffer, select.POLLOUT)]
    assert writable == (version >= (1, 24))  # mp_usbd_cdc_poll_interfaces vs 1.22's mphalport.c


def test_usb_a_host_program_that_opens_the_port_gets_what_the_fifo_kept(pico: Pico) -> None:
    usb = pico.usb
    usb.micropython = (1, 22)
    p = select.poll()
    p.register(usb.stdout.buffer, select.POLLOUT)
    frame = wire.encode_frame(1, wire.PONG, wire.encode_nonce(5))
    usb.stdout.buffer.write(frame)  # the first program reads it
    usb.stop_reading(at=0)
    usb.stdout.buffer.write(frame + frame[:4])  # then hangs: they wait in the FIFO
    usb.hang_up(at=10)
    usb.open(at=20)
    pico.clock.advance(10)
    assert (usb.connected, usb.reading, p.poll(0)) == (False, False, [])  # 1.22: no POLLOUT
    usb.stdout.buffer.write(b"gone")  # nobody holds the port: nothing is written
    assert usb.fifo == frame + frame[:4] and usb.opened == 0
    pico.clock.advance(10)
    assert usb.connected and usb.reading and usb.stale == frame + frame[:4]
    usb.stdout.buffer.write(frame[4:])  # the rest of the frame the FIFO ended in
    decoded = wire.Decoder().feed(frame)
    assert usb.opened == 1 and [f for _, f in usb.frames[usb.opened :]] == decoded * 2
    assert usb.garbage == 0 and usb.fifo == bytearray()


def test_74hc165_shifts_on_rising_clock_edges_only_with_load_high(pico: Pico) -> None:
    chain = ShiftRegisterChain(pico.bus, load=2, clock=3, data=4, chips=2, serial_in=1)
    for bit in range(8):
        chain.set_input(0, bit, bit % 2)  # D7..D0 = 1,0,1,0,...
        chain.set_input(1, bit, 0)
    load, clk, data = Pin(2, Pin.OUT, value=1), Pin(3, Pin.OUT, value=0), Pin(4, Pin.IN)
    load.value(0)
    assert data.value() == 1  # transparent while /PL is low: D7
    clk.value(1)
    clk.value(0)
    assert chain.ignored_clocks == 1
    load.value(1)
    bits = []
    for _ in range(18):
        bits.append(data.value())
        clk.value(1)
        clk.value(1)  # no edge: no shift
        clk.value(0)
    assert bits == [1, 0] * 4 + [0] * 8 + [1, 1]  # chip 0, chip 1, then DS of the far end
    assert (chain.loads, chain.shifts) == (1, 18)


def test_74hc4067_needs_driven_select_lines(pico: Pico) -> None:
    mux = Multiplexer(pico.bus, (6, 7, 8, 9), 10)
    mux.channels[11] = 0
    signal = Pin(10, Pin.IN)
    with pytest.raises(FloatingPinError, match="S0"):
        signal.value()
    selects = [Pin(p, Pin.OUT, value=(11 >> i) & 1) for i, p in enumerate((6, 7, 8, 9))]
    assert mux.selected() == 11 and signal.value() == 0
    selects[0].value(0)
    assert signal.value() == 1 and mux.reads[10] == 1
    mux.enabled = False
    with pytest.raises(FloatingPinError):
        signal.value()  # off, and no pull-up on the Pico's pin
