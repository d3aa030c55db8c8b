"""Scaling a photo to where dice are read: the length die sizes are measured against, the
scale at which a die has a given side, and a fast resize to it."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import cv2
from numpy.typing import NDArray

if TYPE_CHECKING:
    from vision.reading.detect import DetectorParams

SCALE_STEP = 1.12  # the ratio between two die sizes a photo taken by hand is looked at
STEPS = 4  # sizes the finder measures each way: 0.64-1.57 times the learned side
# sizes the look may reach each way (vision.reading.look_scale): 0.40-2.48 times the
# learned side; a photo of dice smaller than that is a photo of another table
MAX_LOOK_STEPS = 8


def image_length(width: float, height: float) -> float:
    """The length die sizes are measured against: ``sqrt(width * height)`` (the same for a
    camera turned a quarter turn)."""
    return math.sqrt(width * height)


def working_scale(length: float, params: DetectorParams, die_px: float | None = None) -> float:
    """Pixels per input pixel where a die is ``die_px`` (default: the working size) wide,
    in an image of :func:`image_length` ``length``."""
    return (die_px or params.work_die_px) / (params.die_frac * length)


def shrink(image: NDArray[Any], scale: float) -> NDArray[Any]:
    """Resize by ``scale`` with pixel-area averaging (linear when enlarging), fast.

    OpenCV's area resize has a fast path for whole-number factors: the image is
    first shrunk by the largest whole factor that divides both sides and does
    not overshoot, then area-resized the rest of the way.
    """
    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    if scale >= 1:
        if size == (w, h):
            return image
        return cv2.resize(image, size, interpolation=cv2.INTER_LINEAR)
    for k in range(int(1.0 / scale), 1, -1):
        if w % k == 0 and h % k == 0:
            image = cv2.resize(image, (w // k, h // k), interpolation=cv2.INTER_AREA)
            break
    if (image.shape[1], image.shape[0]) == size:
        return image
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)
