"""How large a photo's dice are, measured in the photo by the finder itself.

A camera fixed over the tray shows its dice at the size calibration learned. Photos
taken by hand do not: the phone is nearer or farther each time, and a die 1.4 times
the learned side is cut too tight, its box a half of the owner's. The finder learned
dice of one side, so its evidence (the sum of its peaks' excess over its threshold)
changes with the size the photo is scaled to: it peaks where the dice have the learned
side, and grows again where a large die's pips or the tray's texture shrink to a die's
size. How it changes, from well under to well over the learned size, is learned at
calibration on the owner's photos, each at its own dice's size (:func:`size_template`).
A photo's own curve, at sizes ``SCALE_STEP`` apart within ``STEPS`` of the learned one,
is matched against it (the shift of best correlation, in quarter steps): the dice's
size. A photo whose match is the learned size reads exactly as before.

Only a model calibrated on photos taken from different distances measures
(``DetectorParams.photo_scale``, with its template ``Detector.size_curve``), and only
when the measure found the calibration photos' own sizes
(:func:`vision.learning.die_size.measure_works`): on a table where the finder tells
sizes poorly (few dice, a busy tray), photos are read at the learned size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.reading.detect import FACE_DIE_PX, STRIDE, Detector, balance, feature_maps, score_map
from vision.reading.peaks import peaks
from vision.reading.scaling import image_length, shrink, working_scale

SCALE_STEP = 1.12  # the ratio between two sizes tried
STEPS = 4  # sizes tried each way at reading: 0.64-1.57 times the learned side
TEMPLATE_STEPS = 2 * STEPS  # the template's reach each way (a shift plus a photo's reach)
_SHIFTS = np.arange(-STEPS, STEPS + 0.01, 0.25)


def evidence(face: NDArray[Any], detector: Detector, scale: float) -> float:
    """The finder's evidence for dice ``scale`` times the learned side in ``face`` (a BGR
    image at the face scale of the learned side): the sum of its peaks' excess over its
    threshold."""
    params = detector.params
    work = shrink(face, params.work_die_px / FACE_DIE_PX / scale)
    scores = score_map(feature_maps(balance(work), params.work_die_px), detector)
    found = peaks(scores, params.threshold, 0.6 * params.work_die_px / STRIDE, params.max_dice)
    return float(sum(s - params.threshold for _, _, s in found))


def evidence_curve(face: NDArray[Any], detector: Detector, reach: int) -> NDArray[Any]:
    """:func:`evidence` at ``SCALE_STEP ** j`` for j from ``-reach`` to ``reach``."""
    return np.array([evidence(face, detector, SCALE_STEP**j) for j in range(-reach, reach + 1)])


def size_template(faces: Sequence[NDArray[Any]], detector: Detector) -> NDArray[Any]:
    """The finder's evidence curve over sizes (``TEMPLATE_STEPS`` each way) of photos at
    the face scale of their own dice (``faces``), each over its largest value, averaged."""
    total = np.zeros(2 * TEMPLATE_STEPS + 1)
    for face in faces:
        curve = evidence_curve(face, detector, TEMPLATE_STEPS)
        if curve.max() > 0:
            total += curve / curve.max()
    out: NDArray[Any] = total / max(1, len(faces))
    return out


def measured_die_scale(image: NDArray[Any], detector: Detector) -> float:
    """The side of the dice of a BGR ``image`` over the side calibration learned: 1.0 for a
    detector without a size template, or when the finder finds nothing at any size."""
    h, w = image.shape[:2]
    face = shrink(image, working_scale(image_length(w, h), detector.params, FACE_DIE_PX))
    return face_die_scale(face, detector)


def face_die_scale(face: NDArray[Any], detector: Detector) -> float:
    """:func:`measured_die_scale` of a BGR image already at the face scale of the learned
    side."""
    template = detector.size_curve
    if template is None:
        return 1.0
    curve = evidence_curve(face, detector, STEPS)
    if curve.std() == 0:
        return 1.0
    offsets = np.arange(-STEPS, STEPS + 1)
    reach = np.arange(-TEMPLATE_STEPS, TEMPLATE_STEPS + 1)
    with np.errstate(invalid="ignore", divide="ignore"):  # a flat stretch: no fit (nan)
        fits = [float(np.corrcoef(curve, np.interp(offsets - s, reach, template))[0, 1])
                for s in _SHIFTS]  # fmt: skip
    best = float(_SHIFTS[int(np.nanargmax(fits))]) if not np.isnan(fits).all() else 0.0
    return float(SCALE_STEP**best)
