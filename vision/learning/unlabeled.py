"""Dice the owner left without a label in a calibration photo, found and named.

A die with no label line is taught as *not a die*: the finder learns its window as a
negative, and, as one of the places the finder still takes for a die, its description
becomes one of the face model's background samples, so that the same face on a new photo
is read as nothing and dropped (three labels left out cost a stranger's table 7 of its
265 new dice). Such a place is told from the tray's own look-alikes by the face model:
its four quarter turns read *sure* as a face (as near to one face, and as far from the
others, as the owner's labelled dice are), and it lies at least ``CLEAR`` of a die's side
from every labelled die (a peak half a die beside a labelled one reads as it). On the
strangers' tables no look-alike read sure; every die left unlabelled did (one run each,
docs/decisions/vision.md, "A die left without a label").

Calibration names each one (its photo, where, the face it reads as) and keeps it out of
the background samples; the finder has still learned it as a negative, so labelling it
and calibrating again is the cure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.reading.detect import FACE_DIE_PX
from vision.reading.model import FaceModel

CLEAR = 0.8  # the least distance from a labelled die's centre, in die sides


@dataclass(frozen=True)
class UnlabeledDie:
    """A place of calibration photo ``photo`` that reads sure as face ``face``: its centre
    at the face scale, and the read's confidence."""

    photo: int
    x: float
    y: float
    face: int
    confidence: float


def unlabeled_dice(
    model: FaceModel,
    places: Sequence[tuple[int, float, float]],
    turns: Sequence[NDArray[Any]],
    labelled: Sequence[Sequence[tuple[float, float]]],
) -> list[tuple[int, UnlabeledDie]]:
    """Which of the finder's false ``places`` (photo, x, y at the face scale), described
    in four quarter turns each (``turns``: 4 x DESCRIPTION_SIZE), are dice without a label:
    (index, die) for each, by :func:`model.classify` of a model without background samples
    and away from every centre of ``labelled`` (one list a photo)."""
    if not places:
        return []
    reads = model.classify(np.stack(turns))
    out = []
    for i, ((k, x, y), read) in enumerate(zip(places, reads, strict=True)):
        if read.unsure or read.background:
            continue
        if any(math.hypot(x - cx, y - cy) < CLEAR * FACE_DIE_PX for cx, cy in labelled[k]):
            continue
        out.append((i, UnlabeledDie(k, x, y, read.face, read.confidence)))
    return out


def unlabeled_warning(label: str, photo: str, where: tuple[float, float], face: str,
                      confidence: float) -> str:  # fmt: skip
    """The calibration warning for a die without a label: ``label`` names the photo's label
    file, ``where`` the die's centre in the photo's own pixels."""
    return (
        f"{label}: a die near ({where[0]:.0f}, {where[1]:.0f}) px in {photo} has no label "
        f"line, and reads as {face!r} (confidence {confidence:.2f}); label it and calibrate "
        "again (unlabelled, it is learned as not a die)"
    )
