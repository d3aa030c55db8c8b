"""The finder's maps: light-independent channels of a working image, their cell averages,
and the learned finder's score for every window (:mod:`vision.reading.detect`'s steps
1 to 3: what each channel is, and why, is told there)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    from vision.reading.detect import Detector

BINS = 8
CELL = 6
STRIDE = 3
GRID = 6
STEP = CELL // STRIDE  # cells are STEP map samples apart
SPAN = (GRID - 1) * STEP  # map samples from the first to the last cell of a window
PAD = (GRID * CELL) // 2 - CELL // 2  # pixels from a window's first cell to its centre
CHANNELS = BINS + 7
WINDOW_SIZE = CHANNELS * GRID * GRID


def balance(image: NDArray[Any]) -> NDArray[Any]:
    """The frame with each colour channel scaled to a mean of 110 (float32, 0..255)."""
    f = image.astype(np.float32)
    pixels = f.reshape(-1, 3)
    # numpy's mean over the rows, summed as numpy sums them (row after row, in float32) by
    # OpenCV's reduction, which is many times faster over a frame's three columns
    sums = cv2.reduce(pixels, 0, cv2.REDUCE_SUM, dtype=cv2.CV_32F)[0]
    means = sums / np.float32(len(pixels)) + 1.0
    f *= (110.0 / means).astype(np.float32)
    np.clip(f, 0, 255, out=f)
    return f


def channel_maps(balanced: NDArray[Any], die_px: float) -> Iterator[NDArray[Any]]:
    """The per-pixel channels (CHANNELS of them, h x w float32) of a balanced working
    image, one at a time (a frame's channels all at once are its reading's peak memory)."""
    lab = cv2.cvtColor(balanced * (1.0 / 255.0), cv2.COLOR_BGR2Lab)
    del balanced  # (the caller gave it up: see feature_maps)
    lum = lab[..., 0] * (1.0 / 100.0)
    a = lab[..., 1] * (1.0 / 60.0)
    b = lab[..., 2] * (1.0 / 60.0)
    del lab
    gx = cv2.Sobel(lum, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(lum, cv2.CV_32F, 0, 1, ksize=3)
    mag = cv2.magnitude(gx, gy)
    k = max(3, int(2 * die_px) | 1)
    energy = np.sqrt(np.maximum(cv2.boxFilter(mag * mag, -1, (k, k)), 0.0)) + 0.05
    mag_n = mag / energy
    del mag, energy
    ang = cv2.phase(gx, gy)  # 0..2pi
    del gx, gy
    # the angle modulo pi: over [pi, 2pi) that is ang - pi, which float32 subtracts
    # exactly (as numpy's mod computes it, several times faster)
    half = np.float32(math.pi)
    b_idx = (np.where(ang >= half, ang - half, ang) * (BINS / math.pi)).astype(np.int32)
    del ang
    np.minimum(b_idx, BINS - 1, out=b_idx)
    for i in range(BINS):
        yield np.multiply(mag_n, b_idx == i, dtype=np.float32)  # mag_n in the bin, else 0
    del b_idx, mag_n
    k3 = max(3, int(3 * die_px) | 1)
    rel = lum - cv2.boxFilter(lum, -1, (k3, k3))
    yield ((lum - 0.5) * 2.0).astype(np.float32, copy=False)
    yield a.astype(np.float32, copy=False)
    yield b.astype(np.float32, copy=False)
    yield (rel * 4.0).astype(np.float32, copy=False)
    yield (np.abs(rel) * 4.0).astype(np.float32, copy=False)
    rel_a = a - cv2.boxFilter(a, -1, (k3, k3))
    rel_b = b - cv2.boxFilter(b, -1, (k3, k3))
    yield (np.sqrt(rel_a * rel_a + rel_b * rel_b) * 2.0).astype(np.float32, copy=False)
    yield np.hypot(a, b).astype(np.float32, copy=False)


def cell_maps(channels: Iterable[NDArray[Any]], h: int, w: int) -> NDArray[Any]:
    """Cell averages of each of ``channels`` (h x w each), sampled every STRIDE pixels
    (CHANNELS x hm x wm).

    Sample (v, u) is the cell centred on pixel (STRIDE*v, STRIDE*u) of the padded image.
    """
    out = np.empty((CHANNELS, -(-h // STRIDE), -(-w // STRIDE)), np.float32)
    for i, channel in enumerate(channels):
        out[i] = cv2.boxFilter(channel, -1, (CELL, CELL))[::STRIDE, ::STRIDE]
    return out


def feature_maps(balanced: NDArray[Any], die_px: float) -> NDArray[Any]:
    """Cell maps of a balanced working image padded by ``PAD`` pixels on each side.

    The window whose first cell is map sample (v, u) is centred on working pixel
    (STRIDE*v, STRIDE*u) of the unpadded image.
    """
    padded = cv2.copyMakeBorder(balanced, PAD, PAD, PAD, PAD, cv2.BORDER_REFLECT)
    h, w = padded.shape[:2]
    channels = channel_maps(padded, die_px)
    del padded  # freed as soon as the channels no longer need it
    return cell_maps(channels, h, w)


def window(cells: NDArray[Any], v: int, u: int) -> NDArray[Any]:
    """The feature vector (WINDOW_SIZE) of the window whose first cell is map sample (v, u)."""
    sub = cells[:, v : v + SPAN + 1 : STEP, u : u + SPAN + 1 : STEP]
    return sub.reshape(-1)


def score_map(cells: NDArray[Any], detector: Detector) -> NDArray[Any]:
    """The detector's score for every window, the best of its finders':
    (hm - SPAN) x (wm - SPAN), float32."""
    c, hm, wm = cells.shape
    oh, ow = hm - SPAN, wm - SPAN
    if oh <= 0 or ow <= 0:
        return np.full((max(oh, 0), max(ow, 0)), -np.inf, np.float32)
    proj = (detector._wt @ cells.reshape(c, -1)).reshape(-1, GRID * GRID, hm, wm)
    best: NDArray[Any] | None = None
    for k, bias in enumerate(detector.biases):
        out = np.full((oh, ow), bias, np.float32)
        for i in range(GRID):
            for j in range(GRID):
                out += proj[k, i * GRID + j, i * STEP : i * STEP + oh, j * STEP : j * STEP + ow]
        best = out if best is None else np.maximum(best, out, out=best)
    assert best is not None
    return best
