"""A chain of 74HC165 8-bit parallel-in/serial-out shift registers, wired to the simulated Pico.

From the 74HC165 datasheet's function table: while /PL is low the eight
parallel inputs D0..D7 are loaded into the register (asynchronously, so Q7
follows D7); with /PL high (and CE low, as wired here) each rising edge on CP
shifts the register one place towards Q7, taking DS into the first stage. Q7 of
each chip feeds DS of the next one further from the Pico; the chip nearest the
Pico (``chips[0]``) drives the Pico's data pin. The far end's DS is tied to
``serial_in``.
"""

from __future__ import annotations

from tests.firmware.fakes.machine import Bus, FloatingPinError


class Chip:
    """One 74HC165: inputs ``d[0..7]`` (D0..D7) and the register ``q[0..7]`` (Q7 = ``q[7]``)."""

    def __init__(self) -> None:
        self.d = [1] * 8  # pulled up: no magnet
        self.q = [0] * 8


class ShiftRegisterChain:
    """``chips`` 74HC165s sharing /PL and CP, the nearest one's Q7 on the Pico's ``data`` pin."""

    def __init__(
        self, bus: Bus, load: int, clock: int, data: int, chips: int, serial_in: int = 0
    ) -> None:
        self.bus = bus
        self.load_pin = load
        self.clock_pin = clock
        self.chips = [Chip() for _ in range(chips)]
        self.serial_in = serial_in
        self.loads = 0  # /PL pulses (falling edges)
        self.shifts = 0  # CP rising edges that shifted
        self.ignored_clocks = 0  # CP rising edges while /PL was low
        self._pl: int | None = None
        self._cp: int | None = None
        bus.watch(load, self._on_load)
        bus.watch(clock, self._on_clock)
        bus.drive(data, self.q7)

    def set_input(self, chip: int, bit: int, level: int) -> None:
        """Put ``level`` on input D``bit`` of chip ``chip`` (0 = nearest the Pico)."""
        self.chips[chip].d[bit] = 1 if level else 0

    def q7(self) -> int:
        """The level on the Pico's data pin."""
        if self._pl == 0:  # parallel load is transparent
            return self.chips[0].d[7]
        return self.chips[0].q[7]

    def _on_load(self, level: int | None) -> None:
        if level == 0 and self._pl != 0:
            self.loads += 1
        self._pl = level
        if level == 0:
            for chip in self.chips:
                chip.q = list(chip.d)

    def _on_clock(self, level: int | None) -> None:
        rising = self._cp == 0 and level == 1
        self._cp = level
        if not rising:
            return
        if self._pl is None:
            raise FloatingPinError("74HC165 /PL is not driven while CP is clocked")
        if self._pl == 0:
            self.ignored_clocks += 1
            return
        self.shifts += 1
        incoming = [chip.q[7] for chip in self.chips[1:]] + [self.serial_in]
        for chip, ds in zip(self.chips, incoming, strict=True):
            chip.q = [ds, *chip.q[:7]]
