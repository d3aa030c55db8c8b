"""How far a table's publishing has got (:class:`~controller.publish.publisher.Publisher`):
the game being published (its journal, the rows in flight, the acknowledged mark), the
newest state waiting to go, and what the publisher reports (its delivery, its counters)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.publish.outbox import AckMark, JournalReader


@dataclass(frozen=True)
class Delivery:
    """How much of a game's journal the broker has taken (:meth:`Publisher.finish`)."""

    delivered: int  # journal rows the broker acknowledged
    total: int  # journal rows
    journal: Path | None
    problem: str | None  # the link's problem when not all were delivered

    @property
    def complete(self) -> bool:
        """Every row acknowledged."""
        return self.delivered >= self.total

    def text(self) -> str:
        """One line for a person: how many rows went out, and where the rest wait."""
        line = f"{self.delivered} of {self.total} events delivered"
        if not self.complete:
            line += f"; the rest wait in {self.journal} (`--resume` sends them)"
            if self.problem:
                line += f"; broker: {self.problem}"
        return line


@dataclass
class PublishStats:
    """What the publisher has done (read by tests and the bench)."""

    events_sent: int = 0
    states_sent: int = 0
    connections: int = 0
    disconnections: int = 0
    acked: int = 0  # the acknowledged mark: every row up to it has a PUBACK
    other_instances: int = 0  # "online" messages of another process using this table id


StateBuilder = Callable[..., dict[str, Any]]
"""Builds a state message: called (on the publisher thread) with the keywords ``table_id``,
``seq``, ``game_id``, ``sent_at`` and ``people``; pure
(:func:`~controller.publish.messages.state_message` or
:func:`~controller.publish.companion.companion_state_message` with the game's state bound)."""


@dataclass(frozen=True)
class LatestState:
    """The newest state to publish: how to build it, its journal row and when it came."""

    build: StateBuilder
    seq: int
    at: float


class PublishedGame:
    """The journal being published (publisher thread only)."""

    def __init__(self, path: Path, game_id: str) -> None:
        self.path = path
        self.game_id = game_id
        self.reader = JournalReader(path)
        self.mark = AckMark(path, game_id)
        self.sent = self.mark.value  # the highest row handed to paho
        self.pending: dict[int, int] = {}  # mid -> row
        self.read_at = float("-inf")  # monotonic time the journal was last read
        self.state_for: tuple[int, float] | None = None  # (seq, at) of the state last sent
        self.state_mid: int | None = None  # its message id, sent at QoS 1
        self.state_acked = False  # the broker acknowledged it

    def close(self) -> None:
        """Save the acknowledged mark; close the journal."""
        self.mark.save()
        self.reader.close()
