"""What the calibration scenes never showed: a hand or an object in view.

Calibration learns the colours of the owner's scenes (a 3-D histogram of balanced
colours, :func:`vision.learning.scene_colour.colour_model`); a pixel whose colour is
unlikely under it is novel, and a large novel region is an obstruction.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray


def novel_mask(
    balanced: NDArray[Any], colour_logp: NDArray[Any] | None, novel_logp: float
) -> NDArray[Any] | None:
    """Pixels (uint8 0/1) of a balanced frame whose colour's log-probability under the
    scenes' colour model ``colour_logp`` is under ``novel_logp``; None without a model."""
    if colour_logp is None:
        return None
    bins = colour_logp.shape[0]
    q = np.minimum((balanced * (bins / 256.0)).astype(np.int32), bins - 1)
    cell = (q[..., 0] * bins + q[..., 1]) * bins + q[..., 2]  # one flat index: a single take
    logp = np.ascontiguousarray(colour_logp).reshape(-1).take(cell)
    mask: NDArray[Any] = (logp < novel_logp).astype(np.uint8)
    return mask


def obstruction(
    mask: NDArray[Any] | None, obstruction_dice: float, die_px: float
) -> tuple[bool, float]:
    """Whether the novel pixels ``mask`` hold a region larger than ``obstruction_dice``
    dice of ``die_px`` pixels, and the largest region's share of the frame."""
    if mask is None:
        return False, 0.0
    mask = cv2.morphologyEx(mask, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    n, _, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    if n <= 1:
        return False, 0.0
    biggest = int(stats[1:, cv2.CC_STAT_AREA].max())
    return biggest > obstruction_dice * die_px * die_px, biggest / mask.size
