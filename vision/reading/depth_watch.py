"""When a running camera's reads lie outside what calibration learned: said once, cleared.

:class:`DepthWatch` takes each settled tray the reader read (:mod:`vision.reading.reader`)
and posts :class:`~vision.events.OutOfDepth` when a kind of warning
(:mod:`vision.reading.domain`) comes that was not posted since the last frame without any
(the dice's measures vary from throw to throw: no repeats), and
:class:`~vision.events.BackInDepth` once none holds. A kind judged from the dice's measures
counts once two throws in a row show it (one throw's may mislead: a die's mark taken for
its outline); the frame's size at once.

A tray where no die was found says nothing of the dice's measures (what was said of them
stands), but dice thrown into it where the table awaits them, none found, two throws in a
row, are a kind of their own (:func:`~vision.reading.domain.no_dice_warning`): a camera
that moved keeps its frame's size, its dice too small or large to be found. A throw is
told from the trays' difference: a still tray that differs from the last one judged over a
small part of the frame (``LEAST_CHANGE`` to ``LOCAL_CHANGE``), as dice do, where no die
was found either (dice taken up to be thrown again change it so too); a hand over the tray
(the reader says obstructed) is not judged, and a light or a camera moved changes it all. A
tray back as it rested before (a shadow, fingertips gone again) neither counts nor breaks
the count.
"""

from __future__ import annotations

import queue
from typing import Any

from numpy.typing import NDArray

from controller.core.events import Event
from vision.events import BackInDepth, OutOfDepth
from vision.reading.domain import DomainIssue, no_dice_warning
from vision.reading.read import DiceRead
from vision.reading.settle import SettleDetector

LOCAL_CHANGE = 0.2
"""The largest share of a still tray's pixels that dice thrown into it change (more: a
lamp, a shadow, a camera moved or a hand resting over it)."""
LEAST_CHANGE = 0.0005
"""The least share they change: six dice of 15 px in a 1280 px frame, seen from afar, are
a few pixels each of the settle detector's 160 (under its motion share, 0.002)."""


class DepthWatch:
    """The out-of-depth warnings of one camera's reads, said once each."""

    def __init__(self, events: queue.Queue[Event], settle: SettleDetector) -> None:
        self.events = events
        self.settle = settle
        self.warned: tuple[str, ...] = ()  # the warnings posted last
        self.awaiting = True  # a throw is awaited now (the table says when a roll is over)
        self._warned_kinds: set[DomainIssue] = set()
        self._last_kinds: set[DomainIssue] = set()  # the last judged frame's warnings
        self._tray: NDArray[Any] | None = None  # the last still tray judged, as settle sees it
        self._tray_empty = False  # no die was found in it
        self._rest: NDArray[Any] | None = None  # the empty tray a throw would change

    def baseline(self, empty: bool) -> None:
        """The tray as it lies (a camera back, a rebase; ``empty``: no die found in it): no
        throw, none thrown unseen."""
        self._last_kinds.discard(DomainIssue.NO_DICE)
        self._tray, self._tray_empty = self.settle.view, empty
        self._rest = self._tray if empty else None

    def judge(self, read: DiceRead, expect: int | None, timestamp: float) -> None:
        """Judge the settled, unobstructed tray ``read`` (``expect``: the dice awaited)."""
        share = self.settle.changed_share(self._tray)
        back = not read.dice and self.settle.changed_share(self._rest) <= LEAST_CHANGE
        thrown_in = self._tray_empty and not back and LEAST_CHANGE < share <= LOCAL_CHANGE
        self._tray, self._tray_empty = self.settle.view, not read.dice
        if not read.dice and not thrown_in and not back:
            self._rest = self._tray
        elif read.dice:
            self._rest = None
        warnings = list(read.warnings)
        unjudged: set[DomainIssue] = set()  # the dice's kinds, left as they were
        if not read.dice:
            unjudged = {k for k in self._last_kinds if k.from_dice}
            if not back:  # a tray back as it rested keeps the count of throws into it
                unjudged.discard(DomainIssue.NO_DICE)
            if thrown_in and expect and self.awaiting:
                warnings.append(no_dice_warning(expect))
        kinds = {w.kind for w in warnings}
        held = {k for k in kinds if not k.from_dice or k in self._last_kinds}
        self._last_kinds = kinds | unjudged
        if not self._last_kinds:
            if self._warned_kinds:  # what was posted no longer holds
                self.events.put(BackInDepth(timestamp))
            self._warned_kinds = set()
        elif held - self._warned_kinds:
            self._warned_kinds |= held
            shown = [w for w in warnings if w.kind in held]
            self.warned = tuple(w.text for w in shown)
            lines = tuple(w.kind.line for w in shown)
            self.events.put(OutOfDepth(self.warned, lines, timestamp))
