"""A frame made like the calibration photos as a labelling service exported them.

A service may have stretched the owner's photos to another shape
(:mod:`vision.reading.pixel_aspect`) or fitted them into one with plain edges
(:mod:`vision.reading.export_edges`). A frame exported the same way is read as the
photos were learned: un-stretched, or as it is with its edges. The camera's own frame
(its shape the photos' before the export) is read as it is, or fitted with edges as the
photos were (:func:`as_calibrated`). Boxes are given back in the frame's own pixels
(:func:`frame_box`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from numpy.typing import NDArray

from vision.reading.detect import DetectorParams
from vision.reading.export_edges import ExportEdges, fitted, is_unfitted
from vision.reading.pixel_aspect import frame_stretch, native_size, unstretched

# where a frame's pixels lie in the image read: (x scale, y scale, x offset, y offset)
Placement = tuple[float, float, float, float]
AS_IT_IS: Placement = (1.0, 1.0, 0.0, 0.0)
Box = tuple[float, float, float, float]


def as_calibrated(
    frame: NDArray[Any], params: DetectorParams, photo_sizes: Sequence[tuple[int, int]]
) -> tuple[NDArray[Any], Placement]:
    """A BGR ``frame`` as the calibration photos (of ``photo_sizes``, as exported) were
    learned, and where its pixels lie in it.

    Raises:
        ValueError: the params' ``export_edges`` are damaged (see
            :meth:`~vision.reading.export_edges.ExportEdges.from_values`).
    """
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
