"""The settle detector's edges: what counts as motion (more than ``moving_share`` of the
pixels changing by more than ``diff_level`` grey levels), and a tray seen at another size.

The frames are grey and 160 pixels wide, the detector's own width, so that its shares are
exact: a 160x125 frame is 20,000 pixels, ``moving_share`` (0.2 %) 40 of them.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from vision.reading.settle import Motion, SettleDetector

TRAY = np.full((125, 160), 100, np.uint8)


def _patch(width: int, height: int) -> NDArray[np.uint8]:
    """The tray with a bright patch: what changes through the blur grows by its edges."""
    frame = TRAY.copy()
    frame[50 : 50 + height, 60 : 60 + width] = 200
    return frame


def _second(frame: NDArray[np.uint8]) -> tuple[Motion, float]:
    """What the detector says of ``frame`` after the still tray, and the share it moved."""
    detector = SettleDetector()
    detector.update(TRAY)
    return detector.update(frame), detector.motion


def test_exactly_the_moving_share_changed_is_still_one_pixel_more_is_motion() -> None:
    assert _second(_patch(2, 9)) == (
        Motion.SETTLING,
        0.002,
    )  # 40 pixels, not more than 0.2 %: still
    motion, share = _second(_patch(3, 7))  # 41 pixels
    assert motion is Motion.MOVING and share == 0.00205


def test_a_change_of_exactly_the_diff_level_is_no_motion() -> None:
    """The whole tray 18 grey levels brighter (a cloud passing) is still; 19 moves."""
    assert _second(np.full_like(TRAY, 118))[0] is Motion.SETTLING
    assert _second(np.full_like(TRAY, 119)) == (Motion.MOVING, 1.0)


def test_a_tray_seen_at_another_size_has_changed_all_over() -> None:
    """Compared with a view of another shape (a camera opened at another size), the tray
    counts as changed everywhere, without failing."""
    detector = SettleDetector()
    detector.update(TRAY)
    before = detector.view
    detector.update(np.full((100, 160), 100, np.uint8))
    assert detector.changed_share(before) == 1.0
