"""Dice the owner left without a label in a calibration photo, found and named.

A die with no label line is taught as *not a die*: the finder learns its window as a
negative, and, as one of the places the finder still takes for a die, its description
becomes one of the face model's background samples, so that the same face on a new photo
is read as nothing and dropped (three labels left out cost a stranger's table 7 of its
265 new dice). Such a place is told from the tray's own look-alikes by the face model:
its four quarter turns read *sure* as a face (as near to one face, and as far from the
others, as the owner's labelled dice are). It must also lie clear of every labelled die:
outside its box grown by ``CLEAR`` of the box's shorter side, and ``AWAY`` of its longer
side from its centre. A place just off a labelled die (its shadow, the side face an
oblique camera sees below a top face the owner boxed) reads as a die, since the face
model looks at a die's surroundings too and a side face is a face; a die that touches a
labelled one has its centre a side away.

Calibration names each one (its photo, where, the face it reads as), keeps it out of the
background samples, and trains the finder again without taking it for a negative
(docs/decisions/vision.md, "A die left without a label").
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.reading.box_fit import Box
from vision.reading.model import FaceModel

CLEAR = 0.25  # how far outside every labelled box a place must lie, in its shorter side
AWAY = 0.8  # how far from every labelled box's centre, in its longer side


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
    labelled: Sequence[Sequence[Box]],
) -> list[tuple[int, UnlabeledDie]]:
    """Which of the finder's false ``places`` (photo, x, y at the face scale), described
    in four quarter turns each (``turns``: 4 x DESCRIPTION_SIZE), are dice without a label:
    (index, die) for each, by ``model.classify`` (a model without background samples),
    clear of every box of ``labelled`` (x, y, w, h at the face scale; one list a photo)."""
    if not places:
        return []
    reads = model.classify(np.stack(turns))
    out = []
    for i, ((k, x, y), read) in enumerate(zip(places, reads, strict=True)):
        if read.unsure or read.background or any(_near(x, y, box) for box in labelled[k]):
            continue
        out.append((i, UnlabeledDie(k, x, y, read.face, read.confidence)))
    return out


def _near(x: float, y: float, box: Box) -> bool:
    """Whether (x, y) lies within ``box`` grown by ``CLEAR`` of its shorter side, or within
    ``AWAY`` of its longer side from its centre."""
    bx, by, w, h = box
    margin = CLEAR * min(w, h)
    if bx - margin < x < bx + w + margin and by - margin < y < by + h + margin:
        return True
    return math.hypot(x - (bx + w / 2), y - (by + h / 2)) < AWAY * max(w, h)


def unlabeled_warning(label: str, photo: str, where: tuple[float, float], face: str,
                      confidence: float) -> str:  # fmt: skip
    """The calibration warning for a die without a label: ``label`` names the photo's label
    file, ``where`` the die's centre in the photo's own pixels."""
    return (
        f"{label}: a die near ({where[0]:.0f}, {where[1]:.0f}) px in {photo} has no label "
        f"line, and reads as {face!r} (confidence {confidence:.2f}); label it and calibrate "
        "again (this calibration learned nothing from it)"
    )
