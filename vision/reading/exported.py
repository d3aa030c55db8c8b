"""A frame made like the calibration photos as a labelling service exported them.

A service may have stretched the owner's photos to another shape
(:mod:`vision.reading.pixel_aspect`) or fitted them into one with plain edges
(:mod:`vision.reading.export_edges`). A frame exported the same way is read as the
photos were learned: un-stretched, or as it is with its edges. The camera's own frame
(its shape the photos' before the export) is read as it is, or fitted with edges as the
photos were (:func:`as_calibrated`). Boxes are given back in the frame's own pixels
(:func:`frame_box`).

A service may also have made every photo grey (Roboflow's "Grayscale" step). The model
then learned the dice, the table and the finder's colours without colour, and a colour
frame is nothing it knows: on catan-webcam such a model found 333 "dice" on 15 colour
frames and none of the 30 real ones. Calibration tells grey photos (:func:`is_grey`) and
reading makes a colour frame grey first.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading.detect import DetectorParams
from vision.reading.export_edges import ExportEdges, fitted, is_unfitted
from vision.reading.pixel_aspect import frame_stretch, native_size, unstretched

# a photo whose colour channels differ by no more than this many levels (on 99 % of its
# pixels: a grey JPEG's colour decoding leaves a level or two) is grey
GREY_LEVELS = 4
GREY_SAMPLE = 4  # every this many rows and columns are looked at


def is_grey(image: NDArray[Any]) -> bool:
    """Whether a BGR (or one-channel) ``image`` shows no colour."""
    if image.ndim == 2 or image.shape[2] == 1:
        return True
    pixels = image[::GREY_SAMPLE, ::GREY_SAMPLE].astype(np.int16)
    spread = pixels.max(axis=2) - pixels.min(axis=2)
    return bool(np.percentile(spread, 99) <= GREY_LEVELS)


def made_grey(image: NDArray[Any]) -> NDArray[Any]:
    """A BGR ``image`` without colour, kept three-channel (as a labelling service's grey
    step leaves a photo)."""
    out: NDArray[Any] = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return out


# where a frame's pixels lie in the image read: (x scale, y scale, x offset, y offset)
Placement = tuple[float, float, float, float]
AS_IT_IS: Placement = (1.0, 1.0, 0.0, 0.0)
Box = tuple[float, float, float, float]


def as_calibrated(
    frame: NDArray[Any], params: DetectorParams, photo_sizes: Sequence[tuple[int, int]]
) -> tuple[NDArray[Any], Placement]:
    """A BGR ``frame`` as the calibration photos (of ``photo_sizes``, as exported) were
    learned, and where its pixels lie in it (the params' ``export_edges`` were checked
    when they were made: :class:`~vision.reading.detect.DetectorParams`)."""
    if params.grey and frame.ndim == 3 and not is_grey(frame):
        frame = made_grey(frame)
    h, w = frame.shape[:2]
    edges = ExportEdges.from_values(params.export_edges)
    if edges is not None:
        if not is_unfitted((w, h), edges, photo_sizes):
            return frame, AS_IT_IS
        image, placement = fitted(frame, edges, photo_sizes[0])
        return image, placement
    stretch = frame_stretch((w, h), params.pixel_aspect, photo_sizes)
    image = unstretched(frame, stretch)  # (as it is: square pixels, or the camera's own)
    if image is frame:
        return frame, AS_IT_IS
    return image, (image.shape[1] / w, image.shape[0] / h, 0.0, 0.0)


def frame_box(box: Box, placement: Placement) -> Box:
    """A box (x, y, width, height) found in the image read, in the frame's own pixels."""
    sx, sy, ox, oy = placement
    return ((box[0] - ox) / sx, (box[1] - oy) / sy, box[2] / sx, box[3] / sy)


def camera_sizes(
    params: DetectorParams, photo_sizes: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """The sizes the calibration photos (of ``photo_sizes``, as exported) had before a
    labelling service stretched or fitted them: the shapes of the camera's own frames
    (``photo_sizes`` themselves when the photos were not changed)."""
    edges = ExportEdges.from_values(params.export_edges)
    if edges is not None:
        return [edges.content_size(s) for s in photo_sizes]
    return [native_size(s, params.pixel_aspect) for s in photo_sizes]
