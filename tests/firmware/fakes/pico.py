"""A simulated Raspberry Pi Pico: the fake modules, wiring, clock and USB serial of one board."""

from __future__ import annotations

import contextlib
import importlib
import sys
import types

from tests.firmware.fakes import machine, micropython, select
from tests.firmware.fakes.clock import Clock, TimeUpError
from tests.firmware.fakes.usb import Usb


class Pico:
    """One board. ``modules()`` are what ``import machine`` etc. must find; ``run()`` boots main.py
    with ``sys.stdin``/``sys.stdout`` on the simulated USB serial.

    ``start_ticks`` is where ``ticks_ms()`` starts: by default 1.5 s before it
    wraps, half a second after main.py's boot grace: runs cross the wrap-around.
    """

    def __init__(self, start_ticks: int = (1 << 30) - 1500) -> None:
        self.clock = Clock(start=start_ticks)
        self.bus = machine.Bus()
        self.usb = Usb(self.clock)

    def modules(self) -> dict[str, types.ModuleType]:
        """The fake MicroPython modules, attached to this board."""
        machine.attach(self.bus, self.clock)
        select.attach(self.clock)
        micropython.reset()
        return {
            "machine": machine,
            "micropython": micropython,
            "select": select,  # not "uselect": since 1.21 only an alias of it (README)
        }

    def watchdogs(self) -> list[machine.WDT]:
        """The watchdogs the firmware started."""
        return list(machine.watchdogs)

    def run(self, ms: int) -> None:
        """Power up and run ``firmware/main.py`` for ``ms`` simulated milliseconds.

        Returns normally when main.py returns (maintenance mode) or the time is up;
        a watchdog reset or any error in the firmware propagates.
        """
        self.clock.limit = self.clock.elapsed + ms
        # set here, not in a fixture: pytest's output capture replaces them between phases
        saved = sys.stdin, sys.stdout
        sys.stdin, sys.stdout = self.usb.stdin, self.usb.stdout
        try:
            with contextlib.suppress(TimeUpError):
                importlib.import_module("firmware.main")
        finally:
            sys.stdin, sys.stdout = saved
