"""Labels drawn on a phone photo as stored, not as shown, turned as the photo is shown.

A phone held upright stores its photo on its side, with an EXIF orientation tag (5-8:
a quarter turn) that viewers, OpenCV and Ultralytics (``exif_size``) apply: the photo is
read as shown. Labelling tools differ: Roboflow, CVAT and Label Studio draw on the photo
as shown, labelImg on the photo as stored (it ignores the tag: HumanSignal/labelImg issues
198, 342, 376, 395). A YOLO label file holds no size, so which frame its boxes were drawn
in is judged from the boxes themselves: a die's top face is near square in the frame it
was drawn on (an oblique camera squashes it alike in every photo), and read in the other
frame every box is squashed by the photo's shape squared (1.78 for 4:3). The turned
photos' boxes are read both ways; when the photo shown squashes them past any camera's
tilt and the stored frame fits them clearly better, their boxes are turned as the photo
is shown, and calibration says so. A square photo, or one whose dice are squashed along
its shape, cannot be told: its labels stay as they are.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # (the dataset's loader calls this module)
    from vision.learning.dataset import LabeledDie, LabeledImage

QUARTER_TURNS = (5, 6, 7, 8)
"""EXIF orientations that show the stored photo turned a quarter (or transposed)."""
CLEARLY = 0.15
"""How much nearer square (in |log| of a box's width over its height, median over the
dice) the stored frame's reading must be: a 4:3 photo's two readings lie 0.58 apart, a
16:9's 1.15."""
SQUASHED = 0.4
"""|log| of a box's width over its height past which no camera's tilt squashes a die's top
face (1.49: a camera 45° off straight down squashes it 1.41)."""
ORIENTATION = 0x0112


def quarter_turn(path: Path) -> tuple[int, int, int] | None:
    """(orientation, stored width, stored height) of a photo whose EXIF tag turns it a
    quarter to be shown; None for any other photo (no tag, or one Pillow cannot read)."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            tag = image.getexif().get(ORIENTATION)
            width, height = image.size
    except (UnidentifiedImageError, OSError, ValueError, Image.DecompressionBombError):
        return None  # (a photo too large is named by the dataset's checks)
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
    drawn on the photos as stored; and how many photos were so turned (0: none).

    Judged on the turned photos alone (other photos may come from another camera, whose
    dice look otherwise): read as drawn on the photo shown, their dice must look squashed
    past anything a camera's tilt does (:data:`SQUASHED`), and read as drawn on the
    photo stored, clearly nearer square (:data:`CLEARLY`); else they stay as they are."""
    turned = {k: t for k, item in enumerate(items) if (t := quarter_turn(item.image))}
    shown, stored = [], []
    for k, (_, width, height) in turned.items():
        shown += [abs(a) for a in _log_aspects(items[k].dice, height, width)]
        stored += [abs(a) for a in _log_aspects(items[k].dice, width, height)]
    if not shown:
        return list(items), 0
    as_drawn, other = statistics.median(shown), statistics.median(stored)
    if as_drawn < SQUASHED or other + CLEARLY >= as_drawn:
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
