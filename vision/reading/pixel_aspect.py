"""Photos stretched to another shape: their pixels made square again before reading.

Labelling services resize a set's photos to one shape without keeping their own
(Roboflow's "Stretch to 640x640", a common default of public YOLO sets): a 16:9 webcam
frame stretched to a square shows every die 1.78 times as tall as wide. The face model
learns the owner's dice as photographed, but its shipped networks and the face patch's
quarter turns take a die's pixels to be square (a die turned a quarter is then squashed
the other way). Calibration measures the stretch on the labels (:func:`pixel_aspect`),
and calibration and reading un-stretch each photo first (:func:`unstretched`); reading
gives its boxes back in the photo's own pixels (:func:`restretched_box`).

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


def unstretched(image: NDArray[Any], aspect: float) -> NDArray[Any]:
    """``image`` with square pixels again (``aspect``: :func:`pixel_aspect`), its stretched
    axis shrunk (no pixel is made up); as it is when ``aspect`` is 1."""
    if aspect == 1.0:
        return image
    h, w = image.shape[:2]
    size = (w, max(1, round(h * aspect))) if aspect < 1.0 else (max(1, round(w / aspect)), h)
    out: NDArray[Any] = cv2.resize(image, size, interpolation=cv2.INTER_AREA)
    return out


def restretched_box(
    box: tuple[float, float, float, float], scale: tuple[float, float]
) -> tuple[float, float, float, float]:
    """A box (x, y, width, height) found in an un-stretched image, in the stretched photo's
    pixels: ``scale`` is the un-stretched image's width and height over the photo's."""
    sx, sy = scale
    return (box[0] / sx, box[1] / sy, box[2] / sx, box[3] / sy)
