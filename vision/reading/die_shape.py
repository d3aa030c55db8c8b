"""A die's look around a point of a frame: its rotation (:func:`orientation`), its
outline's aspect (:func:`outline_aspect`, above a limit: a cocked die; a hard shadow
joined to the die left out) and the contrast of the marks on its face
(:func:`face_contrast`, under a floor: no die)."""

from __future__ import annotations

import functools
import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading.features import squashed_angle, stretch

_SQUARE3 = np.ones((3, 3), np.uint8)
# A hard shadow is the table darkened, its hue kept; a die's side seen leaning is the die's
# own hue. An outline longer than this is measured again without the table's shadow.
SQUARE_ENOUGH = 1.15
HUE_DARK_OFFSET = 8.0  # added to each channel: a dark pixel's hue is mostly noise
TABLE_HUE_RING = 2  # pixels of the patch's border taken for the table
DIE_HUE_SHARE = 25  # percentile of the die's centre's distances from the table's hue
MIN_HUE_DISTANCE = 0.02  # a die nearer the table's hue than this (chromaticity) ...
HUE_NOISE_TIMES = 3.0  # ... or than this many times the border's spread: not told apart


# A die's rotation is read from its outline, not its marks: round pips and a numeral's
# strokes pull the four-fold gradient every way, and a marbled or textured body adds
# edges at random. The outline lies from half the side (a side's middle) to 0.71 (a
# corner) from the centre; gradients are weighted on a ring there, after a blur at about
# the width of a pip's edge (docs/decisions/vision.md, "A die's turn read on its outline").
RING_RADIUS = 0.58  # the ring's radius, over the die's side
RING_WIDTH = 0.08  # its Gaussian spread, over the side
EDGE_BLUR = 0.08  # the blur's sigma, over the side
_RING_REACH = 0.95  # the crop's half side, over the die's side: the ring and its blur fit


def orientation(
    gray: NDArray[Any], cx: float, cy: float, side: float, aspect: float = 1.0
) -> float:
    """A die's rotation in degrees (0..90) from the edges around (cx, cy): the angle of the
    strongest four-fold gradient direction on a ring where a die of ``side`` pixels (the
    square root of its top face's area) has its outline (``RING_RADIUS``, ``RING_WIDTH``),
    the crop blurred by ``EDGE_BLUR``. The nearer ``side`` is to the die's own, the surer
    the angle: pass the side the die has at its place. ``aspect``: how much wider than
    tall an oblique camera sees a top face (:func:`vision.reading.features.unsquashed`);
    the turn is read on the view stretched back to square, where the outline is a square
    on the ring, and returned as the foreshortened view shows it
    (:func:`vision.reading.features.unsquashed_angle` gives the turn back)."""
    side = max(float(side), 4.0)
    if aspect == 1.0:
        return _ring_angle(gray, cx, cy, side)
    sx, sy = stretch(aspect)
    long = side * math.sqrt(max(aspect, 1.0 / aspect))  # the square's side, stretched back
    r = math.ceil(_RING_REACH * long) + 2
    crop = cv2.getRectSubPix(gray, (2 * r + 1, 2 * r + 1), (float(cx), float(cy)))
    crop = cv2.resize(crop, None, fx=sx, fy=sy, interpolation=cv2.INTER_LINEAR)
    turn = _ring_angle(crop, (r + 0.5) * sx - 0.5, (r + 0.5) * sy - 0.5, long)
    return squashed_angle(turn, aspect) % 90.0


def _ring_angle(gray: NDArray[Any], cx: float, cy: float, side: float) -> float:
    """:func:`orientation` on a view seen straight on."""
    r = math.ceil(_RING_REACH * side)
    x0, y0 = round(cx) - r, round(cy) - r
    h, w = gray.shape
    if x0 < 0 or y0 < 0 or x0 + 2 * r + 1 > w or y0 + 2 * r + 1 > h:
        crop = cv2.getRectSubPix(gray, (2 * r + 1, 2 * r + 1), (float(cx), float(cy)))
    else:
        crop = gray[y0 : y0 + 2 * r + 1, x0 : x0 + 2 * r + 1]
    crop = cv2.GaussianBlur(crop.astype(np.float32), (0, 0), EDGE_BLUR * side)
    gx = cv2.Sobel(crop, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(crop, cv2.CV_32F, 0, 1, ksize=3)
    m2 = (gx * gx + gy * gy) * _ring_weight(r, round(4.0 * side) / 4.0)
    th4 = 4.0 * np.arctan2(gy, gx)
    angle = math.atan2(float((m2 * np.sin(th4)).sum()), float((m2 * np.cos(th4)).sum())) / 4.0
    return math.degrees(angle) % 90.0


@functools.lru_cache(maxsize=64)
def _ring_weight(r: int, side: float) -> NDArray[Any]:
    """:func:`orientation`'s weight over its (2r+1)-pixel crop: a Gaussian ring where a
    die of ``side`` has its outline (a few sizes a frame, quarter pixels apart: made once,
    read-only)."""
    yy, xx = np.mgrid[-r : r + 1, -r : r + 1]
    off = (np.sqrt(xx * xx + yy * yy) / side - RING_RADIUS) / RING_WIDTH
    out: NDArray[Any] = np.exp(-0.5 * off * off).astype(np.float32)
    out.flags.writeable = False
    return out


def _central_outline(
    gray: NDArray[Any],
    cx: float,
    cy: float,
    side: float,
    width: float,
    lo: float,
    hi: float,
    keep: NDArray[Any] | None = None,
) -> tuple[float, float] | None:
    """The die-like region at (cx, cy): Otsu's split of a patch ``width`` sides wide, either
    polarity, holes filled; of the regions holding the centre, not reaching the patch's edge
    and of an area from ``lo`` to ``hi`` times a die's, the one nearest a die's area gives
    (its area over a die's, its rotated rectangle's long over short side). None if none.
    ``keep`` (the patch's size, 0 or 1) leaves its zeros out of both polarities."""
    size = round(width * side) | 1
    crop = cv2.getRectSubPix(gray, (size, size), (float(cx), float(cy)))
    crop = cv2.GaussianBlur(crop, (3, 3), 0)
    _, mask = cv2.threshold(crop, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    c = float(size // 2)
    best: tuple[float, float, float] | None = None  # fit, area ratio, aspect
    for m in (mask, cv2.bitwise_not(mask)):
        if keep is not None:
            m = cv2.morphologyEx(m * keep, cv2.MORPH_CLOSE, _SQUARE3)
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


def _not_shadow(image: NDArray[Any], cx: float, cy: float, side: float, width: float
                ) -> NDArray[Any] | None:  # fmt: skip
    """Which pixels of the patch ``width`` sides wide at (cx, cy) are not the table's
    shadow (1), a shadow being darker than the table and of its hue, when the die's hue
    stands apart from the table's; else None. The table is the patch's border: its median
    chromaticity (each channel over their sum) and brightness. The die's hue is a low
    percentile of the distances from the table's over the middle half of the die, so that
    a die whose top face shares the table's hue (a white die on a grey tray) is never told
    apart by a tinted side."""
    if image.ndim != 3:
        return None
    size = round(width * side) | 1
    crop = cv2.getRectSubPix(image, (size, size), (float(cx), float(cy)))
    lifted = cv2.GaussianBlur(crop, (5, 5), 0).astype(np.float32) + HUE_DARK_OFFSET
    bright = lifted.sum(2)
    hue = lifted / bright[..., None]  # each channel's share: a shadow keeps it
    b = TABLE_HUE_RING
    border = np.ones((size, size), bool)
    border[b:-b, b:-b] = False
    table_hue = np.median(hue[border], 0)
    distance = np.sqrt(((hue - table_hue) ** 2).sum(2))
    spread = 1.4826 * float(np.median(distance[border]))
    c, r = size // 2, max(1, round(0.25 * side))
    die = float(np.percentile(distance[c - r : c + r + 1, c - r : c + r + 1], DIE_HUE_SHARE))
    if die < max(MIN_HUE_DISTANCE, HUE_NOISE_TIMES * spread):
        return None
    shadow = (distance <= 0.5 * die) & (bright < float(np.median(bright[border])))
    # a shadow's hue is noisy (it is dark): specks inside it read off the table's hue go
    out: NDArray[Any] = cv2.morphologyEx((~shadow).astype(np.uint8), cv2.MORPH_OPEN, _SQUARE3)
    return out


def outline_aspect(
    image: NDArray[Any], gray: NDArray[Any], cx: float, cy: float, side: float
) -> float:
    """The aspect of the die's outline at (cx, cy): of the regions of ``gray``'s patch 2.2
    sides wide (see :func:`_central_outline`), the one nearest a die's area, between 0.5
    and 2.2 times it, gives its rotated rectangle's long over short side. 1.0 when no
    region fits. An outline longer than ``SQUARE_ENOUGH`` is measured again without the
    table's shadow (:func:`_not_shadow` on the BGR ``image``: a hard shadow joined to a
    dark die) and the squarer of the two counts."""
    found = _central_outline(gray, cx, cy, side, 2.2, 0.5, 2.2)
    if found is None:
        return 1.0
    aspect = found[1]
    if aspect > SQUARE_ENOUGH:
        keep = _not_shadow(image, cx, cy, side, 2.2)
        if keep is not None:
            again = _central_outline(gray, cx, cy, side, 2.2, 0.5, 2.2, keep)
            if again is not None:
                aspect = min(aspect, again[1])
    return aspect


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
