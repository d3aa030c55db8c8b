"""Labelled dice cut by the photo's edge: labelling tools keep a die half out of the frame
and clip its box to the frame, so the box is not the die's size and its face is seen in
part. Calibration learns neither the die's size nor its face from such a die (nor judges
its label); the finder learns it as a die, since the reader finds such dice too, boxes
them inside the frame and asks about them (:func:`vision.reading.detect.whole_in_frame`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from vision.learning.dataset import LabeledDie, LabeledImage

SHORT = 0.85  # a touching box shorter across that edge than this share of a whole one: cut


def is_cut(die: LabeledDie, size: tuple[float, float], aspect: float) -> bool:
    """Whether the labelled ``die`` of a photo of ``size`` (width, height in pixels) is
    cut by the frame's edge: its box touches an edge and is shorter across it than
    ``SHORT`` of a whole box (``aspect``: a whole box's width over its height, pixels)."""
    side, top = die.touches()
    if not (side or top):
        return False
    own = (die.w * size[0]) / max(die.h * size[1], 1e-9)
    narrow = side and own < SHORT * aspect
    flat = top and own > aspect / SHORT
    return narrow or flat or (side and top)


def without_cut_dice(
    items: Sequence[LabeledImage], sizes: Sequence[tuple[float, float]]
) -> tuple[list[LabeledImage], list[tuple[LabeledDie, ...]]]:
    """``items`` with only their dice whole in the frame, and each photo's cut dice
    (:func:`is_cut`); ``sizes``: each photo's width and height in pixels. A whole box's
    shape is the median of the boxes touching no edge (square when every box touches)."""
    whole = [
        (d.w * w) / max(d.h * h, 1e-9)
        for item, (w, h) in zip(items, sizes, strict=True)
        for d in item.dice
        if not any(d.touches())
    ]
    aspect = float(np.median(whole)) if whole else 1.0
    kept: list[LabeledImage] = []
    cut: list[tuple[LabeledDie, ...]] = []
    for item, size in zip(items, sizes, strict=True):
        flags = [is_cut(d, size, aspect) for d in item.dice]
        kept.append(
            replace(item, dice=tuple(d for d, f in zip(item.dice, flags, strict=True) if not f))
        )
        cut.append(tuple(d for d, f in zip(item.dice, flags, strict=True) if f))
    return kept, cut
