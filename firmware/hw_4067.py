"""Reads sensors through 74HC4067 16-channel multiplexers (needs ``machine``)."""

from machine import Pin


class Multiplexers:
    """``read()`` returns one 0/1 per sensor; sensor = multiplexer * 16 + channel."""

    def __init__(
        self,
        sensors: int,
        select: tuple[int, ...],
        signal: tuple[int, ...],
        active_low: bool = True,
    ) -> None:
        if len(signal) * 16 < sensors:
            raise ValueError("%d multiplexers cannot read %d sensors" % (len(signal), sensors))
        self.sensors = sensors
        self.active_low = active_low
        self.select = [Pin(p, Pin.OUT, value=0) for p in select]
        self.signal = [Pin(p, Pin.IN, Pin.PULL_UP) for p in signal]
        self.buf = bytearray(sensors)

    def read(self) -> bytearray:
        """Step the four select lines through 16 channels and read every multiplexer."""
        flip = 1 if self.active_low else 0
        buf = self.buf
        for channel in range(16):
            for bit in range(4):
                self.select[bit].value((channel >> bit) & 1)
            for mux in range(len(self.signal)):
                i = mux * 16 + channel
                if i < self.sensors:
                    buf[i] = self.signal[mux].value() ^ flip
        return buf
