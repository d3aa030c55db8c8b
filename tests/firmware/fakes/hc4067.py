"""74HC4067 16-channel analog multiplexers, wired to the simulated Pico.

From the datasheet: with /E low, the common pin Z connects to channel
Y(S0 + 2·S1 + 4·S2 + 8·S3); with /E high all channels are off and Z floats.
The select lines must be driven: a floating one makes the channel undefined,
which the fake refuses (``FloatingPinError``).
"""

from __future__ import annotations

from tests.firmware.fakes.machine import Bus, FloatingPinError


class Multiplexer:
    """One 74HC4067: select lines ``select`` (S0..S3), common ``signal`` pin, /E tied low."""

    def __init__(self, bus: Bus, select: tuple[int, ...], signal: int) -> None:
        if len(select) != 4:
            raise ValueError("a 74HC4067 has four select lines")
        self.bus = bus
        self.select = select
        self.channels = [1] * 16  # pulled up: no magnet
        self.enabled = True  # /E low
        self.reads = [0] * 16  # how often the Pico read each channel
        bus.drive(signal, self.z)

    def selected(self) -> int:
        """The channel the select lines choose now."""
        channel = 0
        for bit, pin in enumerate(self.select):
            level = self.bus.output(pin)
            if level is None:
                raise FloatingPinError(f"74HC4067 select line S{bit} (GPIO{pin}) is not driven")
            channel |= level << bit
        return channel

    def z(self) -> int | None:
        """The level on the common pin (None: off, floating)."""
        if not self.enabled:
            return None
        channel = self.selected()
        self.reads[channel] += 1
        return self.channels[channel]
