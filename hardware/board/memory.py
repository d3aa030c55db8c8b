"""What the host keeps of the board across reconnects (:class:`BoardMemory`), its counters, the record hook."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass

from hardware.board.events import SensorChanged

Record = Callable[[SensorChanged], None]


class RecordError(Exception):
    """Raised by a record hook that could not record; the event is not acked and comes again."""


@dataclass
class LinkStats:
    """Counters of the host side (see PROTOCOL.md, Counters)."""

    bytes_invalid: int = 0
    bad_frames: int = 0
    crc_failures: int = 0
    frames: int = 0
    wrong_version: int = 0
    malformed: int = 0
    events: int = 0
    duplicates: int = 0
    ahead: int = 0
    resyncs: int = 0
    gaps: int = 0
    hash_mismatches: int = 0
    inconsistent: int = 0
    stale_snapshots: int = 0
    reconnects: int = 0
    bad_sensor: int = 0
    notices: int = 0
    record_failures: int = 0
    rtt_ms: float = 0.0
    rtt_max_ms: float = 0.0

    def as_dict(self) -> dict[str, float]:
        """The counters by name."""
        return asdict(self)

    def trouble(self) -> dict[str, int]:
        """The counters of a link in trouble (garbled bytes, bad frames, CRC failures,
        resyncs, reconnects, frames of no use), by name: all zero on a healthy link."""
        return {name: getattr(self, name) for name in TROUBLE}

    def health_line(self) -> str:
        """The trouble counters in one line, e.g. for a log or ``board watch``."""
        t = self.trouble()
        unusable = t["malformed"] + t["wrong_version"] + t["bad_sensor"]
        return (
            f"link health: {t['bytes_invalid']} garbled bytes, {t['bad_frames']} bad frames "
            f"({t['crc_failures']} failed their CRC), {t['resyncs']} resyncs, "
            f"{t['reconnects']} reconnects"
            + (f", {unusable} frames the host cannot use (malformed, of another protocol, "
               "or naming a sensor the board lacks)" if unusable else "")
        )  # fmt: skip


TROUBLE = (
    "bytes_invalid", "bad_frames", "crc_failures", "resyncs", "reconnects",
    "malformed", "wrong_version", "bad_sensor",
)  # fmt: skip


@dataclass
class BoardMemory:
    """What the host knows of the board; survives reconnects."""

    boot: int | None = None
    last: int = 0
    sensors: int = 0
    states: bytearray | None = None
    firmware: str = ""

    def occupied(self) -> frozenset[int]:
        """Occupied sensors as last recorded."""
        if self.states is None:
            return frozenset()
        return frozenset(i for i, s in enumerate(self.states) if s)
