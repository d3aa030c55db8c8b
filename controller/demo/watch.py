"""The bot players' eyes on the table: what the table publishes, on the players' own queue.

The bots run on the demo's main thread, the table on the loop's. The dice
table publishes a :class:`~controller.table.awaits.TableAwaits` after each
redraw (every change it shows), and answers a :class:`LookAtTable` request
posted to the loop with one more, numbered, once everything posted before the
request is handled — so a look after an act sees the act taken in. Both arrive
on :attr:`TableWatch.inbox`; the players never read the table's live objects.
A companion table is looked at the same way (:class:`CompanionWatch`): its view,
state and counts, taken on the loop's thread.
"""

from __future__ import annotations

import itertools
import queue
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from controller.core.errors import TopTableError
from controller.core.events import Event
from controller.daemon.loop import TableLoop
from controller.table.awaits import TableAwaits
from controller.table.companion import CompanionTable
from controller.table.controller import TableController
from hardware.displays.companion import CompanionView


class WatchTimeoutError(TopTableError, TimeoutError):
    """The table did not answer in time (its loop stalled)."""


@dataclass(frozen=True)
class LookAtTable(Event):
    """The players ask what the table shows; answered with a TableAwaits of ``serial``."""

    serial: int


class TableWatch:
    """Snapshots of the table for the players. ``in_air`` (called on the loop's thread) gives
    the spaces whose tokens the board sees lifted, for the answers to a look."""

    def __init__(
        self,
        loop: TableLoop,
        table: TableController,
        in_air: Callable[[], frozenset[int]] = frozenset,
        timeout_s: float = 10.0,
    ) -> None:
        self.loop = loop
        self.timeout_s = timeout_s
        self.inbox: queue.Queue[TableAwaits] = queue.Queue()
        self.latest: TableAwaits | None = None
        self._serials = itertools.count(1)

        def answer(event: LookAtTable) -> None:  # on the loop's thread
            self.inbox.put(replace(table.awaits(), in_air=in_air(), answer_to=event.serial))

        table.watchers.append(self.inbox.put)
        loop.on(LookAtTable, answer)

    def look(self) -> TableAwaits:
        """What the table shows once it has handled everything posted so far.

        Raises:
            WatchTimeoutError: no answer within the timeout.
        """
        serial = next(self._serials)
        self.loop.post(LookAtTable(serial))
        deadline = time.monotonic() + self.timeout_s
        while True:
            seen = self._next(deadline, f"the table did not answer within {self.timeout_s} s")
            if seen.answer_to == serial:
                return seen

    def wait_for(self, done: Callable[[TableAwaits], bool], what: str) -> TableAwaits:
        """Wait for a published snapshot for which ``done`` holds, then look once more.

        Raises:
            WatchTimeoutError: it did not come within the timeout.
        """
        deadline = time.monotonic() + self.timeout_s
        seen = self.latest
        while seen is None or not done(seen):
            seen = self._next(
                deadline, f"the table did not take in {what} within {self.timeout_s} s"
            )
        return self.look()

    def _next(self, deadline: float, message: str) -> TableAwaits:
        left = deadline - time.monotonic()
        if left <= 0:
            raise WatchTimeoutError(message)
        try:
            seen = self.inbox.get(timeout=left)
        except queue.Empty:
            raise WatchTimeoutError(message) from None
        self.latest = seen
        return seen


@dataclass(frozen=True)
class CompanionSeen:
    """A companion table as the players see it: its view, the mode's (frozen) state and
    how many actions the game has."""

    view: CompanionView
    state: Any
    history: int


@dataclass(frozen=True)
class LookAtCompanion(Event):
    """The players ask what the companion table shows; answered on the watch's inbox."""

    serial: int


class CompanionWatch:
    """Snapshots of a companion table for the players, taken on the loop's thread."""

    def __init__(self, loop: TableLoop, table: CompanionTable, timeout_s: float = 10.0) -> None:
        self.loop = loop
        self.timeout_s = timeout_s
        self.inbox: queue.Queue[tuple[int, CompanionSeen]] = queue.Queue()
        self._serials = itertools.count(1)

        def answer(event: LookAtCompanion) -> None:  # on the loop's thread
            seen = CompanionSeen(table.view(), table.state, table.history)
            self.inbox.put((event.serial, seen))

        loop.on(LookAtCompanion, answer)

    def look(self) -> CompanionSeen:
        """What the table shows once it has handled everything posted so far.

        Raises:
            WatchTimeoutError: no answer within the timeout.
        """
        serial = next(self._serials)
        self.loop.post(LookAtCompanion(serial))
        deadline = time.monotonic() + self.timeout_s
        while True:
            left = deadline - time.monotonic()
            try:
                answer_to, seen = self.inbox.get(timeout=max(0.0, left))
            except queue.Empty:
                raise WatchTimeoutError(
                    f"the table did not answer within {self.timeout_s} s"
                ) from None
            if answer_to == serial:
                return seen
