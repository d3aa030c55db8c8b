"""Calibration's finder step: the finder and its threshold (:mod:`vision.learning.detect_train`),
the colour model, the box correction (:mod:`vision.learning.box_train`), and the places the
finder still takes for dice on photos it did not learn from, each described in four
quarter turns: the face model's background candidates.

It runs once, and once more without taking the dice the owner left unlabelled for
negatives when calibration finds some (:mod:`vision.learning.unlabeled`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.learning.box_train import BoxFitTraining, train_box_fit
from vision.learning.detect_train import Photo, train_finder
from vision.learning.scene_colour import colour_model
from vision.reading.describe import cut_die, join, quarter_turned
from vision.reading.detect import FACE_DIE_PX, Detector, DetectorParams, face_side_at
from vision.reading.die_shape import orientation

MAX_BACKGROUND = 600  # background samples kept for the face classifier


@dataclass(frozen=True)
class FinderStep:
    """The finder (its threshold, colour model and box correction set), the labelled dice
    its held-out finders read, and its background candidates: where (photo, face-scale
    centre) and their descriptions (4 x DESCRIPTION_SIZE each)."""

    detector: Detector
    n_dice: int
    box_fitting: BoxFitTraining
    places: list[tuple[int, float, float]]
    turns: list[NDArray[Any]]

    @property
    def params(self) -> DetectorParams:
        """The finder's settings, its threshold among them."""
        return self.detector.params


def finder_step(
    photos: Sequence[Photo],
    params: DetectorParams,
    light: Sequence[NDArray[Any] | None],
    ink: NDArray[Any] | None,
    seed: int,
    tick: Callable[[str], None],
    ignore: Sequence[tuple[int, float, float]] = (),
) -> FinderStep:
    """Train the finder on ``photos`` (``params``: the settings learned so far) and gather
    its background candidates, cut in each photo's ``light`` along ``ink``; ``ignore``:
    places (photo, face-scale centre) of dice without a label, taken neither for dice nor
    for negatives (the random draws are seeded by ``seed``, as in a first run).
    """
    work_px = params.work_die_px
    ratio = work_px / FACE_DIE_PX
    rng = np.random.default_rng(seed)
    finder = train_finder(photos, params, work_px, ratio, rng, seed, tick, ignore)
    params = replace(params, threshold=finder.cut)
    colour, novel_logp = colour_model(photos, ratio)
    params = replace(params, novel_logp=novel_logp)
    detector = Detector(params, finder.detector.weights, finder.detector.bias, colour)
    box_fitting = train_box_fit(photos, detector, work_px, np.random.default_rng(seed + 3))
    detector = replace(detector, box_fit=box_fitting.box_fit)
    tick("learning where the boxes go")
    places: list[tuple[int, float, float]] = []
    turns: list[NDArray[Any]] = []
    scores = finder.fp_scores
    order = np.argsort(-np.array(scores)) if scores else np.array([], int)
    for idx in order:
        if scores[idx] * finder.scale < finder.cut - 2.0 or len(turns) >= MAX_BACKGROUND:
            break
        k, fx, fy = finder.fp_where[idx]
        gray = cv2.cvtColor(photos[k].face, cv2.COLOR_BGR2GRAY)
        at_place = face_side_at(params, fx, fy, gray.shape[1], gray.shape[0])
        angle = orientation(gray, fx, fy, at_place, params.face_aspect)
        rect = ((fx, fy), (FACE_DIE_PX, FACE_DIE_PX), angle)
        turned = quarter_turned(*cut_die(photos[k].face, rect, light[k], ink, params.face_aspect))
        turns.append(join(*turned))
        places.append((k, fx, fy))
    return FinderStep(detector, finder.n_dice, box_fitting, places, turns)
