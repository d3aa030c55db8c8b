"""A die's look around a point of a frame: its rotation (:func:`orientation`), its
outline's aspect (:func:`outline_aspect`, above a limit: a cocked die) and the contrast
of the marks on its face (:func:`face_contrast`, under a floor: no die)."""

from __future__ import annotations

import functools
import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray


def orientation(gray: NDArray[Any], cx: float, cy: float, side: float) -> float:
    """A die's rotation in degrees (0..90) from the edges around (cx, cy): the angle of
    the strongest four-fold gradient direction, weighted towards the centre."""
    r = math.ceil(0.75 * side)
    x0, y0 = round(cx) - r, round(cy) - r
    h, w = gray.shape
    if x0 < 0 or y0 < 0 or x0 + 2 * r + 1 > w or y0 + 2 * r + 1 > h:
        crop = cv2.getRectSubPix(gray, (2 * r + 1, 2 * r + 1), (float(cx), float(cy)))
    else:
        crop = gray[y0 : y0 + 2 * r + 1, x0 : x0 + 2 * r + 1]
    crop = crop.astype(np.float32)
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
    m2 = (gx * gx + gy * gy) * _centre_weight(r, side)
    th4 = 4.0 * np.arctan2(gy, gx)
    angle = math.atan2(float((m2 * np.sin(th4)).sum()), float((m2 * np.cos(th4)).sum())) / 4.0
    return math.degrees(angle) % 90.0


@functools.lru_cache(maxsize=16)
def _centre_weight(r: int, side: float) -> NDArray[Any]:
    """:func:`orientation`'s Gaussian weight over its (2r+1)-pixel crop (the same few sizes
    for every die of a frame: made once, read-only)."""
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    out: NDArray[Any] = np.exp(-(xx * xx + yy * yy) / (2 * (0.6 * side) ** 2)).astype(np.float32)
    out.flags.writeable = False
    return out


def _central_outline(
    gray: NDArray[Any], cx: float, cy: float, side: float, width: float, lo: float, hi: float
) -> tuple[float, float] | None:
    """The die-like region at (cx, cy): Otsu's split of a patch ``width`` sides wide, either
    polarity, holes filled; of the regions holding the centre, not reaching the patch's edge
    and of an area from ``lo`` to ``hi`` times a die's, the one nearest a die's area gives
    (its area over a die's, its rotated rectangle's long over short side). None if none."""
    size = round(width * side) | 1
    crop = cv2.getRectSubPix(gray, (size, size), (float(cx), float(cy)))
    crop = cv2.GaussianBlur(crop, (3, 3), 0)
    _, mask = cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    c = float(size // 2)
    best: tuple[float, float, float] | None = None  # fit, area ratio, aspect
    for m in (mask, cv2.bitwise_not(mask)):
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        for contour in contours:
            if cv2.pointPolygonTest(contour, (c, c), False) < 0:
                continue
            x, y, w, h = cv2.boundingRect(contour)
            if x == 0 or y == 0 or x + w >= size or y + h >= size:
                continue
            area = cv2.contourArea(contour) / (side * side)
            if not lo <= area <= hi:
                continue
            (_, _), (rw, rh), _ = cv2.minAreaRect(contour)
            fit = abs(math.log(area))
            if best is None or fit < best[0]:
                best = (fit, area, float(max(rw, rh) / max(1.0, min(rw, rh))))
    return None if best is None else (best[1], best[2])


def outline_aspect(gray: NDArray[Any], cx: float, cy: float, side: float) -> float:
    """The aspect of the die's outline at (cx, cy): of the regions of a patch 2.2 sides wide
    (see :func:`_central_outline`), the one nearest a die's area, between 0.5 and 2.2 times
    it, gives its rotated rectangle's long over short side. 1.0 when no region fits."""
    found = _central_outline(gray, cx, cy, side, 2.2, 0.5, 2.2)
    return 1.0 if found is None else found[1]


def face_contrast(image: NDArray[Any], cx: float, cy: float, side: float) -> float:
    """How strongly the marks on a die's face stand out, whatever the light: the spread of
    the colours of the square inside the die (0.7 of its side, inside at any rotation) along
    their direction of largest spread, over their mean brightness. A die's face shows
    marks (pips, a symbol); skin, a blank card or the bare tray barely vary."""
    size = max(3, round(0.7 * side))
    crop = cv2.getRectSubPix(image, (size, size), (float(cx), float(cy))).astype(np.float32)
    pixels = crop.reshape(-1, crop.shape[2] if crop.ndim == 3 else 1)
    centred = pixels - pixels.mean(0)
    spread = float(np.linalg.eigvalsh(centred.T @ centred / len(pixels))[-1])
    return math.sqrt(max(spread, 0.0)) / (float(pixels.mean()) + 8.0)


def outline_size(gray: NDArray[Any], cx: float, cy: float, side: float) -> tuple[float, float]:
    """The die's outline at (cx, cy) measured over a wide range of sizes: its side over
    ``side`` (the square root of its area) and its rotated rectangle's aspect; of the regions
    of a patch 3.2 sides wide (see :func:`_central_outline`), the one nearest a die's area
    between 0.2 and 6 times it. (0, 0) when no region fits (a die cut by the frame, a busy
    background).
    """
    found = _central_outline(gray, cx, cy, side, 3.2, 0.2, 6.0)
    return (0.0, 0.0) if found is None else (math.sqrt(found[0]), found[1])
