"""One synthetic die: our own drawings of the game's faces, the die's placement
(:class:`PlacedDie`) and pasting it, with its shadow, into a frame.

The six face drawings are OUR OWN invented drawings of the game's symbols
(kick: a boot; punch: a fist; sphere: a ball with a star; strength: a
dumbbell; star: a five-pointed star; teleport: two broken rings around a dot).
They are not the printed dice; calibration (``toptable dice calibrate``) on
photos of the real dice replaces them. The symbol list comes from
:mod:`controller.core.symbols`, the one source of truth.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from controller.core.symbols import Symbol

FACE_PX = 128
INK = (40, 30, 30)
IVORY = (222, 236, 242)


def _star_points(cx: float, cy: float, r_out: float, r_in: float) -> NDArray[Any]:
    pts = []
    for i in range(10):
        r = r_out if i % 2 == 0 else r_in
        a = -math.pi / 2 + i * math.pi / 5
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts, dtype=np.int32)


@functools.lru_cache(maxsize=256)
def _face_cached(symbol: Symbol, px: int) -> NDArray[Any]:
    face = _draw_face(symbol, px)
    face.flags.writeable = False
    return face


def draw_face(symbol: Symbol, px: int = FACE_PX) -> NDArray[Any]:
    """Our own drawing of ``symbol`` on an ivory die face, ``px`` x ``px`` BGR (a copy)."""
    return _face_cached(symbol, px).copy()


def _draw_face(symbol: Symbol, px: int) -> NDArray[Any]:
    s = FACE_PX
    face: NDArray[Any] = np.full((s, s, 3), IVORY, dtype=np.uint8)
    aa = cv2.LINE_AA
    if symbol is Symbol.KICK:
        boot = np.array([(46, 16), (74, 16), (74, 74), (108, 82), (108, 106), (46, 106)])
        cv2.fillPoly(face, [boot.astype(np.int32)], INK, aa)
    elif symbol is Symbol.PUNCH:
        cv2.rectangle(face, (30, 38), (98, 100), INK, -1, aa)
        for x in (47, 64, 81):
            cv2.line(face, (x, 38), (x, 64), IVORY, 4, aa)
        cv2.line(face, (30, 74), (72, 74), IVORY, 4, aa)
    elif symbol is Symbol.SPHERE:
        cv2.circle(face, (64, 64), 40, INK, -1, aa)
        cv2.fillPoly(face, [_star_points(52, 52, 15, 6)], IVORY, aa)
    elif symbol is Symbol.STRENGTH:
        cv2.rectangle(face, (34, 57), (94, 71), INK, -1, aa)
        cv2.rectangle(face, (16, 32), (38, 96), INK, -1, aa)
        cv2.rectangle(face, (90, 32), (112, 96), INK, -1, aa)
    elif symbol is Symbol.STAR:
        cv2.fillPoly(face, [_star_points(64, 68, 50, 20)], INK, aa)
    elif symbol is Symbol.TELEPORT:
        cv2.ellipse(face, (64, 64), (44, 44), 0, 40, 330, INK, 9, aa)
        cv2.ellipse(face, (64, 64), (24, 24), 0, 220, 510, INK, 8, aa)
        cv2.circle(face, (64, 64), 7, INK, -1, aa)
    if px != s:
        face = cv2.resize(face, (px, px), interpolation=cv2.INTER_AREA)
    return face


@dataclass(frozen=True)
class PlacedDie:
    """A die in a scene: its face, centre, rotation (degrees) and whether it is cocked."""

    symbol: Symbol
    center: tuple[float, float]
    angle: float
    side: float
    cocked: bool = False
    tilt: float = 0.0  # cocked dice: how far the die leans (degrees)
    second: Symbol = Symbol.STAR  # cocked dice: the other face seen
    body: tuple[int, int, int] | None = None  # the die's colour (None: ivory)
    marks: tuple[int, int, int] | None = None  # its symbols' colour (None: dark ink)

    def box(self) -> tuple[float, float, float, float]:
        """The axis-aligned box (x, y, w, h) around the die's outline."""
        pts = outline(self)
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        return (float(x0), float(y0), float(x1 - x0), float(y1 - y0))


def outline(die: PlacedDie) -> NDArray[Any]:
    w = die.side
    if die.cocked:
        t = math.radians(die.tilt)
        w = die.side * (math.cos(t) + math.sin(t))
    h = die.side
    a = math.radians(die.angle)
    c, s = math.cos(a), math.sin(a)
    corners = np.array([(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)])
    rot = np.array([[c, -s], [s, c]])
    pts: NDArray[Any] = corners @ rot.T + np.array(die.center)
    return pts


def _recolour(
    face: NDArray[Any], body: tuple[int, int, int], marks: tuple[int, int, int]
) -> NDArray[Any]:
    """An ivory-and-ink face drawing in other colours (the same shapes, anti-aliased)."""
    t = (face[..., 1].astype(np.float32) - INK[1]) / float(IVORY[1] - INK[1])
    t = np.clip(t, 0.0, 1.0)[..., None]
    out = np.array(marks, np.float32) + t * (
        np.array(body, np.float32) - np.array(marks, np.float32)
    )
    return np.clip(out, 0, 255).astype(np.uint8)


def _die_image(die: PlacedDie) -> NDArray[Any]:
    side = max(8, round(die.side))
    top = draw_face(die.symbol, side)
    if die.body is not None and die.marks is not None:
        top = _recolour(top, die.body, die.marks)
    if not die.cocked:
        return top
    t = math.radians(die.tilt)
    w1 = max(2, round(side * math.cos(t)))
    w2 = max(2, round(side * math.sin(t)))
    a = cv2.resize(top, (w1, side), interpolation=cv2.INTER_AREA)
    second = draw_face(die.second, side)
    if die.body is not None and die.marks is not None:
        second = _recolour(second, die.body, die.marks)
    b = cv2.resize(second, (w2, side), interpolation=cv2.INTER_AREA)
    b = (b.astype(np.float32) * 0.72).astype(np.uint8)
    return np.hstack([a, b])


def paste_die(canvas: NDArray[Any], die: PlacedDie, shadow: float, offset: tuple[int, int]) -> None:
    """Draw ``die`` (and its shadow) onto ``canvas`` in place."""
    img = _die_image(die)
    h, w = img.shape[:2]
    cx, cy = die.center
    r = int(math.hypot(w, h) / 2 + 12)
    x0, y0 = int(cx) - r, int(cy) - r
    size = 2 * r
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -die.angle, 1.0)
    m[0, 2] += cx - x0 - w / 2
    m[1, 2] += cy - y0 - h / 2
    mask_src = np.zeros((h, w), np.uint8)
    radius = max(2, round(min(w, h) * 0.1))
    cv2.rectangle(mask_src, (radius, 0), (w - 1 - radius, h - 1), 255, -1)
    cv2.rectangle(mask_src, (0, radius), (w - 1, h - 1 - radius), 255, -1)
    for px, py in (
        (radius, radius),
        (w - 1 - radius, radius),
        (radius, h - 1 - radius),
        (w - 1 - radius, h - 1 - radius),
    ):
        cv2.circle(mask_src, (px, py), radius, (255,), -1, cv2.LINE_AA)
    patch = cv2.warpAffine(img, m, (size, size), flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(mask_src, m, (size, size), flags=cv2.INTER_LINEAR)
    ch, cw = canvas.shape[:2]
    ox0, oy0 = max(0, x0), max(0, y0)
    ox1, oy1 = min(cw, x0 + size), min(ch, y0 + size)
    if ox1 <= ox0 or oy1 <= oy0:
        return
    sl = (slice(oy0, oy1), slice(ox0, ox1))
    psl = (slice(oy0 - y0, oy1 - y0), slice(ox0 - x0, ox1 - x0))
    region: NDArray[Any] = canvas[sl].astype(np.float32)
    if shadow > 0:
        sm: NDArray[Any] = np.roll(mask, offset, axis=(0, 1)).astype(np.float32)
        sm = cv2.GaussianBlur(sm, (0, 0), max(1.0, die.side * 0.06)) / 255.0
        region *= (1.0 - shadow * sm[psl])[..., None]
    alpha = (mask[psl].astype(np.float32) / 255.0)[..., None]
    region = region * (1 - alpha) + patch[psl].astype(np.float32) * alpha
    canvas[sl] = np.clip(region, 0, 255).astype(np.uint8)
