"""Learning where the owner draws a die's box (:mod:`vision.reading.box_fit`) from the
calibration photos, and keeping it only where it helps.

Each labeled die is looked at as the finder might find it: where the trained
finder peaks next to it, and from points up to a quarter of a side around its
labeled centre. At each look the finder's placed box
(:func:`vision.reading.detect.placed_box`) is compared with the labeled box,
and a ridge regression learns the shift and stretch from the window's features
there. Two halves of the photos, each corrected by a fit learned on the other,
measure it where the finder peaks: on a tidy table the placed boxes are
already the owner's, a fit learned from few dice only adds noise, and the
model keeps none.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.learning.detect_train import Photo
from vision.reading.box_fit import Box, BoxFit, corrected, fit, iou, target
from vision.reading.detect import FACE_DIE_PX, PEAKS_APART, Detector, box_features, placed_box
from vision.reading.finder_maps import STRIDE, feature_maps, score_map
from vision.reading.peaks import peaks

LOOKS = 12  # looks at each labeled die: where the finder peaks, then jittered
JITTER = 0.25  # sides: how far from the labeled centre a jittered look may be
MAX_ROWS = 12000  # past this many looks, many dice, each die is looked at less
PEAK_NEAR = 0.5  # sides: a finder's peak this near a labeled centre looks at that die


@dataclass
class _Look:
    photo: int
    features: NDArray[Any]
    placed: Box
    side: float
    label: Box
    at_peak: bool  # where the finder peaked (not a jittered look)


@dataclass(frozen=True)
class BoxFitTraining:
    """The correction kept (None: the placed boxes did as well on held-out photos) and
    the mean IoU with the labels of held-out dice where the finder peaked, placed and
    corrected."""

    box_fit: BoxFit | None
    iou_placed: float
    iou_corrected: float


def train_box_fit(
    photos: Sequence[Photo], detector: Detector, work_px: float, rng: np.random.Generator
) -> BoxFitTraining:
    """The correction of ``detector``'s boxes toward the labeled ones, and what it did on
    held-out photos. ``detector`` must hold the measured size, perspective, box shape and
    threshold."""
    looks = _looks(photos, detector, work_px, rng)
    held: list[tuple[float, float]] = []
    halves = [range(0, len(photos), 2), range(1, len(photos), 2)]
    for half, other in ((halves[0], halves[1]), (halves[1], halves[0])):
        learned = [k for k in looks if k.photo in half]
        if len(learned) < 2:
            continue
        half_fit = _fit(learned)
        for look in looks:
            if look.photo in other and look.at_peak:
                better = corrected(look.placed, look.side, half_fit.correction(look.features))
                held.append((iou(look.placed, look.label), iou(better, look.label)))
    if not held:
        return BoxFitTraining(None, 0.0, 0.0)
    placed_iou, corrected_iou = (float(v) for v in np.mean(held, axis=0))
    kept = _fit(looks) if corrected_iou > placed_iou else None
    return BoxFitTraining(kept, placed_iou, corrected_iou)


def _fit(looks: Sequence[_Look]) -> BoxFit:
    return fit(
        np.stack([k.features for k in looks]),
        np.array([target(k.label, k.placed, k.side) for k in looks]),
    )


def _looks(
    photos: Sequence[Photo], detector: Detector, work_px: float, rng: np.random.Generator
) -> list[_Look]:
    """Every labeled die looked at where the finder peaks near it and around its centre."""
    n_dice = sum(len(p.centers) for p in photos)
    per_die = max(3, min(LOOKS, MAX_ROWS // max(1, n_dice)))
    out: list[_Look] = []
    for k, photo in enumerate(photos):
        if photo.centers:
            out.extend(_photo_looks(k, photo, detector, work_px, per_die, rng))
    return out


def _photo_looks(
    k: int, photo: Photo, detector: Detector, work_px: float, per_die: int,
    rng: np.random.Generator,
) -> list[_Look]:  # fmt: skip
    """Photo ``k``'s dice, each looked at ``per_die`` times."""
    params = detector.params
    ratio = work_px / FACE_DIE_PX
    cells = feature_maps(photo.bal, work_px)
    gray = cv2.cvtColor(photo.face, cv2.COLOR_BGR2GRAY)
    found = peaks(score_map(cells, detector), params.threshold, PEAKS_APART * work_px / STRIDE,
                  params.max_dice)  # fmt: skip
    at_peaks = [(px * STRIDE / ratio, py * STRIDE / ratio) for px, py, _ in found]
    out: list[_Look] = []
    for (cx, cy), label in zip(photo.centers, photo.boxes, strict=True):
        near = [(fx, fy) for fx, fy in at_peaks
                if math.hypot(fx - cx, fy - cy) < PEAK_NEAR * FACE_DIE_PX][:1]  # fmt: skip
        jittered = [(cx + dx * FACE_DIE_PX, cy + dy * FACE_DIE_PX)
                    for dx, dy in rng.uniform(-JITTER, JITTER, (per_die - len(near), 2))]  # fmt: skip
        for n, (fx, fy) in enumerate(near + jittered):
            box, side, _ = placed_box(gray, fx, fy, params, (gray.shape[1], gray.shape[0]))
            x, y = fx * ratio / STRIDE, fy * ratio / STRIDE
            feats = box_features(cells, x, y, box, side)
            out.append(_Look(k, feats, box, side, label, n < len(near)))
    return out
