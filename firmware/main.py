"""Entry point on the Pico: real pins, USB serial, watchdog. Everything else is in core.py."""

import select
import sys

import machine
import micropython

from firmware import config
from firmware.compat import sleep_ms, ticks_ms
from firmware.core import FEED_BYTES, Firmware, Outbox


def next_boot(path: str) -> int:
    """Increment and return the boot counter kept in flash (1 if the file is missing or bad)."""
    try:
        with open(path) as f:
            boot = int(f.read().strip()) + 1
    except (OSError, ValueError):
        boot = 1
    boot &= 0xFFFF
    with open(path, "w") as f:
        f.write(str(boot))
    return boot


def make_reader() -> object:
    """The sensor reader chosen by config.DRIVER."""
    if config.DRIVER == "4067":
        from firmware.hw_4067 import Multiplexers

        return Multiplexers(
            config.SENSORS, config.PINS_SELECT, config.PINS_SIGNAL, config.ACTIVE_LOW
        )
    from firmware.hw_165 import ShiftRegisters

    return ShiftRegisters(
        config.SENSORS, config.PIN_LOAD, config.PIN_CLOCK, config.PIN_DATA, config.ACTIVE_LOW
    )


def maintenance() -> bool:
    """Whether to stay in the REPL: the maintenance pin is held low, checked after a grace second."""
    sleep_ms(config.BOOT_GRACE_MS)  # mpremote can interrupt here, right after a reset
    return bool(
        machine.Pin(config.PIN_MAINTENANCE, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0
    )


def run() -> None:
    """Never returns; the watchdog restarts the board if the loop stalls.

    Nothing in the loop waits on the host: bytes are read only when poll says
    they came, at most ``FEED_BYTES`` a turn (on the rp2 each poll refills stdin from
    TinyUSB, ``mp_usbd_cdc.c``: a host that keeps writing kept the loop reading), and
    written one at a time only when poll says the USB serial takes one more (a write
    that does not fit waits up to 500 ms on the rp2, README: "A host that stops
    reading"); frames that find no room are dropped
    whole and reported (``Outbox``, NOTICE 4), and those still queued when a host
    identifies are dropped (``Outbox.discard``, PROTOCOL.md rule 6).
    """
    micropython.kbd_intr(-1)  # binary frames may hold 0x03: no Ctrl-C on the link
    reader = make_reader()
    out = sys.stdout.buffer
    inp = sys.stdin.buffer
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    room = select.poll()
    room.register(out, select.POLLOUT)

    def writable() -> bool:
        # POLLOUT: room in the USB transmit FIFO for one byte at least (ipoll allocates nothing)
        for _ in room.ipoll(0):  # type: ignore[attr-defined]
            return True
        return False

    outbox = Outbox(out.write, writable)
    fw = Firmware(
        config.SENSORS,
        reader.read,  # type: ignore[attr-defined]
        outbox.put,
        ticks_ms,
        boot=next_boot(config.BOOT_FILE),
        scan_ms=config.SCAN_MS,
        debounce=config.DEBOUNCE,
        heartbeat_ms=config.HEARTBEAT_MS,
        discard=outbox.discard,
    )
    wdt = machine.WDT(timeout=config.WATCHDOG_MS)
    while True:
        for _ in range(FEED_BYTES):
            if not poll.poll(0):
                break
            fw.feed(inp.read(1))
        fw.tick()
        outbox.pump()
        wdt.feed()
        sleep_ms(1)


if not maintenance():
    run()
