"""Holds back a flickering (stuck or failing) sensor's changes until it settles."""

from __future__ import annotations

import logging
from collections import deque

from hardware.board.events import SensorChanged, SensorFlickering

log = logging.getLogger(__name__)


class FlickerGuard:
    """Passes sensor changes through unless a sensor changes more than ``max_changes``
    times within ``window_s``; then it is held (one :class:`SensorFlickering` is
    posted) until it has been quiet for ``quiet_s``, when its final state is posted
    as one change if it differs from the last one passed.
    """

    def __init__(self, max_changes: int = 8, window_s: float = 2.0, quiet_s: float = 2.0) -> None:
        self.max_changes = max_changes
        self.window_s = window_s
        self.quiet_s = quiet_s
        self.flickers = 0
        self.held = 0
        self._times: dict[int, deque[float]] = {}
        self._passed: dict[int, bool] = {}
        self._held: dict[int, SensorChanged] = {}
        self._last_change: dict[int, float] = {}

    def filter(self, ev: SensorChanged, now: float) -> list[SensorChanged | SensorFlickering]:
        """What to post for one change: the change itself, nothing, or a flicker notice."""
        times = self._times.setdefault(ev.sensor, deque())
        times.append(now)
        while times and now - times[0] > self.window_s:
            times.popleft()
        self._last_change[ev.sensor] = now
        if ev.sensor in self._held:
            self._held[ev.sensor] = ev
            self.held += 1
            return []
        if len(times) > self.max_changes:
            self.flickers += 1
            self.held += 1
            self._held[ev.sensor] = ev
            log.warning(
                "sensor %d flickers: %d changes in %.1f s, expected at most %d; "
                "holding its changes until it is quiet for %.1f s",
                ev.sensor,
                len(times),
                self.window_s,
                self.max_changes,
                self.quiet_s,
            )
            return [SensorFlickering(ev.sensor, len(times), self.window_s)]
        self._passed[ev.sensor] = ev.occupied
        return [ev]

    def poll(self, now: float) -> list[SensorChanged | SensorFlickering]:
        """Release sensors that have settled; return the changes to post."""
        out: list[SensorChanged | SensorFlickering] = []
        for sensor, ev in list(self._held.items()):
            if now - self._last_change[sensor] >= self.quiet_s:
                del self._held[sensor]
                self._times[sensor].clear()
                if self._passed.get(sensor, not ev.occupied) != ev.occupied:
                    self._passed[sensor] = ev.occupied
                    out.append(ev)
                log.info("sensor %d settled (%s)", sensor, "occupied" if ev.occupied else "empty")
        return out

    def holding(self) -> frozenset[int]:
        """Sensors whose changes are being held."""
        return frozenset(self._held)
