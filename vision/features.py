"""Face features: a die's patch, turned upright, normalised and described in numpy.

The patch is cut along the die's rotated rectangle (so a die at 30 degrees
looks like one at 0, up to a quarter turn) and resized to ``PATCH`` pixels.
The feature vector joins two unit-length parts:

* a histogram of oriented gradients (``CELLS`` x ``CELLS`` cells, ``BINS``
  unsigned orientations, magnitude-weighted) computed with numpy — OpenCV 5 no
  longer ships ``HOGDescriptor`` in the main package, and this is 20 lines;
* the patch itself, shrunk to ``THUMB`` pixels and contrast-normalised.

The quarter-turn ambiguity is handled by the model: training stores each
sample in its four quarter turns.
"""

from __future__ import annotations

import cv2
import numpy as np

PATCH = 32
CELLS = 4
BINS = 9
THUMB = 12
MARGIN = 0.8  # the patch side over the die's rectangle side: the top face, not the sides
HOG_WEIGHT = 0.75

FEATURE_SIZE = CELLS * CELLS * BINS + THUMB * THUMB


def cut_patch(
    work_gray: np.ndarray, rect: tuple[tuple[float, float], tuple[float, float], float]
) -> np.ndarray:
    """The die's upright ``PATCH`` x ``PATCH`` float32 patch from a working-scale gray image."""
    (cx, cy), (rw, rh), angle = rect
    side = max(rw, rh, 4.0) * MARGIN
    zoom = PATCH / side
    m = cv2.getRotationMatrix2D((cx, cy), angle, zoom)
    m[0, 2] += PATCH / 2 - cx
    m[1, 2] += PATCH / 2 - cy
    patch = cv2.warpAffine(
        work_gray, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return patch.astype(np.float32)


def _normalise(patch: np.ndarray) -> np.ndarray:
    p = patch - patch.mean()
    return p / (float(p.std()) + 1e-3)


def _hog(p: np.ndarray) -> np.ndarray:
    gx = np.zeros_like(p)
    gy = np.zeros_like(p)
    gx[:, 1:-1] = p[:, 2:] - p[:, :-2]
    gy[1:-1, :] = p[2:, :] - p[:-2, :]
    mag = np.hypot(gx, gy)
    ang = np.mod(np.arctan2(gy, gx), np.pi)
    b = np.minimum((ang / np.pi * BINS).astype(np.int64), BINS - 1)
    cell = PATCH // CELLS
    cy = np.arange(PATCH)[:, None] // cell
    cx = np.arange(PATCH)[None, :] // cell
    index = (cy * CELLS + cx) * BINS + b
    hist = np.bincount(index.ravel(), weights=mag.ravel(), minlength=CELLS * CELLS * BINS)
    hist = np.sqrt(hist)  # tempers strong edges (the die's outline) against pips
    return hist / (float(np.linalg.norm(hist)) + 1e-6)


def features(patch: np.ndarray) -> np.ndarray:
    """The feature vector (length ``FEATURE_SIZE``, float32) of one patch."""
    p = _normalise(patch)
    thumb: np.ndarray = cv2.resize(p, (THUMB, THUMB), interpolation=cv2.INTER_AREA).ravel()
    thumb = thumb / (float(np.linalg.norm(thumb)) + 1e-6)
    return np.concatenate([HOG_WEIGHT * _hog(p), (1 - HOG_WEIGHT) * thumb]).astype(np.float32)


def quarter_turns(patch: np.ndarray) -> list[np.ndarray]:
    """The patch in its four quarter turns (training augmentation)."""
    return [np.ascontiguousarray(np.rot90(patch, k)) for k in range(4)]
