"""The base of every typed event posted to the table's queue.

Devices (camera reader, board link, buttons, clock) run in their own threads and
only post events; ``controller.table`` is the one thread that owns game state.
Each package defines its own event dataclasses deriving from :class:`Event`
(``frozen=True``); handlers are dispatched by type, never by ``repr`` or strings.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Event:
    """Something that happened at the table. Subclasses are frozen dataclasses."""
