"""Invented dice sets for the strangers' benchmark: what a die's faces look like.

A :class:`DiceSet` is one set of dice: its marks (pips, numerals or symbols,
printed or engraved, of any colour), its body (any colour, marbled with a
second colour, translucent) and whether one face is a maker's logo.
:func:`face_texture` draws one face of one die as a BGRA square: the alpha is
the body's opacity (a translucent die lets the table through, its marks do
not), with rounded corners. Marbling differs from die to die (each die's
``seed``). All drawings here are our own.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from enum import Enum
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

BGR = tuple[int, int, int]
NUMBERS = ("1", "2", "3", "4", "5", "6")

# pip centres of each face on a die of side 1, about its centre
_D = 0.27
PIPS: tuple[tuple[tuple[float, float], ...], ...] = (
    ((0.0, 0.0),),
    ((-_D, -_D), (_D, _D)),
    ((-_D, -_D), (0.0, 0.0), (_D, _D)),
    ((-_D, -_D), (_D, -_D), (-_D, _D), (_D, _D)),
    ((-_D, -_D), (_D, -_D), (0.0, 0.0), (-_D, _D), (_D, _D)),
    ((-_D, -_D), (_D, -_D), (-_D, 0.0), (_D, 0.0), (-_D, _D), (_D, _D)),
)
FONTS = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_SCRIPT_SIMPLEX,
)


class MarkKind(Enum):
    """What shows which face is up."""

    PIPS = "pips"
    NUMERALS = "numerals"
    SYMBOLS = "symbols"


def _star(c: float, r: float, points: int, inner: float) -> NDArray[Any]:
    pts = []
    for i in range(2 * points):
        rr = r if i % 2 == 0 else r * inner
        a = -math.pi / 2 + i * math.pi / points
        pts.append((c + rr * math.cos(a), c + rr * math.sin(a)))
    return np.array(pts, np.int32)


def _poly(c: float, r: float, pts: list[tuple[float, float]]) -> NDArray[Any]:
    return np.array([(c + r * x, c + r * y) for x, y in pts], np.int32)


WHITE = (255,)
BLACK = (0,)


def _fill(canvas: NDArray[Any], c: float, r: float, pts: list[tuple[float, float]]) -> None:
    cv2.fillPoly(canvas, [_poly(c, r, pts)], WHITE, cv2.LINE_AA)


def _disc(canvas: NDArray[Any], x: float, y: float, r: float, colour: tuple[int] = WHITE) -> None:
    cv2.circle(canvas, (round(x), round(y)), round(r), colour, -1, cv2.LINE_AA)


def _draw_symbol(canvas: NDArray[Any], name: str, px: int) -> None:
    """Draw the symbol ``name`` in white (255) on a ``px`` x ``px`` single-channel canvas.

    Raises:
        ValueError: ``name`` is not one of :data:`SYMBOLS`.
    """
    c, r = px / 2, 0.3 * px
    if name == "circle":
        _disc(canvas, c, c, r)
    elif name == "ring":
        cv2.circle(canvas, (round(c), round(c)), round(r), WHITE, max(1, round(0.07 * px)),
                   cv2.LINE_AA)  # fmt: skip
    elif name == "triangle":
        _fill(canvas, c, r, [(0, -1), (0.95, 0.75), (-0.95, 0.75)])
    elif name == "square":
        _fill(canvas, c, r, [(-0.8, -0.8), (0.8, -0.8), (0.8, 0.8), (-0.8, 0.8)])
    elif name == "diamond":
        _fill(canvas, c, r, [(0, -1.05), (0.7, 0), (0, 1.05), (-0.7, 0)])
    elif name == "star":
        cv2.fillPoly(canvas, [_star(c, r * 1.1, 5, 0.42)], WHITE, cv2.LINE_AA)
    elif name == "hexagon":
        cv2.fillPoly(canvas, [_star(c, r, 3, 1.0)], WHITE, cv2.LINE_AA)
    elif name == "cross":
        _fill(canvas, c, r, [(-0.3, -1), (0.3, -1), (0.3, -0.3), (1, -0.3), (1, 0.3), (0.3, 0.3),
                             (0.3, 1), (-0.3, 1), (-0.3, 0.3), (-1, 0.3), (-1, -0.3),
                             (-0.3, -0.3)])  # fmt: skip
    elif name == "crescent":
        _disc(canvas, c, c, r)
        _disc(canvas, c + 0.45 * r, c - 0.2 * r, 0.8 * r, BLACK)
    elif name == "bolt":
        _fill(canvas, c, r, [(0.2, -1), (-0.6, 0.15), (-0.05, 0.15), (-0.3, 1), (0.6, -0.2),
                             (0.05, -0.2)])  # fmt: skip
    elif name == "bars":
        for k in (-1, 0, 1):
            y = k * 0.6
            _fill(canvas, c, r, [(-1, y - 0.15), (1, y - 0.15), (1, y + 0.15), (-1, y + 0.15)])
    elif name == "arrow":
        _fill(canvas, c, r, [(0, -1), (0.85, 0), (0.3, 0), (0.3, 1), (-0.3, 1), (-0.3, 0),
                             (-0.85, 0)])  # fmt: skip
    elif name == "drop":
        _disc(canvas, c, c + 0.3 * r, 0.65 * r)
        _fill(canvas, c, r, [(0, -1), (0.6, 0.15), (-0.6, 0.15)])
    elif name == "heart":
        _disc(canvas, c - 0.45 * r, c - 0.3 * r, 0.5 * r)
        _disc(canvas, c + 0.45 * r, c - 0.3 * r, 0.5 * r)
        _fill(canvas, c, r, [(-0.93, -0.1), (0.93, -0.1), (0, 1)])
    else:
        raise ValueError(f"no symbol {name!r}: expected one of {', '.join(SYMBOLS)}")


SYMBOLS = (
    "circle", "ring", "triangle", "square", "diamond", "star", "cross", "crescent", "bolt",
    "bars", "hexagon", "arrow", "drop", "heart",
)  # fmt: skip


@dataclass(frozen=True)
class DiceSet:
    """One set of dice: marks and body. ``names`` are its six faces, in class order."""

    kind: MarkKind
    body: BGR
    marks: BGR
    body2: BGR | None = None  # marbled: the second colour swirled through the body
    opacity: float = 1.0  # the body's alpha (under 1: translucent); marks are opaque
    engraved: bool = False  # marks cut into the face: a dark inner edge and a light one
    logo: bool = False  # the first face is a maker's logo instead of its mark
    logo_text: str = "TT"
    mark_size: float = 1.0  # pip radius / numeral height / symbol size, relative
    font: int = cv2.FONT_HERSHEY_SIMPLEX
    symbols: tuple[str, ...] = ()  # SYMBOLS: the six shapes drawn

    @property
    def names(self) -> tuple[str, ...]:
        """The faces' names (class order): 1..6, or the six symbols' names."""
        return self.symbols if self.kind is MarkKind.SYMBOLS else NUMBERS


@functools.lru_cache(maxsize=512)
def _marks_mask(dice: DiceSet, face: int, px: int) -> NDArray[Any]:
    """The marks of ``face`` as a float mask (0..1), ``px`` x ``px`` (cached: read only)."""
    up = 2 * px  # drawn at twice the size, then area-reduced: clean anti-aliasing
    canvas: NDArray[Any] = np.zeros((up, up), np.uint8)
    aa = cv2.LINE_AA
    if dice.logo and face == 0:
        c = up // 2
        cv2.circle(canvas, (c, c), round(0.36 * up), WHITE, max(2, up // 28), aa)
        scale = up / 90.0
        (tw, th), _ = cv2.getTextSize(dice.logo_text, cv2.FONT_HERSHEY_DUPLEX, scale, 2)
        org = (c - tw // 2, c + th // 2)
        cv2.putText(canvas, dice.logo_text, org, cv2.FONT_HERSHEY_DUPLEX, scale, WHITE,
                    max(1, up // 40), aa)  # fmt: skip
        cv2.line(canvas, (c - up // 5, c + up // 6), (c + up // 5, c + up // 6), WHITE,
                 max(1, up // 50), aa)  # fmt: skip
    elif dice.kind is MarkKind.PIPS:
        radius = 0.085 * dice.mark_size * up
        for x, y in PIPS[face]:
            centre = (round(up / 2 + x * up), round(up / 2 + y * up))
            cv2.circle(canvas, centre, round(radius), WHITE, -1, aa)
    elif dice.kind is MarkKind.NUMERALS:
        text = NUMBERS[face]
        thick = max(1, round(up * 0.045 * dice.mark_size))
        scale = 1.0
        (tw, th), _ = cv2.getTextSize(text, dice.font, scale, thick)
        scale = 0.5 * dice.mark_size * up / max(th, 1)
        (tw, th), _ = cv2.getTextSize(text, dice.font, scale, thick)
        org = (up // 2 - tw // 2, up // 2 + th // 2)
        cv2.putText(canvas, text, org, dice.font, scale, WHITE, thick, aa)
        if text == "6":  # the 6 is underlined, as on most numbered dice
            y = up // 2 + th // 2 + round(0.08 * up)
            cv2.line(canvas, (up // 2 - tw // 2, y), (up // 2 + tw // 2, y), WHITE, thick, aa)
    else:
        _draw_symbol(canvas, dice.symbols[face], up)
        if dice.mark_size != 1.0:
            m = cv2.getRotationMatrix2D((up / 2, up / 2), 0.0, dice.mark_size)
            canvas = cv2.warpAffine(canvas, m, (up, up))
    small = cv2.resize(canvas, (px, px), interpolation=cv2.INTER_AREA)
    out: NDArray[Any] = small.astype(np.float32) / 255.0
    out.flags.writeable = False
    return out


def _body(dice: DiceSet, px: int, rng: np.random.Generator) -> NDArray[Any]:
    """The body's colour field (px x px x 3 float32): plain, or marbled by swirled noise."""
    body = np.array(dice.body, np.float32)
    if dice.body2 is None:
        return np.broadcast_to(body, (px, px, 3)).copy()
    noise = cv2.resize(rng.standard_normal((5, 5)).astype(np.float32), (px, px),
                       interpolation=cv2.INTER_CUBIC)  # fmt: skip
    yy, xx = np.mgrid[0:px, 0:px].astype(np.float32) / px
    a = float(rng.uniform(0, math.pi))
    freq = float(rng.uniform(4.0, 11.0))
    t = 0.5 + 0.5 * np.sin(freq * (xx * math.cos(a) + yy * math.sin(a)) + 3.0 * noise)
    t = t**3  # veins: mostly the first colour, streaks of the second
    second = np.array(dice.body2, np.float32)
    out: NDArray[Any] = body + t[..., None] * (second - body)
    return out


@functools.lru_cache(maxsize=64)
def _rounded(px: int, radius: float) -> NDArray[Any]:
    mask = np.zeros((px, px), np.uint8)
    r = max(1, round(radius * px))
    cv2.rectangle(mask, (r, 0), (px - 1 - r, px - 1), WHITE, -1)
    cv2.rectangle(mask, (0, r), (px - 1, px - 1 - r), WHITE, -1)
    for x, y in ((r, r), (px - 1 - r, r), (r, px - 1 - r), (px - 1 - r, px - 1 - r)):
        cv2.circle(mask, (x, y), r, WHITE, -1, cv2.LINE_AA)
    out: NDArray[Any] = mask.astype(np.float32) / 255.0
    out.flags.writeable = False
    return out


def face_texture(dice: DiceSet, face: int, px: int, seed: int = 0) -> NDArray[Any]:
    """One face (index into ``dice.names``) of one die, ``px`` x ``px`` BGRA uint8, the
    die's top edge up; ``seed`` draws that die's marbling."""
    rng = np.random.default_rng(seed)
    marks = _marks_mask(dice, face, px)
    colour = _body(dice, px, rng)
    ink = np.array(dice.marks, np.float32)
    out = colour * (1.0 - marks[..., None]) + ink * marks[..., None]
    if dice.engraved:  # light catches the lower edge of a cut mark, the upper edge is in shade
        d = max(1, round(0.025 * px))
        below = np.roll(marks, d, axis=0)
        above = np.roll(marks, -d, axis=0)
        out = out - 70.0 * np.clip(marks - below, 0, 1)[..., None]
        out = out + 60.0 * np.clip(marks - above, 0, 1)[..., None]
    alpha = np.maximum(dice.opacity, marks) * _rounded(px, 0.12)
    bgra = np.dstack([np.clip(out, 0, 255), alpha * 255.0])
    return bgra.astype(np.uint8)
