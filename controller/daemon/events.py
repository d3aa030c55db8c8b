"""Events the daemon itself makes (the devices' own events live in their packages)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from controller.core.events import Event


@dataclass(frozen=True)
class Tick(Event):
    """The loop's clock, dispatched by a loop timer: ``now`` in seconds (monotonic)."""

    now: float


@dataclass(frozen=True)
class StopTable(Event):
    """Ask the table loop to shut down cleanly (posted on SIGTERM)."""

    reason: str


@dataclass(frozen=True)
class Barrier(Event):
    """Posted to learn when the loop has handled everything posted before it."""

    done: threading.Event = field(default_factory=threading.Event, compare=False)


@dataclass(frozen=True)
class TokensTidied(Event):
    """Players put the tokens where the game has them (e.g. took eliminated ones off):
    the move tracker reads the positions from the game again."""
