"""Invented tables for the strangers' benchmark: what the dice lie on.

:func:`table_texture` draws one surface of a :class:`TableKind` (a felt dice
tray with its rim, a wooden table, carpet, a printed poster, paper) as a BGR
image, and a mask of where dice may lie (not on a tray's rim). Each stranger
draws its table once; its photos crop it at other offsets (the same table,
the camera held a little differently).
"""

from __future__ import annotations

import math
from enum import Enum
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

BGR = tuple[int, int, int]


class TableKind(Enum):
    """The surface under the dice."""

    FELT = "felt"
    WOOD = "wood"
    CARPET = "carpet"
    POSTER = "poster"
    PAPER = "paper"


def _smooth(rng: np.random.Generator, w: int, h: int, cells: int) -> NDArray[Any]:
    """Smooth noise (about zero mean, unit spread), ``cells`` blobs across."""
    gh = max(2, round(cells * h / max(w, h)))
    gw = max(2, round(cells * w / max(w, h)))
    grid = rng.standard_normal((gh, gw)).astype(np.float32)
    out: NDArray[Any] = cv2.resize(grid, (w, h), interpolation=cv2.INTER_CUBIC)
    return out


def _mix(a: BGR, b: BGR, t: NDArray[Any]) -> NDArray[Any]:
    ca, cb = np.array(a, np.float32), np.array(b, np.float32)
    out: NDArray[Any] = ca + np.clip(t, 0, 1)[..., None] * (cb - ca)
    return out


def random_colour(rng: np.random.Generator, lo: int, hi: int, sat: int = 220) -> BGR:
    """A colour of any hue with a value in ``lo..hi`` (HSV), as BGR."""
    hsv = np.array([[[rng.integers(0, 180), rng.integers(0, sat + 1), rng.integers(lo, hi)]]],
                   np.uint8)  # fmt: skip
    b, g, r = (int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    return (b, g, r)


def table_texture(
    kind: TableKind, width: int, height: int, rng: np.random.Generator
) -> tuple[NDArray[Any], NDArray[Any]]:
    """A ``width`` x ``height`` surface of ``kind`` (BGR uint8) and where dice may lie
    (uint8 mask, 255 = floor)."""
    w, h = width, height
    floor = np.full((h, w), 255, np.uint8)
    if kind is TableKind.FELT:
        base = random_colour(rng, 40, 200, 200)
        fibre = rng.standard_normal((h, w)).astype(np.float32)
        fibre = cv2.GaussianBlur(fibre, (0, 0), 0.8) * 6.0
        shade = 1.0 + 0.06 * _smooth(rng, w, h, 4)
        img = np.array(base, np.float32) * shade[..., None] + fibre[..., None]
        rim = random_colour(rng, 20, 220, 160)
        band = round(float(rng.uniform(0.05, 0.1)) * min(w, h))
        for side in rng.permutation(4)[: int(rng.integers(1, 4))]:
            sl = [(slice(0, band), slice(None)), (slice(h - band, h), slice(None)),
                  (slice(None), slice(0, band)), (slice(None), slice(w - band, w))][int(side)]  # fmt: skip
            img[sl] = np.array(rim, np.float32)
            floor[sl] = 0
    elif kind is TableKind.WOOD:
        light = random_colour(rng, 120, 230, 150)
        dark = tuple(int(v * float(rng.uniform(0.45, 0.75))) for v in light)
        a = float(rng.uniform(0, math.pi))
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        v = (yy * math.cos(a) - xx * math.sin(a)) / max(w, h)
        u = (yy * math.sin(a) + xx * math.cos(a)) / max(w, h)
        warp = _smooth(rng, w, h, 3) * 2.5
        grain = 0.5 + 0.5 * np.sin(float(rng.uniform(40, 120)) * v + warp + 3 * np.sin(5 * u))
        fine = cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 1.0)
        img = _mix(light, (dark[0], dark[1], dark[2]), grain**2 * 0.8 + 0.2 * fine)
        plank = float(rng.uniform(0.15, 0.4))
        seams = np.abs(np.mod(v / plank, 1.0) - 0.5) > 0.495
        img[seams] *= 0.55
    elif kind is TableKind.CARPET:
        colours = [random_colour(rng, 40, 220, 200) for _ in range(3)]
        pick = rng.integers(0, 3, (h, w))
        img = np.zeros((h, w, 3), np.float32)
        for k, c in enumerate(colours):
            img[pick == k] = c
        blotch = _smooth(rng, w, h, 8)
        img = cv2.GaussianBlur(img, (0, 0), 0.7) * (1.0 + 0.12 * blotch[..., None])
        loops = rng.standard_normal((h // 2 + 1, w // 2 + 1)).astype(np.float32)
        img += cv2.resize(loops, (w, h), interpolation=cv2.INTER_NEAREST)[..., None] * 10.0
    elif kind is TableKind.POSTER:
        img = _mix(random_colour(rng, 60, 250), random_colour(rng, 60, 250),
                   np.linspace(0, 1, w, dtype=np.float32)[None, :].repeat(h, 0))  # fmt: skip
        scale = max(w, h)
        for _ in range(int(rng.integers(15, 40))):
            colour = random_colour(rng, 10, 256)
            x, y = int(rng.integers(0, w)), int(rng.integers(0, h))
            size = int(rng.uniform(0.03, 0.25) * scale)
            shape = int(rng.integers(0, 4))
            if shape == 0:
                cv2.rectangle(img, (x, y), (x + size, y + size // 2), colour, -1)
            elif shape == 1:
                cv2.circle(img, (x, y), size // 2, colour, -1, cv2.LINE_AA)
            elif shape == 2:
                cv2.line(img, (x, y), (x + size, y + int(rng.integers(-size, size))), colour,
                         max(1, size // 12), cv2.LINE_AA)  # fmt: skip
            else:
                letters = "".join(chr(int(c)) for c in rng.integers(65, 91, 6))
                cv2.putText(img, letters, (x, y), cv2.FONT_HERSHEY_DUPLEX, size / 40.0, colour,
                            max(1, size // 20), cv2.LINE_AA)  # fmt: skip
    else:  # paper: nearly white, a little grain, maybe ruled lines
        img = _mix(random_colour(rng, 215, 256, 25), (200, 200, 200),
                   0.15 + 0.1 * _smooth(rng, w, h, 3))  # fmt: skip
        img += (
            cv2.GaussianBlur(rng.standard_normal((h, w)).astype(np.float32), (0, 0), 0.6)[..., None]
            * 3.0
        )
        if rng.random() < 0.5:
            gap = float(rng.uniform(0.03, 0.07)) * max(w, h)
            line = random_colour(rng, 150, 240, 120)
            for k in range(int(h / gap) + 1):
                cv2.line(img, (0, round(k * gap)), (w, round(k * gap)), line, 1, cv2.LINE_AA)
    return np.clip(img, 0, 255).astype(np.uint8), floor
