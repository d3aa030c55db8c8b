"""Debounced sensor scanning: raw samples in, numbered-to-be changes out (MicroPython subset)."""


class Scanner:
    """Keeps the debounced state of ``sensors`` sensors.

    A sensor's state changes only after ``debounce`` consecutive samples agree
    on the new value; a sample that agrees with the old state resets the count.
    """

    def __init__(self, sensors: int, debounce: int = 2) -> None:
        if not 1 <= sensors <= 128:
            raise ValueError("sensors must be 1..128, got %d" % sensors)
        if debounce < 1:
            raise ValueError("debounce must be >= 1, got %d" % debounce)
        self.sensors = sensors
        self.debounce = debounce
        self.stable = bytearray(sensors)
        self.count = bytearray(sensors)

    def prime(self, raw: bytes | bytearray) -> None:
        """Take ``raw`` as the state at start (no changes reported)."""
        for i in range(self.sensors):
            self.stable[i] = 1 if raw[i] else 0
            self.count[i] = 0

    def update(self, raw: bytes | bytearray) -> list[tuple[int, int]]:
        """Feed one sample (one 0/1 value per sensor); return [(sensor, state)] that changed."""
        changes = []
        stable = self.stable
        count = self.count
        need = self.debounce
        for i in range(self.sensors):
            value = 1 if raw[i] else 0
            if value == stable[i]:
                count[i] = 0
                continue
            c = count[i] + 1
            if c >= need:
                stable[i] = value
                count[i] = 0
                changes.append((i, value))
            else:
                count[i] = c
        return changes
