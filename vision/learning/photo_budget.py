"""Calibration's budget: how many of the owner's photos and dice one calibration learns from.

Calibration's time and memory grow with the dice it learns from (each one's finder
windows and face copies) and with the photos (each one's maps, held at once). A labelled
set exported from a labelling service often holds hundreds of photos: 200 photos of 13 to
39 dice (5,310 dice) took a 2-core machine over half an hour and 3 GB to calibrate and
check, more than a Pi has. Past ``MAX_PHOTOS`` photos or ``MAX_DICE`` dice, calibration
learns from a seeded choice of the photos within both, one showing each face first
(rarest face first), then in a seeded order: the set's own mix of faces, tables and light.
The budget lies above every set the benchmark's strangers calibrate on (20 photos of up
to 50 dice), so a set within it is learned whole, exactly as before.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np

from vision.learning.dataset import Dataset

MAX_PHOTOS = 60  # three times the 20 photos calibration asks for
MAX_DICE = 1000  # 20 photos of the 50 dice the strangers' largest trays hold


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
        }


def within_budget(dataset: Dataset, seed: int = 0) -> Learned:
    """The photos of ``dataset`` one calibration learns from: all of them when they keep
    within ``MAX_PHOTOS`` and ``MAX_DICE``; else a seeded choice: first, for each face the
    set shows (rarest first) the photo showing it with the fewest dice, then photos in a
    seeded order, each taken while both budgets hold."""
    items = dataset.items
    given = dataset.dice_count
    if len(items) <= MAX_PHOTOS and given <= MAX_DICE:
        return Learned(dataset, len(items), given)
    order = [int(i) for i in np.random.default_rng(seed).permutation(len(items))]
    faces_of = [Counter(die.cls for die in item.dice) for item in items]
    everywhere = sum(faces_of, Counter())
    chosen: list[int] = []
    dice = 0
    for face in sorted(everywhere, key=lambda c: (everywhere[c], c)):
        if any(faces_of[k][face] for k in chosen):
            continue
        # the photo showing this face with the fewest dice (every face is learned, even
        # where the photos that show one would pass the budget)
        showing = [k for k in order if faces_of[k][face] and k not in chosen]
        pick = min(showing, key=lambda k: len(items[k].dice))
        chosen.append(pick)
        dice += len(items[pick].dice)
    for k in order:
        if len(chosen) >= MAX_PHOTOS:
            break
        if k not in chosen and dice + len(items[k].dice) <= MAX_DICE:
            chosen.append(k)
            dice += len(items[k].dice)
    return Learned(dataset.subset(sorted(chosen)), len(items), given)
