"""Compares what the host saw with what really happened: lost and phantom events, latency."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from hardware.board.events import SensorChanged


@dataclass(frozen=True)
class TruthChange:
    """A sensor really changed at time ``t`` (same clock as SensorChanged.at)."""

    t: float
    sensor: int
    occupied: bool


@dataclass
class Tally:
    """The outcome of matching host changes against the truth."""

    truth: int = 0
    seen: int = 0
    lost: int = 0
    phantom: int = 0
    from_resync: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds, live events only
    lost_examples: list[TruthChange] = field(default_factory=list)
    phantom_examples: list[SensorChanged] = field(default_factory=list)


def tally(
    truth: Iterable[TruthChange], host: Iterable[SensorChanged], until: float | None = None
) -> Tally:
    """Match each host change to the earliest unmatched real change of its sensor and state.

    A real change skipped over by a match, or never matched (before ``until``), is
    lost; a host change with no real change to match (same sensor and state, not
    later than the host saw it) is a phantom.
    """
    out = Tally()
    by_sensor: dict[int, list[TruthChange]] = {}
    for t in truth:
        by_sensor.setdefault(t.sensor, []).append(t)
        out.truth += 1
    cursor: dict[int, int] = {}
    for h in host:
        out.seen += 1
        seq: Sequence[TruthChange] = by_sensor.get(h.sensor, [])
        i = cursor.get(h.sensor, 0)
        j = i
        while j < len(seq) and not (seq[j].occupied == h.occupied and seq[j].t <= h.at):
            if seq[j].t > h.at:
                j = len(seq)
                break
            j += 1
        if j >= len(seq):
            out.phantom += 1
            if len(out.phantom_examples) < 5:
                out.phantom_examples.append(h)
            continue
        out.lost += j - i
        out.lost_examples.extend(seq[i:j][: max(0, 5 - len(out.lost_examples))])
        cursor[h.sensor] = j + 1
        if h.resync:
            out.from_resync += 1
        else:
            out.latencies.append(h.at - seq[j].t)
    for sensor, seq in by_sensor.items():
        for t in seq[cursor.get(sensor, 0) :]:
            if until is None or t.t <= until:
                out.lost += 1
                if len(out.lost_examples) < 5:
                    out.lost_examples.append(t)
    return out


def percentile(values: Sequence[float], p: float) -> float:
    """The p-th percentile (0..100) by nearest rank; 0.0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    k = max(0, min(len(ordered) - 1, math.ceil(p / 100 * len(ordered)) - 1))
    return ordered[k]
