"""The first look at a frame's dice: each die cut at the finder's peak and, where its
corrected box's centre lies apart from the peak, there too; every cut described and
read in one batch, and the cut nearer to the owner's dice kept (an oblique camera's
peak can fall off the top face, and a lone pip cut off its centre looks like a two's).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from numpy.typing import NDArray

from vision.reading.describe import describe_dice
from vision.reading.detect import DetectResult
from vision.reading.features import Rect
from vision.reading.model import FaceModel, FaceRead


@dataclass(frozen=True)
class FirstCuts:
    """A frame's first-look cuts: each die's at the finder's peak (``rects``), then a
    second for each die ``second`` (at its corrected box's centre), all described."""

    rects: list[Rect]
    cuts: list[Rect]
    second: list[int]
    described: NDArray[Any]


def first_cuts(result: DetectResult, model: FaceModel, gains: NDArray[Any] | None) -> FirstCuts:
    """Each die's first-look cuts, described (see :func:`first_look`).

    Raises:
        ModelError: a shipped network's file is missing or damaged.
    """
    rects = [d.rect for d in result.detections]
    second: list[int] = []
    cuts = list(rects)
    for i, det in enumerate(result.detections):
        if det.fit_center is not None:
            second.append(i)
            cuts.append((det.fit_center, rects[i][1], rects[i][2]))
    described = describe_dice(result.work, cuts, gains, model.ink, model.params.face_aspect)
    return FirstCuts(rects, cuts, second, described)


def kept_cuts(
    cuts: FirstCuts, reads: Sequence[FaceRead]
) -> tuple[list[Rect], NDArray[Any], list[FaceRead]]:
    """Of each die's cuts and their ``reads``, the one nearer to the owner's dice: its
    rect, description and read."""
    rects, described, reads = list(cuts.rects), cuts.described.copy(), list(reads)
    n = len(rects)
    for k, i in enumerate(cuts.second):
        if reads[n + k].distance < reads[i].distance:
            rects[i], described[i], reads[i] = cuts.cuts[n + k], described[n + k], reads[n + k]
    return rects, described[:n], reads[:n]


def first_look(
    result: DetectResult, model: FaceModel, gains: NDArray[Any] | None
) -> tuple[list[Rect], NDArray[Any], list[FaceRead]]:
    """The first look: each die's cut (at the finder's peak), description and read. A die
    whose corrected box's centre lies apart from the peak (``Detection.fit_center``) is cut
    there too, in the same batch, and the cut nearer to the owner's dice is kept: its rect,
    description and read (whether it is a die, too: a cut off the top face can look like
    the table).

    Raises:
        ModelError: a shipped network's file is missing or damaged.
    """
    cuts = first_cuts(result, model, gains)
    return kept_cuts(cuts, model.classify(cuts.described))
