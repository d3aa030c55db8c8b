"""Settle detection: is the tray still, and has it been still since something moved?

Each frame is shrunk to ``width`` pixels, blurred, and compared with the
previous one; the share of pixels that changed by more than ``diff_level``
grey levels is the *motion*. Once motion has been seen (a throw, a hand), the
tray must stay still for ``still_frames`` frames in a row: that frame is the
settled one, reported once. What the still tray holds (dice, a hand, nothing)
is the reader's business (:mod:`vision.reading.reader`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.errors import ConfigError


class Motion(StrEnum):
    """What the last frame showed."""

    MOVING = "moving"
    SETTLING = "settling"  # still, but not for long enough yet
    SETTLED = "settled"  # the frame that completes the still run (reported once)
    IDLE = "idle"  # still, nothing moved since the last settled frame
    BASELINE = "baseline"  # the still run that ends a rebase: the tray as it lies, no throw


@dataclass(frozen=True)
class SettleParams:
    """Settings of the settle detector."""

    width: int = 160
    diff_level: int = 18
    moving_share: float = 0.002
    still_frames: int = 4

    def __post_init__(self) -> None:
        if not 32 <= self.width <= 1024:
            raise ConfigError(f"settle width {self.width} must be within 32..1024")
        if self.still_frames < 1:
            raise ConfigError(f"still_frames {self.still_frames} must be at least 1")


class SettleDetector:
    """Feed frames in order; :meth:`update` says moving, settling, settled or idle."""

    def __init__(self, params: SettleParams | None = None) -> None:
        self.params = params or SettleParams()
        self._prev: NDArray[Any] | None = None
        self._still = 0
        self._armed = False
        self._rebasing = False
        self._wait_motion = False
        self._hand: NDArray[Any] | None = None  # the frame a rebase waits to see change
        self.motion = 0.0

    def reset(self) -> None:
        """Forget the previous frame; the next still run after motion settles again."""
        self._prev = None
        self._still = 0
        self._armed = False

    def rebase(self, after_motion: bool = False) -> None:
        """Take the next still run as the tray as it lies, not as a throw: a camera that
        came back sees dice already read or entered by hand, through an exposure that
        settles anew (its first frames differ from the last before the loss).
        ``after_motion``: the still run after something next moves (the last one showed
        a hand: read again only once it has moved)."""
        prev = self._prev
        self.reset()
        self._rebasing = True
        self._wait_motion = after_motion
        if after_motion:  # the frame the hand was read in: its leaving is motion
            self._prev = self._hand = prev

    def rearm(self) -> None:
        """Report the current still run again once it is long enough (e.g. after a hand left)."""
        self._armed = True
        self._still = 0

    def update(self, frame: NDArray[Any]) -> Motion:
        """Take the next BGR (or gray) frame and say what the tray is doing."""
        p = self.params
        gray = frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        h, w = gray.shape[:2]
        small = cv2.resize(
            gray, (p.width, max(1, round(h * p.width / w))), interpolation=cv2.INTER_AREA
        )
        small = cv2.GaussianBlur(small, (5, 5), 0)
        prev, self._prev = self._prev, small
        if prev is None or prev.shape != small.shape:
            self._armed = not self._rebasing
            self._wait_motion = self._wait_motion and prev is None  # another frame: moved
            self._still = 0
            self.motion = 1.0
            return Motion.MOVING
        if self._wait_motion and self._hand is not None and self._hand.shape == small.shape:
            prev = self._hand  # against the hand's frame: one that slides off slowly moved
        diff = cv2.absdiff(small, prev)
        self.motion = float(np.count_nonzero(diff > p.diff_level)) / diff.size
        if self.motion > p.moving_share:
            self._armed = not self._rebasing
            self._still = 0
            self._wait_motion = False
            return Motion.MOVING
        self._still += 1
        if self._rebasing and self._wait_motion:
            return Motion.IDLE
        if self._rebasing and self._still >= p.still_frames:
            self._rebasing = False  # the baseline: what moves next is a throw
            return Motion.BASELINE
        if not self._armed:
            return Motion.IDLE
        if self._still >= p.still_frames:
            self._armed = False
            return Motion.SETTLED
        return Motion.SETTLING

    @property
    def view(self) -> NDArray[Any] | None:
        """The last frame as the detector compares frames (small, blurred, grey)."""
        return self._prev

    def changed_share(self, before: NDArray[Any] | None) -> float:
        """The share of the last frame's pixels that differ from ``before`` (an earlier
        :attr:`view`) as much as motion does; 1 where there is none to compare with."""
        now = self._prev
        if before is None or now is None or before.shape != now.shape:
            return 1.0
        changed = np.count_nonzero(cv2.absdiff(now, before) > self.params.diff_level)
        return float(changed) / now.size
