"""Reads sensors through a chain of 74HC165 shift registers (needs ``machine``)."""

from machine import Pin


class ShiftRegisters:
    """``read()`` returns one 0/1 per sensor; 1 = a magnet (token) is present."""

    def __init__(
        self, sensors: int, load: int, clock: int, data: int, active_low: bool = True
    ) -> None:
        self.sensors = sensors
        self.active_low = active_low
        self.load = Pin(load, Pin.OUT, value=1)
        self.clock = Pin(clock, Pin.OUT, value=0)
        self.data = Pin(data, Pin.IN, Pin.PULL_UP)
        self.buf = bytearray(sensors)

    def read(self) -> bytearray:
        """Latch all inputs (/PL low pulse), then shift them out, first sensor first."""
        self.load.value(0)
        self.load.value(1)
        flip = 1 if self.active_low else 0
        data = self.data
        clock = self.clock
        buf = self.buf
        for i in range(self.sensors):
            buf[i] = data.value() ^ flip
            clock.value(1)
            clock.value(0)
        return buf
