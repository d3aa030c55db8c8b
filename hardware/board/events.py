"""Typed events the board link posts to the table's queue."""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.events import Event


@dataclass(frozen=True)
class SensorChanged(Event):
    """A sensor became occupied or empty.

    ``seq`` is the board's event number within boot ``boot``; a change found by
    comparing a snapshot (after a reset, a gap or a reconnect) has ``resync``
    True and carries the snapshot's seq. ``at`` is the host's monotonic time
    of receipt.
    """

    sensor: int
    occupied: bool
    seq: int
    boot: int
    resync: bool = False
    at: float = 0.0


@dataclass(frozen=True)
class LinkLost(Event):
    """The board stopped answering or its port failed; ``reason`` says which."""

    port: str
    reason: str


@dataclass(frozen=True)
class LinkRestored(Event):
    """The board answered the identify handshake (a resync follows)."""

    port: str
    firmware: str
    protocol: int
    sensors: int
    boot: int


@dataclass(frozen=True)
class BoardResynced(Event):
    """The host's board state is verified equal to the board's, as of event ``seq``."""

    boot: int
    seq: int
    occupied: frozenset[int]
    changed: int
    reason: str


@dataclass(frozen=True)
class SensorFlickering(Event):
    """A sensor changes too often to be a token; its changes are held until it settles."""

    sensor: int
    changes: int
    window_s: float
