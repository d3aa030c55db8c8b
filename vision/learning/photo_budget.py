"""The photos one calibration learns from: the faces they show (:func:`unshown_faces`), and
within calibration's budget of photos and dice (:func:`within_budget`).

Calibration's time and memory grow with the dice it learns from (each one's finder
windows and face copies) and with the photos' area at the face scale (each photo scaled so
that its dice are ``FACE_DIE_PX`` wide, and held at once: a photo of dice 15 px wide is
held 2.7 times enlarged). A labelled set exported from a labelling service often holds
hundreds of photos: 200 photos of 13 to 39 dice (5,310 dice) took a 2-core machine over
half an hour and 3 GB to calibrate and check, more than a Pi has; 20 photos of dice 15 px
wide take 1.7 GB. Past ``MAX_PHOTOS`` photos, ``MAX_DICE`` dice or ``MAX_DIE_AREAS`` (the
photos' area in dice: a photo holds ``1 / die_frac**2`` of them), calibration learns from a
seeded choice of the photos within all three: one showing each face first (rarest face
first), then in a seeded order, the set's own mix of faces, tables and light. The 20 photos
calibration asks an owner for are always learned (``ALWAYS_PHOTOS``), whatever their dice
cost. The budget lies above every set the benchmark's strangers calibrate on, so a set
within it is learned whole, exactly as before.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from vision.errors import ModelError
from vision.learning.dataset import Dataset, LabeledImage
from vision.learning.face_model import enough_faces

ALWAYS_PHOTOS = 20  # the photos calibration asks an owner for: so many are always learned
MAX_PHOTOS = 60  # three times as many
MAX_DICE = 1000  # 20 photos of the 50 dice the strangers' largest trays hold
# the strangers' smallest dice (15 px on 720x1280 photos): 57,227 on their 20 photos
MAX_DIE_AREAS = 60_000


@dataclass(frozen=True)
class Learned:
    """The photos calibration learns from (``dataset``) and how many it was given."""

    dataset: Dataset
    photos_given: int
    dice_given: int

    @property
    def chosen(self) -> bool:
        """True when some photos were left out to keep within the budget."""
        return len(self.dataset.items) < self.photos_given

    def to_json(self) -> dict[str, int]:
        """Plain values for the model's report."""
        return {
            "photos": len(self.dataset.items),
            "of_photos": self.photos_given,
            "dice": self.dataset.dice_count,
            "of_dice": self.dice_given,
            "max_photos": MAX_PHOTOS,
            "max_dice": MAX_DICE,
            "max_die_areas": MAX_DIE_AREAS,
        }


def die_areas(dataset: Dataset) -> list[float]:
    """Each photo's area in dice: ``1 / f**2`` for the median side ``f`` of its labeled dice
    over ``sqrt(width * height)`` (the labels' own, normalised; the set's median for a photo
    without dice)."""
    sides = [_die_side(item) for item in dataset.items]
    known = [s for s in sides if s is not None]
    typical = float(np.median(known)) if known else 1.0
    return [1.0 / (s if s is not None else typical) ** 2 for s in sides]


def _die_side(item: LabeledImage) -> float | None:
    sides = [math.sqrt(die.w * die.h) for die in item.dice if die.w > 0 and die.h > 0]
    return float(np.median(sides)) if sides else None


def within_budget(dataset: Dataset, seed: int = 0) -> Learned:
    """The photos of ``dataset`` one calibration learns from: all of them when they are
    ``ALWAYS_PHOTOS`` or fewer, or keep within ``MAX_PHOTOS``, ``MAX_DICE`` and
    ``MAX_DIE_AREAS``; else a seeded choice: first, for each face the set shows (rarest
    first) the photo showing it with the fewest dice, then photos in a seeded order (the
    owner's own first, ``Dataset.first``), each taken while all three budgets hold or
    fewer than ``ALWAYS_PHOTOS`` are taken."""
    items = dataset.items
    given = dataset.dice_count
    areas = die_areas(dataset)
    within = len(items) <= MAX_PHOTOS and given <= MAX_DICE and sum(areas) <= MAX_DIE_AREAS
    if within or len(items) <= ALWAYS_PHOTOS:
        return Learned(dataset, len(items), given)
    order = _seeded_order(len(items), dataset.first, seed)
    faces_of = [Counter(die.cls for die in item.dice) for item in items]
    everywhere = sum(faces_of, Counter())
    chosen: list[int] = []
    for face in sorted(everywhere, key=lambda c: (everywhere[c], c)):
        if any(faces_of[k][face] for k in chosen):
            continue
        # the photo showing this face with the fewest dice (every face is learned, even
        # where the photos that show one would pass the budget)
        showing = [k for k in order if faces_of[k][face] and k not in chosen]
        chosen.append(min(showing, key=lambda k: len(items[k].dice)))
    dice = sum(len(items[k].dice) for k in chosen)
    area = sum(areas[k] for k in chosen)
    for k in order:
        if len(chosen) >= MAX_PHOTOS:
            break
        fits = dice + len(items[k].dice) <= MAX_DICE and area + areas[k] <= MAX_DIE_AREAS
        if k not in chosen and (fits or len(chosen) < ALWAYS_PHOTOS):
            chosen.append(k)
            dice += len(items[k].dice)
            area += areas[k]
    return Learned(dataset.subset(sorted(chosen)), len(items), given)


def _seeded_order(n: int, first: int, seed: int) -> list[int]:
    """The ``n`` photos in a seeded order: the owner's own ``first`` ones before the rest
    (each part shuffled), so that photos added to them (the table's) fill what the budget
    leaves; with none added, one seeded shuffle of all."""
    rng = np.random.default_rng(seed)
    if not 0 < first < n:
        return [int(i) for i in rng.permutation(n)]
    return [int(i) for i in rng.permutation(first)] + [
        first + int(i) for i in rng.permutation(n - first)
    ]


def faces_shown(dataset: Dataset) -> set[int]:
    """The classes of ``dataset``'s names that some label line gives a die."""
    return {die.cls for item in dataset.items for die in item.dice}


def unshown_faces(dataset: Dataset, dice: str = "die") -> str | None:
    """The warning naming each face of ``dataset``'s names that no die is labeled with (None:
    every face is shown; ``dice``: what the warning calls the dice it looked at).
    Calibration learns the faces shown: a die showing a face never learned is read as the
    nearest face learned or asked about, so the model is still of use (a set's names often
    hold a class that none of its photos shows).

    Raises:
        ModelError: the names hold several faces and the labels show fewer than two (a
            model of one face would read every die as that face, sure); said before any
            work.
    """
    shown = faces_shown(dataset)
    missing = [f"'{name}' (class {c})" for c, name in enumerate(dataset.names) if c not in shown]
    if not missing:
        return None
    where = f"no {dice} labeled {', '.join(missing)} in its {len(dataset.items)} photos"
    if not enough_faces(len(shown), len(dataset.names)):
        raise ModelError(
            f"{dataset.root}: {where}; calibration learns the faces from the owner's photos "
            "and tells two or more apart: photograph and label each face, then calibrate "
            "again"
        )
    return (
        f"{where}: the model cannot read {'them' if len(missing) > 1 else 'it'}, and reads "
        "a die showing one as the nearest face it learned or asks about it; photograph and "
        "label each face, then calibrate again"
    )
