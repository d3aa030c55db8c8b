"""Photos fitted into another shape with plain edges, and the camera's frames fitted so too.

Labelling services can fit a set's photos into one shape and keep their own, filling the
rest with a plain colour (Roboflow's "Fit (black edges) in 640x640", white or grey
edges too). Calibration learns from the photos as exported, edges and all, and photos
exported the same way read as they did. The table camera sends its own frames, without
edges, and the die's size does not hold there: it is learned as a share of the exported
photo's length (a 16:9 frame fitted in a square has a length 1.33 times the frame's at
the same scale). Calibration finds the edges (:func:`find_edges`: plain bands on two
opposite sides, alike in every photo, the labels inside them), and reading fits a frame
of the shape between them into the exported shape again, as the service did
(:func:`fitted`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading.pixel_aspect import nearer_own_shape

EDGE_LEVELS = 6.0  # an edge's pixels lie within this many levels of its colour (JPEG noise)
MIN_EDGE = 0.02  # a band narrower than this share of the photo's side is no fitted edge
AGREE = 0.02  # the photos' bands agree within this share of the side ...
AGREEING = 0.8  # ... on this share of the photos at least
SAME_EDGES = 12.0  # the two opposite edges' colours lie within this many levels
JPEG_BLOCK = 8  # lines


@dataclass(frozen=True)
class ExportEdges:
    """Where the photo lies in an exported one: ``content`` (left, top, right, bottom, as
    shares of the exported photo's width and height) and the edges' ``colour`` (BGR)."""

    content: tuple[float, float, float, float]
    colour: tuple[float, float, float]

    def to_values(self) -> tuple[float, ...]:
        """Seven plain numbers (:attr:`vision.reading.detect.DetectorParams.export_edges`)."""
        return (*self.content, *self.colour)

    @classmethod
    def from_values(cls, values: Sequence[float]) -> ExportEdges | None:
        """Rebuild from :meth:`to_values`; None for no values (photos without edges).

        Raises:
            ValueError: not seven numbers, or a content box outside the photo.
        """
        if not values:
            return None
        if len(values) != 7:
            raise ValueError(f"export_edges: {len(values)} numbers, expected 7")
        x0, y0, x1, y1, b, g, r = (float(v) for v in values)
        if not (0.0 <= x0 < x1 <= 1.0 and 0.0 <= y0 < y1 <= 1.0):
            raise ValueError(f"export_edges: content {x0, y0, x1, y1} is not inside 0..1")
        return cls((x0, y0, x1, y1), (b, g, r))

    def content_size(self, size: tuple[int, int]) -> tuple[int, int]:
        """The (width, height) of the photo inside an exported one of ``size``."""
        x0, y0, x1, y1 = self.content
        return max(1, round((x1 - x0) * size[0])), max(1, round((y1 - y0) * size[1]))


def _band(lines: NDArray[Any]) -> tuple[int, NDArray[Any]]:
    """How many of ``lines`` (rows or columns from a photo's side inward, n x m x 3) are
    plain in the first one's colour (an edge covers less than half of them), and that
    colour."""
    lines = lines[: max(1, len(lines) // 2)]
    colour = np.median(lines[0], axis=0)
    off = np.abs(lines - colour).max(axis=2)  # n x m
    plain = np.percentile(off, 98, axis=1) <= EDGE_LEVELS
    count = len(plain) if plain.all() else int(np.argmin(plain))
    # JPEG's 8 x 8 blocks ring where the photo meets its edge: a block's lines that are
    # still mostly the edge's colour are the edge (past plain lines only)
    for i in range(count, min(count + JPEG_BLOCK, len(off)) if count else 0):
        if float(np.median(off[i])) > 2 * EDGE_LEVELS:
            break
        count = i + 1
    return count, colour


def _photo_bands(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """A BGR photo's plain bands (left, top, right, bottom, as shares of its width and
    height) and their four colours (4 x 3)."""
    img = image.astype(np.float32)
    h, w = img.shape[:2]
    sides = [img.transpose(1, 0, 2), img, img[:, ::-1].transpose(1, 0, 2), img[::-1]]
    counts, colours = zip(*(_band(lines) for lines in sides), strict=True)
    shares = np.array(counts, np.float64) / np.array([w, h, w, h], np.float64)
    return shares, np.array(colours)


def find_edges(
    images: Sequence[NDArray[Any]], boxes: Sequence[tuple[float, float, float, float]]
) -> ExportEdges | None:
    """The edges a labelling service fitted BGR photos ``images`` (one size, any scale)
    into: plain bands of one colour on two opposite sides (both at least ``MIN_EDGE`` of
    the side), alike on most photos, with every labelled box (``boxes``: left, top, right,
    bottom as shares of the photo) inside; None when the photos show none."""
    if not images or len({im.shape[1] / im.shape[0] for im in images}) != 1:
        return None
    found = [_photo_bands(im) for im in images]
    shares = np.array([s for s, _ in found])
    colours = np.array([c for _, c in found])
    band = np.median(shares, axis=0)
    agree = (np.abs(shares - band) <= AGREE).mean(axis=0) >= AGREEING
    colour = np.median(colours, axis=0)  # 4 x 3: each side's
    for a, b in ((0, 2), (1, 3)):  # left and right, or top and bottom
        opposite = min(band[a], band[b]) >= MIN_EDGE and agree[a] and agree[b]
        if not opposite or np.abs(colour[a] - colour[b]).max() > SAME_EDGES:
            continue
        if a == 0:
            content = (band[0], 0.0, 1.0 - band[2], 1.0)
        else:
            content = (0.0, band[1], 1.0, 1.0 - band[3])
        inside = min(content[2] - content[0], content[3] - content[1]) > MIN_EDGE and all(
            x0 >= content[0] - AGREE
            and y0 >= content[1] - AGREE
            and x1 <= content[2] + AGREE
            and y1 <= content[3] + AGREE
            for x0, y0, x1, y1 in boxes
        )
        if inside:
            mean = (colour[a] + colour[b]) / 2
            return ExportEdges(
                (float(content[0]), float(content[1]), float(content[2]), float(content[3])),
                (float(mean[0]), float(mean[1]), float(mean[2])),
            )
    return None


def is_unfitted(
    size: tuple[int, int], edges: ExportEdges, photo_sizes: Sequence[tuple[int, int]]
) -> bool:
    """Whether a frame of ``size`` is one of the camera's own, not exported: its shape lies
    nearer the photos' inside their edges than the exported ``photo_sizes``'."""
    inside = [edges.content_size(s) for s in photo_sizes]
    return nearer_own_shape(size, photo_sizes, inside)


def fitted(
    frame: NDArray[Any], edges: ExportEdges, export_size: tuple[int, int]
) -> tuple[NDArray[Any], tuple[float, float, float, float]]:
    """A BGR ``frame`` fitted into a photo of ``export_size`` as the service fitted the
    calibration photos (scaled into the content box, the rest the edges' colour), and
    where: (x scale, y scale, x offset, y offset), a frame pixel (x, y) lying at
    (x * x scale + x offset, y * y scale + y offset)."""
    ew, eh = export_size
    x0, y0, x1, y1 = edges.content
    h, w = frame.shape[:2]
    scale = min((x1 - x0) * ew / w, (y1 - y0) * eh / h)
    cw, ch = max(1, round(w * scale)), max(1, round(h * scale))
    ox = round((x0 + x1) / 2 * ew - cw / 2)
    oy = round((y0 + y1) / 2 * eh - ch / 2)
    ox, oy = min(max(ox, 0), ew - cw), min(max(oy, 0), eh - ch)
    out = np.empty((eh, ew, 3), np.uint8)
    out[:] = np.clip(np.round(edges.colour), 0, 255).astype(np.uint8)
    method = cv2.INTER_AREA if scale < 1.0 else cv2.INTER_LINEAR
    out[oy : oy + ch, ox : ox + cw] = cv2.resize(frame, (cw, ch), interpolation=method)
    return out, (cw / w, ch / h, float(ox), float(oy))
