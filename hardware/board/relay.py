"""A fault-injecting relay: corrupts and drops bytes at given rates, reproducibly."""

from __future__ import annotations

import random


class FaultRelay:
    """Passes bytes through, corrupting a fraction ``corrupt`` and dropping a fraction ``drop``.

    Raises:
        ValueError: a rate outside 0..1 or summing over 1.
    """

    def __init__(self, corrupt: float = 0.0, drop: float = 0.0, seed: int = 1) -> None:
        if not (0.0 <= corrupt <= 1.0 and 0.0 <= drop <= 1.0 and corrupt + drop <= 1.0):
            raise ValueError(f"rates must be within 0..1 and sum to at most 1: {corrupt}, {drop}")
        self.corrupt = corrupt
        self.drop = drop
        self.enabled = True
        self._rng = random.Random(seed)
        self.bytes_in = 0
        self.corrupted = 0
        self.dropped = 0

    def process(self, data: bytes) -> bytes:
        """The bytes that come out of the relay for ``data`` going in."""
        self.bytes_in += len(data)
        if not self.enabled or (self.corrupt == 0.0 and self.drop == 0.0):
            return data
        out = bytearray()
        rand = self._rng.random
        for byte in data:
            r = rand()
            if r < self.drop:
                self.dropped += 1
            elif r < self.drop + self.corrupt:
                self.corrupted += 1
                out.append(byte ^ self._rng.randint(1, 255))
            else:
                out.append(byte)
        return bytes(out)
