"""Dice in a finder's score map: its local maxima above a threshold, strongest first,
at least a given distance apart, placed between samples by a parabola through
each peak and its neighbours."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray


def peaks(
    scores: NDArray[Any], threshold: float, min_dist: float, limit: int
) -> list[tuple[float, float, float]]:
    """Local maxima (x, y in map samples, refined to sub-sample; score) above ``threshold``."""
    if scores.size == 0:
        return []
    r = max(1, int(min_dist))
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))
    dil = cv2.dilate(scores, kernel)
    ys, xs = np.nonzero((scores >= dil) & (scores > threshold))
    order = np.argsort(-scores[ys, xs])
    out: list[tuple[float, float, float]] = []
    h, w = scores.shape
    for k in order:
        y, x = int(ys[k]), int(xs[k])
        s = float(scores[y, x])
        if any((x - px) ** 2 + (y - py) ** 2 < r * r for px, py, _ in out):
            continue
        dx = dy = 0.0
        if 0 < x < w - 1:
            left, c, rr = scores[y, x - 1], s, scores[y, x + 1]
            den = left - 2 * c + rr
            dx = float(np.clip(0.5 * (left - rr) / den, -0.5, 0.5)) if den < 0 else 0.0
        if 0 < y < h - 1:
            t, c, bb = scores[y - 1, x], s, scores[y + 1, x]
            den = t - 2 * c + bb
            dy = float(np.clip(0.5 * (t - bb) / den, -0.5, 0.5)) if den < 0 else 0.0
        out.append((x + dx, y + dy, s))
        if len(out) >= limit:
            break
    return out
