"""Photos stretched to another shape: their pixels made square again before reading.

Labelling services resize a set's photos to one shape without keeping their own
(Roboflow's "Stretch to 640x640", a common default of public YOLO sets): a 16:9 webcam
frame stretched to a square shows every die 1.78 times as tall as wide. The face model
learns the owner's dice as photographed, but its shipped networks and the face patch's
quarter turns take a die's pixels to be square (a die turned a quarter is then squashed
the other way). Calibration measures the stretch on the labels (:func:`pixel_aspect`),
and calibration and reading un-stretch each photo first (:func:`unstretched`); reading
gives its boxes back in the photo's own pixels (:mod:`vision.reading.exported`). A frame in the
shape the photos had before they were stretched (the table camera's own, not exported
through the service) is read as it is (:func:`frame_stretch`).

Measured on catan-webcam stretched to a square (docs/decisions/vision.md): faces right on
its next day's photos 100 → 83 % read as stretched.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

# How far from square the owner's boxes may lie and still be the camera's: a camera tilted
# up to 40° (the steepest the reader is built for) foreshortens a top face to cos 40° =
# 0.77 of its side (boxes 1.31 times as wide as tall; the 60 saved strangers' steepest, at
# 38°, label theirs 1.36), and a near side boxed with the top face makes boxes about 0.71
# times as wide as tall. Past it, the photos were stretched (a 16:9 frame made square:
# 1.78); a milder stretch (4:3 made square: 1.33) is not told from a camera's tilt.
CAMERA_LIMIT = 1.5
MIN_BOXES = 6  # labeled dice needed to measure it


def pixel_aspect(box_aspects: Sequence[float]) -> float:
    """How much wider than tall a square shows in the photos: the median of the labeled
    boxes' width over height (in pixels) when it lies past ``CAMERA_LIMIT`` either way,
    else 1 (square pixels; also with fewer than ``MIN_BOXES`` boxes)."""
    if len(box_aspects) < MIN_BOXES:
        return 1.0
    median = float(np.median(box_aspects))
    return median if abs(math.log(median)) > math.log(CAMERA_LIMIT) else 1.0


def native_size(size: tuple[int, int], aspect: float) -> tuple[int, int]:
    """The (width, height) a photo of ``size`` stretched by ``aspect`` has with square
    pixels again: its stretched axis shrunk (no pixel is made up)."""
    w, h = size
    if aspect == 1.0:
        return size
    return (w, max(1, round(h * aspect))) if aspect < 1.0 else (max(1, round(w / aspect)), h)


def unstretched(image: NDArray[Any], aspect: float) -> NDArray[Any]:
    """``image`` with square pixels again (``aspect``: :func:`pixel_aspect`), at its
    :func:`native_size`; as it is when ``aspect`` is 1."""
    if aspect == 1.0:
        return image
    h, w = image.shape[:2]
    out: NDArray[Any] = cv2.resize(image, native_size((w, h), aspect), interpolation=cv2.INTER_AREA)
    return out


def nearer_own_shape(
    size: tuple[int, int],
    exported: Sequence[tuple[int, int]],
    own: Sequence[tuple[int, int]],
) -> bool:
    """Whether the shape (width over height) of a frame of ``size`` lies nearer one of the
    ``own`` sizes (the calibration photos' before a labelling service changed them: the
    camera's own frames) than any of the ``exported`` ones; False when neither is known."""
    if not exported or not own:
        return False
    ratio = math.log(size[0] / max(1, size[1]))

    def distance(sizes: Sequence[tuple[int, int]]) -> float:
        return min(abs(ratio - math.log(w / max(1, h))) for w, h in sizes)

    return distance(own) < distance(exported)


def frame_stretch(
    size: tuple[int, int], aspect: float, photo_sizes: Sequence[tuple[int, int]]
) -> float:
    """The stretch to take out of a frame of ``size`` for a model whose calibration photos,
    of ``photo_sizes`` (as stretched), were stretched by ``aspect``: ``aspect`` for a frame
    whose shape lies nearer theirs, 1 for one nearer the shape they had before (the
    camera's own frame, not exported through the labelling service); ``aspect`` when
    the photos' sizes are not known."""
    if aspect == 1.0:
        return aspect
    own = [native_size(s, aspect) for s in photo_sizes]
    return 1.0 if nearer_own_shape(size, photo_sizes, own) else aspect
