"""The size of a photo's dice, for a model of photos taken by hand: the finder's measure
(:mod:`vision.reading.photo_scale`) checked by how the dice look
(:mod:`vision.reading.look_scale`), both taken from one look at each size."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.reading.describe import light_gains
from vision.reading.detect import detect, finder_look
from vision.reading.first_look import first_cuts, kept_cuts
from vision.reading.look_scale import (
    checked_die_scale,
    further_step,
    look_reach_steps,
    looked_die_scale,
)
from vision.reading.model import FaceModel
from vision.reading.photo_scale import (
    MEASURE_STEPS,
    measure_scales,
    measured_die_scale,
    peaks_evidence,
)
from vision.reading.scaling import SCALE_STEP


@dataclass(frozen=True)
class SizeLooks:
    """A photo looked at over several die sizes: at each, the first look's distance to the
    owner's dice of each die found (what :mod:`vision.reading.look_scale` compares), and
    the finder's evidence (what :mod:`vision.reading.photo_scale` measures by)."""

    distances: list[list[float]]
    evidence: list[float]


def look_at_sizes(image: NDArray[Any], model: FaceModel, scales: Sequence[float]) -> SizeLooks:
    """A BGR ``image`` looked at with its dice ``scales`` times the learned side: the finder
    looks once at each size, for both measures; one size's frames are held at a time (a
    photo of small dice scaled for the smallest size is a hundred megabytes), and the
    dice of all ``scales`` are read in one batch (the owner's samples are read once, not
    once a size).

    Raises:
        ModelError: a shipped network's file is missing or damaged.
    """
    cuts, evidence = [], []
    for scale in scales:
        look = finder_look(image, model.detector, scale)
        evidence.append(peaks_evidence(look.peaks, model.params.threshold))
        result = detect(image, model.detector, scale, look)
        whole = [d for d in result.detections if not d.cut]  # a die half out of view
        result = replace(result, detections=whole)  # reads poorly at any size: no measure
        cuts.append(first_cuts(result, model, light_gains(result.work)))
        del look, result  # before the next size's are made
    distances = []
    if cuts:
        reads = model.classify(np.concatenate([c.described for c in cuts]))
        start = 0
        for c in cuts:
            kept = kept_cuts(c, reads[start : start + len(c.cuts)])[2]
            start += len(c.cuts)
            distances.append([r.distance for r in kept if not r.background])
    return SizeLooks(distances, evidence)


def photo_die_scale(image: NDArray[Any], model: FaceModel) -> float:
    """The side of a BGR ``image``'s dice over the learned side, for a model of photos
    taken by hand: measured by the finder (:mod:`vision.reading.photo_scale`) and checked
    by the faces (:mod:`vision.reading.look_scale`), or chosen by the faces alone where the
    finder cannot measure; 1.0 for a camera fixed over the table. Both are taken from
    one look at each of the measure's sizes (:func:`look_at_sizes`); the look goes on a
    size at a time past their end while its dice read best there
    (:func:`vision.reading.look_scale.further_step`)."""
    params = model.params
    if not params.by_hand:
        return 1.0
    steps = MEASURE_STEPS
    looks = look_at_sizes(image, model, measure_scales())
    distances = looks.distances
    while (step := further_step(distances, steps, look_reach_steps(params))) is not None:
        found = look_at_sizes(image, model, [SCALE_STEP**step]).distances
        if step < steps[0]:
            steps, distances = range(step, steps[-1] + 1), found + distances
        else:
            steps, distances = range(steps[0], step + 1), distances + found
    looked = looked_die_scale(distances, steps)
    if params.photo_scale:
        return checked_die_scale(measured_die_scale(image, model.detector, looks.evidence), looked)
    return looked
