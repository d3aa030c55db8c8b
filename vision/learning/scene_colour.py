"""The scenes' colour model, learned at calibration: the log-probability of each balanced
colour among the calibration photos' pixels and their labelled dice, and the limit under
which a pixel is unlike anything seen (a hand, an object;
:func:`vision.reading.novelty.novel_mask` reads it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.learning.detect_train import Photo


def colour_model(photos: Sequence[Photo], ratio: float) -> tuple[NDArray[Any], float]:
    """The colour model of the photos' balanced colours and the novelty limit on it."""
    colour = _colour_model(photos, ratio)
    seen = np.concatenate([_logp(colour, p.bal) for p in photos])
    return colour, float(np.percentile(seen, 0.1)) - 2.0


def _logp(colour: NDArray[Any], bal: NDArray[Any]) -> NDArray[Any]:
    bins = colour.shape[0]
    q = np.minimum((bal * (bins / 256.0)).astype(np.int32), bins - 1)
    logp: NDArray[Any] = colour[q[..., 0], q[..., 1], q[..., 2]].ravel()
    return logp


def _colour_model(photos: Sequence[Photo], ratio: float, bins: int = 12) -> NDArray[Any]:
    """Log-probabilities of balanced colours (bins^3, smoothed): half the weight to the
    scenes' pixels, half to the labeled dice's (small dice must not look novel)."""
    scene = np.zeros(bins**3, np.float64)
    dice = np.zeros(bins**3, np.float64)
    for photo in photos:
        q = np.minimum((photo.bal * (bins / 256.0)).astype(np.int32), bins - 1)
        idx = (q[..., 0] * bins + q[..., 1]) * bins + q[..., 2]
        scene += np.bincount(idx.ravel(), minlength=bins**3)
        inside = np.zeros(idx.shape, bool)
        for x, y, w, h in photo.boxes:
            x0, y0 = max(0, int(x * ratio)), max(0, int(y * ratio))
            inside[y0 : int((y + h) * ratio) + 1, x0 : int((x + w) * ratio) + 1] = True
        dice += np.bincount(idx[inside], minlength=bins**3)
    hist = 0.5 * scene / max(1.0, scene.sum()) + 0.5 * dice / max(1.0, dice.sum())
    hist = hist.reshape(bins, bins, bins)
    for axis in range(3):  # smooth: a colour next to a seen one is not novel
        hist = 0.5 * hist + 0.25 * (np.roll(hist, 1, axis) + np.roll(hist, -1, axis))
    logp: NDArray[Any] = np.log(hist + 1e-7).astype(np.float32)
    return logp
