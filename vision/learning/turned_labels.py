"""Labels drawn on a phone photo as stored, not as shown, turned as the photo is shown.

A phone held upright stores its photo on its side, with an EXIF orientation tag (5-8:
a quarter turn) that viewers, OpenCV and Ultralytics (``exif_size``) apply: the photo is
read as shown. Labelling tools differ: Roboflow, CVAT and Label Studio draw on the photo
as shown, labelImg on the photo as stored (it ignores the tag: HumanSignal/labelImg issues
198, 342, 376, 395). A YOLO label file holds no size, so which frame its boxes were drawn
in is judged from the boxes themselves: a die's top face is near square in the frame it
was drawn on (an oblique camera squashes it alike in every photo), and read in the other
frame every box is squashed by the photo's shape squared (1.78 for 4:3). The turned
photos' boxes are read both ways, against the aspect of the untagged photos' boxes (1
without any); when the stored frame fits them clearly better, their boxes are turned as
the photo is shown, and calibration says so.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from vision.images import header_size

if TYPE_CHECKING:  # (the dataset's loader calls this module)
    from vision.learning.dataset import LabeledDie, LabeledImage

QUARTER_TURNS = (5, 6, 7, 8)
"""EXIF orientations that show the stored photo turned a quarter (or transposed)."""
CLEARLY = 0.15
"""How much nearer (in |log| of a box's width over its height, median over the dice) the
stored frame must fit: a 4:3 photo's two readings lie 0.58 apart, a 16:9's 1.15."""
ORIENTATION = 0x0112


def quarter_turn(path: Path) -> tuple[int, int, int] | None:
    """(orientation, stored width, stored height) of a photo whose EXIF tag turns it a
    quarter to be shown; None for any other photo (no tag, or one Pillow cannot read)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            tag = image.getexif().get(ORIENTATION)
            width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError):
        return None
    return (tag, width, height) if tag in QUARTER_TURNS else None


def as_shown(die: LabeledDie, orientation: int) -> LabeledDie:
    """A box drawn on the stored photo, in the photo as its ``orientation`` shows it."""
    cx, cy = die.cx, die.cy
    centre = {5: (cy, cx), 6: (1 - cy, cx), 7: (1 - cy, 1 - cx), 8: (cy, 1 - cx)}[orientation]
    return replace(die, cx=centre[0], cy=centre[1], w=die.h, h=die.w)


def _log_aspects(dice: Sequence[LabeledDie], width: int, height: int) -> list[float]:
    return [math.log(d.w * width / (d.h * height)) for d in dice if d.w > 0 and d.h > 0]


def turn_stored_labels(items: Sequence[LabeledImage]) -> tuple[list[LabeledImage], int]:
    """``items`` with the quarter-turned photos' boxes turned as shown when they were
    drawn on the photos as stored; and how many photos were so turned (0: none)."""
    turned = {k: t for k, item in enumerate(items) if (t := quarter_turn(item.image))}
    if not turned:
        return list(items), 0
    reference: list[float] = []
    for k, item in enumerate(items):
        size = header_size(item.image) if k not in turned and item.dice else None
        if size is not None:
            reference += _log_aspects(item.dice, *size)
    centre = statistics.median(reference) if len(reference) >= 5 else 0.0
    shown, stored = [], []
    for k, (_, width, height) in turned.items():
        shown += [abs(a - centre) for a in _log_aspects(items[k].dice, height, width)]
        stored += [abs(a - centre) for a in _log_aspects(items[k].dice, width, height)]
    if not shown or statistics.median(stored) + CLEARLY >= statistics.median(shown):
        return list(items), 0
    out = list(items)
    for k, (orientation, _, _) in turned.items():
        out[k] = replace(out[k], dice=tuple(as_shown(d, orientation) for d in out[k].dice))
    return out, len(turned)


def turned_warning(photos: int) -> str:
    """What calibration says of ``photos`` whose labels were turned (0: nothing)."""
    if not photos:
        return ""
    return (
        f"{photos} photos carry an EXIF orientation tag (a phone held upright) and their "
        "labels fit them as stored, not as shown (labelImg draws so): their boxes were "
        "turned as the photos are shown"
    )
