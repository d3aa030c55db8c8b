"""After a camera came back over a hand, the settle detector waits for the hand to leave
before it takes the tray as it lies (its baseline), however the hand leaves."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.reading.settle import Motion, SettleDetector


def _tray(hand_from: int, width: int = 320, height: int = 240) -> NDArray[np.uint8]:
    """A grey tray; a bright hand covering the columns from ``hand_from`` on."""
    frame = np.full((height, width), 90, np.uint8)
    frame[:, hand_from:] = 220
    return frame


def _after_the_hand(frames: list[NDArray[np.uint8]]) -> list[Motion]:
    detector = SettleDetector()
    detector.update(_tray(100))  # the frame the hand was read in
    detector.rebase(after_motion=True)
    return [detector.update(f) for f in frames]


def test_a_hand_that_stays_is_waited_for_and_a_quick_leave_ends_the_wait() -> None:
    stays = _after_the_hand([_tray(100)] * 10)
    assert Motion.BASELINE not in stays
    gone = _after_the_hand([_tray(320)] + [_tray(320)] * 4)
    assert gone[0] is Motion.MOVING and gone[-1] is Motion.BASELINE


def test_a_hand_leaving_slowly_ends_the_wait() -> None:
    """A hand fading out of view (or sliding off a pixel at a time): each frame differs
    from the one before by less than motion, but from the hand's frame by more. The wait
    compared frame with frame, and lasted for ever."""
    fading = []
    for level in range(218, 89, -2):  # 2 grey levels a frame: under diff_level (18)
        frame = _tray(100)
        frame[:, 100:] = level
        fading.append(frame)
    motions = _after_the_hand(fading + [_tray(320)] * 5)
    assert Motion.MOVING in motions and Motion.BASELINE in motions


def test_a_frame_of_another_size_ends_the_wait() -> None:
    motions = _after_the_hand([_tray(640, 640, 480)] * 6)
    assert motions[0] is Motion.MOVING and Motion.BASELINE in motions
