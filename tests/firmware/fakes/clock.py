"""MicroPython's millisecond ticks (``time.ticks_*``) on a simulated clock.

From the MicroPython docs (``time`` module): ``ticks_ms()`` counts up and wraps
around after ``TICKS_MAX`` (the period is port-specific; 2**30 on the RP2040 and
most ports); ``ticks_add(ticks, delta)`` is modular addition (delta may be
negative); ``ticks_diff(ticks1, ticks2)`` is the signed modular difference, in
``-TICKS_PERIOD/2 .. TICKS_PERIOD/2 - 1``, so it is right as long as the two
values are less than half a period apart. ``ticks_add`` raises OverflowError
for a delta of half a period or more (checked against the WebAssembly port in
``test_micropython_wasm.py``).
"""

from __future__ import annotations

from collections.abc import Callable

TICKS_PERIOD = 1 << 30
TICKS_MAX = TICKS_PERIOD - 1
TICKS_HALFPERIOD = TICKS_PERIOD // 2


def ticks_add(ticks: int, delta: int) -> int:
    """``time.ticks_add``: ``ticks + delta`` modulo the period.

    Raises:
        OverflowError: ``delta`` is half a period or more either way, as on MicroPython
            (``ticks_diff`` could not give it back).
        ValueError: ``ticks`` is not a ticks value (MicroPython's result would be garbage).
    """
    if not 0 <= ticks <= TICKS_MAX:
        raise ValueError(f"ticks {ticks} is not a value of ticks_ms()")
    if not -TICKS_HALFPERIOD < delta < TICKS_HALFPERIOD:
        raise OverflowError("ticks interval overflow")
    return (ticks + delta) % TICKS_PERIOD


def ticks_diff(ticks1: int, ticks2: int) -> int:
    """``time.ticks_diff``: the signed ``ticks1 - ticks2``, across a wrap."""
    return (ticks1 - ticks2 + TICKS_HALFPERIOD) % TICKS_PERIOD - TICKS_HALFPERIOD


class TimeUpError(Exception):
    """The simulation's time limit: raised from ``sleep_ms`` to end a loop that never returns."""


class Clock:
    """Simulated time. ``elapsed`` counts ms from the start; ``ticks_ms()`` wraps like MicroPython's.

    Time moves only in ``sleep_ms``/``advance``, one millisecond at a time; due
    timers (``at``) and watchers (``every_ms``) run at each millisecond. After
    ``limit`` ms, ``TimeUpError`` is raised.
    """

    def __init__(self, start: int = 0, limit: int | None = None) -> None:
        self.start = start % TICKS_PERIOD
        self.elapsed = 0
        self.limit = limit
        self.slept = 0
        self._timers: list[tuple[int, int, Callable[[], None]]] = []
        self._watchers: list[Callable[[], None]] = []

    def ticks_ms(self) -> int:
        """``time.ticks_ms``."""
        return (self.start + self.elapsed) % TICKS_PERIOD

    ticks_add = staticmethod(ticks_add)
    ticks_diff = staticmethod(ticks_diff)

    def sleep_ms(self, ms: int) -> None:
        """``time.sleep_ms``: let ``ms`` milliseconds pass (negative: none, as on MicroPython)."""
        self.slept += max(ms, 0)
        self.advance(ms)

    def advance(self, ms: int) -> None:
        """Let ``ms`` milliseconds pass without the firmware asking (e.g. a stall)."""
        for _ in range(max(ms, 0)):
            if self.limit is not None and self.elapsed >= self.limit:
                raise TimeUpError(f"simulated time is up after {self.elapsed} ms")
            self.elapsed += 1
            self._run_due()

    def at(self, elapsed: int, action: Callable[[], None]) -> None:
        """Run ``action`` when ``elapsed`` ms have passed since the start."""
        self._timers.append((elapsed, len(self._timers), action))
        self._timers.sort(key=lambda t: (t[0], t[1]))
        self._run_due()

    def every_ms(self, watcher: Callable[[], None]) -> None:
        """Run ``watcher`` after every simulated millisecond."""
        self._watchers.append(watcher)

    def _run_due(self) -> None:
        while self._timers and self._timers[0][0] <= self.elapsed:
            _, _, action = self._timers.pop(0)
            action()
        for watcher in self._watchers:
            watcher()
