"""How large a photo's dice are, measured in the photo by the finder itself.

A camera fixed over the tray shows its dice at the size calibration learned. Photos
taken by hand do not: the phone is nearer or farther each time, and a die 1.4 times
the learned side is cut too tight, its box a half of the owner's. The finder is
selective about size (it learned dice of one side), so its evidence, the sum of its
peaks' excess over the threshold, is largest where the photo is scaled so that its
dice have the learned side. The photo is scaled in steps of ``SCALE_STEP`` from the
learned size while the evidence grows (within ``SCALE_RANGE``), and the best step is
refined by a parabola through it and its neighbours (in the logarithm of the scale).
A photo whose dice are best found at the learned size reads exactly as before.

Only a model calibrated on photos taken from different distances measures
(``DetectorParams.photo_scale``), and only when the measure found the calibration
photos' own sizes (:func:`vision.learning.die_size.measure_works`): on a table where the
finder is not selective enough about size (few dice, a busy tray), photos are read at
the learned size.
"""

from __future__ import annotations

import math
from typing import Any

from numpy.typing import NDArray

from vision.reading.detect import (
    FACE_DIE_PX,
    STRIDE,
    Detector,
    balance,
    feature_maps,
    image_length,
    score_map,
    shrink,
    working_scale,
)
from vision.reading.peaks import peaks

SCALE_STEP = 1.12  # the ratio between two sizes tried
SCALE_RANGE = (0.5, 2.0)  # the dice's side over the learned side, at most this far
_STEPS = round(math.log(SCALE_RANGE[1]) / math.log(SCALE_STEP))  # each way


def evidence(face: NDArray[Any], detector: Detector, scale: float) -> float:
    """The finder's evidence for dice ``scale`` times the learned side in ``face`` (a BGR
    image at the face scale of the learned side): the sum of its peaks' excess over its
    threshold; minus infinity when it finds as many peaks as it keeps (twice the most dice
    of a calibration photo): large dice's pips, or a tray's texture, at a size where they
    look like dice."""
    params = detector.params
    work = shrink(face, params.work_die_px / FACE_DIE_PX / scale)
    scores = score_map(feature_maps(balance(work), params.work_die_px), detector)
    found = peaks(scores, params.threshold, 0.6 * params.work_die_px / STRIDE, params.max_dice)
    if len(found) >= params.max_dice:
        return -math.inf
    return float(sum(s - params.threshold for _, _, s in found))


def measured_die_scale(image: NDArray[Any], detector: Detector) -> float:
    """The side of the dice of a BGR ``image`` over the side calibration learned: exactly
    1.0 when the finder's evidence is largest at the learned size (or it finds no die)."""
    h, w = image.shape[:2]
    face = shrink(image, working_scale(image_length(w, h), detector.params, FACE_DIE_PX))
    return face_die_scale(face, detector)


def face_die_scale(face: NDArray[Any], detector: Detector) -> float:
    """:func:`measured_die_scale` of a BGR image already at the face scale of the learned
    side."""
    seen: dict[int, float] = {}

    def at(step: int) -> float:
        if step not in seen:
            seen[step] = evidence(face, detector, SCALE_STEP**step)
        return seen[step]

    if at(0) >= max(at(-1), at(1)):
        return 1.0  # (also when nothing is found, or everything everywhere)
    way = 1 if at(1) > at(-1) else -1
    best = way
    while abs(best) < _STEPS and at(best + way) > at(best):
        best += way
    if abs(best) == _STEPS:
        return float(SCALE_STEP**best)
    left, mid, right = at(best - 1), at(best), at(best + 1)
    bend = left - 2 * mid + right
    shift = 0.5 * (left - right) / bend if bend < 0 and math.isfinite(bend) else 0.0
    return float(SCALE_STEP ** (best + min(max(shift, -0.5), 0.5)))
