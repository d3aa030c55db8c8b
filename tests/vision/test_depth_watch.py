"""The camera-moved warning at its edges: what counts as a throw into an empty tray, what
as the tray back as it rested, and a camera back restarting the count
(:mod:`vision.reading.depth_watch`, with the real settle detector; no dice model needed:
each tray is one where no die was found).

The frames are 160x100 grey images, the settle detector's own width, so that a share of
the tray's pixels is exact: 16,000 pixels, ``LEAST_CHANGE`` is 8 of them and
``LOCAL_CHANGE`` 3,200 (18 rows of 160 changed, the blur's edges included).
"""

from __future__ import annotations

import queue
from typing import Any

import numpy as np
from numpy.typing import NDArray

from controller.core.events import Event
from vision.events import OutOfDepth
from vision.reading.depth_watch import LEAST_CHANGE, LOCAL_CHANGE, DepthWatch
from vision.reading.read import DiceRead
from vision.reading.settle import SettleDetector

H, W = 100, 160
EMPTY = np.full((H, W), 100, np.uint8)
NONE_FOUND = DiceRead(())  # a settled tray, no die found in it


def changed_rows(top: int, rows: int) -> NDArray[Any]:
    """The empty tray with ``rows`` whole rows from ``top`` changed (dice, seen coarsely)."""
    frame = EMPTY.copy()
    frame[top : top + rows, :] = 200
    return frame


class Table:
    """A depth watch fed settled trays through a real settle detector."""

    def __init__(self) -> None:
        self.events: queue.Queue[Event] = queue.Queue()
        self.settle = SettleDetector()
        self.watch = DepthWatch(self.events, self.settle)
        self.t = 0.0

    def share(self, frame: NDArray[Any], before: NDArray[Any]) -> float:
        """The share of ``frame``'s pixels the watch counts as changed from ``before``."""
        probe = SettleDetector()
        probe.update(before)
        view = probe.view
        probe.update(frame)
        return probe.changed_share(view)

    def baseline(self, frame: NDArray[Any]) -> None:
        """The camera (back) sees ``frame`` as the tray lies, no die in it."""
        self.settle.update(frame)
        self.watch.baseline(empty=True)

    def settled(self, frame: NDArray[Any]) -> list[type]:
        """The tray settles as ``frame`` with no die found (6 awaited); the events posted."""
        self.t += 10.0
        self.settle.update(frame)
        self.watch.judge(NONE_FOUND, 6, self.t)
        return [type(self.events.get_nowait()) for _ in range(self.events.qsize())]


def test_dice_changing_exactly_the_local_share_are_a_throw() -> None:
    """Dice thrown change at most LOCAL_CHANGE of a still tray: two throws that change
    exactly that much, none found, say the camera moved; a change of one more row is a
    lamp or a hand, and says nothing."""
    table = Table()
    first, second = changed_rows(10, 18), changed_rows(60, 18)
    assert table.share(first, EMPTY) == LOCAL_CHANGE == table.share(second, EMPTY)
    table.baseline(EMPTY)
    assert table.settled(first) == []
    assert table.settled(EMPTY) == []  # taken up: the tray back as it rested
    assert table.settled(second) == [OutOfDepth]
    wider = Table()
    assert wider.share(changed_rows(10, 19), EMPTY) > LOCAL_CHANGE
    wider.baseline(EMPTY)
    for frame in (changed_rows(10, 19), EMPTY, changed_rows(60, 19)):
        assert wider.settled(frame) == []


def test_a_tray_within_the_least_share_of_its_rest_is_back_and_keeps_the_count() -> None:
    """A tray that differs from the empty one it rested as by LEAST_CHANGE at most (a
    speck of light) is that tray back: neither a throw nor a break in the count of
    throws where no die was found."""
    table = Table()
    speck = EMPTY.copy()
    speck[50, 60:64] = 200  # four bright pixels: eight changed through the blur
    assert table.share(speck, EMPTY) == LEAST_CHANGE
    table.baseline(EMPTY)
    assert table.settled(changed_rows(10, 10)) == []  # one throw, none found
    assert table.settled(speck) == []  # the dice taken up: not a second throw
    assert table.settled(changed_rows(60, 10)) == [OutOfDepth]  # the second throw


def test_a_camera_back_restarts_the_count_of_throws() -> None:
    """A throw where no die was found before the camera came back (the tray seen anew as
    it lies) and one after it are not two throws in a row: the camera is not said moved
    until a second throw since."""
    table = Table()
    table.baseline(EMPTY)
    assert table.settled(changed_rows(10, 10)) == []
    table.baseline(EMPTY)  # the camera lost and back, the tray empty
    assert table.settled(changed_rows(60, 10)) == []
    assert table.settled(EMPTY) == []
    assert table.settled(changed_rows(30, 10)) == [OutOfDepth]
