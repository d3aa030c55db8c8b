"""How large a photo's dice are, measured in the photo by the finder itself.

A camera fixed over the tray shows its dice at the size calibration learned. Photos
taken by hand do not: the phone is nearer or farther each time, and a die 1.4 times
the learned side is cut too tight, its box a half of the owner's. The finder learned
dice of one side, so its evidence (the sum of its peaks' excess over its threshold)
changes with the size the photo is scaled to: it peaks where the dice have the learned
side, and grows again where a large die's pips or the tray's texture shrink to a die's
size. How it changes, from well under to well over the learned size, is learned at
calibration on each of the owner's photos at its own dice's size (:func:`size_curves`):
a photo of two dice and one of thirty change differently. A photo's own curve, at sizes
``SCALE_STEP`` apart within ``STEPS`` of the learned one, is matched against every
calibration photo's curve shifted in quarter steps (:func:`matched_shift`): the median
shift of the ``K_NEAREST`` best correlated is the dice's size. A photo whose match is
the learned size reads exactly as before.

Only a model calibrated on photos taken from different distances measures
(``DetectorParams.photo_scale``, with the photos' curves ``Detector.size_curves``), and only
when the measure found the calibration photos' own sizes
(:func:`vision.learning.die_size.measure_works`, each photo measured without its own
curve): on a table where the finder tells sizes poorly (few dice, a busy tray), photos
are read at the learned size.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.reading.detect import FACE_DIE_PX, Detector, dice_peaks, finder_look
from vision.reading.finder_maps import balance, feature_maps
from vision.reading.scaling import SCALE_STEP, STEPS, shrink

CURVE_STEPS = 2 * STEPS  # a stored curve's reach each way (a shift plus a photo's reach)
# the best correlated windows (calibration curve, shift) whose shifts are pooled: a few
# photos' best (each photo's neighbouring quarter shifts correlate alike); 10-40 measured
# alike on five hand-held strangers (docs/decisions/vision.md)
K_NEAREST = 15
MEASURE_STEPS = range(-STEPS, STEPS + 1)  # the sizes a photo is measured at, as steps
_SHIFTS = np.arange(-STEPS, STEPS + 0.01, 0.25)
_OFFSETS = np.array(MEASURE_STEPS)
_REACH = np.arange(-CURVE_STEPS, CURVE_STEPS + 1)


def evidence(face: NDArray[Any], detector: Detector, scale: float) -> float:
    """The finder's evidence for dice ``scale`` times the learned side in ``face`` (a BGR
    image at the face scale of the learned side): the sum of its peaks' excess over its
    threshold."""
    params = detector.params
    work = shrink(face, params.work_die_px / FACE_DIE_PX / scale)
    found = dice_peaks(feature_maps(balance(work), params.work_die_px), detector)
    return peaks_evidence(found, params.threshold)


def peaks_evidence(found: Sequence[tuple[float, float, float]], threshold: float) -> float:
    """The sum of the excess over ``threshold`` of the finder's peaks ``found`` (x, y,
    score)."""
    return float(sum(s - threshold for _, _, s in found))


def evidence_curve(face: NDArray[Any], detector: Detector, reach: int) -> NDArray[Any]:
    """:func:`evidence` at ``SCALE_STEP ** j`` for j from ``-reach`` to ``reach``."""
    return np.array([evidence(face, detector, SCALE_STEP**j) for j in range(-reach, reach + 1)])


def size_curves(faces: Sequence[NDArray[Any]], detector: Detector) -> NDArray[Any]:
    """Each photo's evidence curve over sizes (``CURVE_STEPS`` each way), the photos at
    the face scale of their own dice (``faces``), over its largest value: photos x
    (2 * CURVE_STEPS + 1); zeros for a photo where the finder found nothing."""
    rows = np.zeros((len(faces), 2 * CURVE_STEPS + 1))
    for k, face in enumerate(faces):
        curve = evidence_curve(face, detector, CURVE_STEPS)
        if curve.max() > 0:
            rows[k] = curve / curve.max()
    return rows


def measure_scales() -> list[float]:
    """The sizes (over the learned side) the finder's measure takes a photo at:
    ``SCALE_STEP ** j`` for j in ``MEASURE_STEPS``."""
    return [SCALE_STEP**j for j in MEASURE_STEPS]


def measured_die_scale(
    image: NDArray[Any], detector: Detector, evidence: Sequence[float] | None = None
) -> float:
    """The side of the dice of a BGR ``image`` over the side calibration learned: 1.0 for a
    detector without size curves, or when the finder finds nothing at any size.
    ``evidence``: the finder's evidence (:func:`peaks_evidence`) at each of
    :func:`measure_scales`, when already taken (the reader's look at the dice takes it)."""
    if detector.size_curves is None:
        return 1.0
    if evidence is None:
        threshold = detector.params.threshold
        evidence = [
            peaks_evidence(finder_look(image, detector, scale).peaks, threshold)
            for scale in measure_scales()
        ]
    curve = np.asarray(evidence, np.float64)
    return float(SCALE_STEP ** matched_shift(curve, detector.size_curves))


def face_die_scale(face: NDArray[Any], detector: Detector, leave_out: int | None = None) -> float:
    """:func:`measured_die_scale` of a BGR image already at the face scale of the learned
    side; ``leave_out``: a calibration photo whose curve is not matched (its own)."""
    curves = detector.size_curves
    if curves is None:
        return 1.0
    return float(
        SCALE_STEP ** matched_shift(evidence_curve(face, detector, STEPS), curves, leave_out)
    )


def matched_shift(curve: NDArray[Any], curves: NDArray[Any], leave_out: int | None = None) -> float:
    """The shift in steps (in quarter steps, or halfway between two, within ``STEPS``) by
    which the stored ``curves`` (photos x (2 * CURVE_STEPS + 1)) best match a photo's
    ``curve`` (2 * STEPS + 1 values): the median shift of the ``K_NEAREST`` (curve, shift) windows of highest
    correlation; with one stored curve (the photos' mean, in a file of before), its best
    shift. 0 for a flat ``curve`` or when nothing correlates."""
    if np.std(curve) == 0:
        return 0.0
    corr = _standardised(_windows(curves)) @ _standardised(curve) / len(curve)
    if leave_out is not None and len(curves) > 1:
        corr[leave_out] = np.nan
    flat = corr.ravel()
    valid = ~np.isnan(flat)
    if not valid.any():
        return 0.0
    nearest = 1 if len(curves) == 1 else min(K_NEAREST, int(valid.sum()))
    order = np.argsort(-np.where(valid, flat, -np.inf), kind="stable")[:nearest]
    return float(np.median(np.tile(_SHIFTS, len(curves))[order]))


def _windows(curves: NDArray[Any]) -> NDArray[Any]:
    """Each stored curve seen over a photo's reach at each of ``_SHIFTS``: photos x shifts
    x (2 * STEPS + 1) (a photo whose dice are 1.12**s times the learned side sees, at
    offset j, what a calibration photo at its own size saw at j - s)."""
    at = (_OFFSETS[None, :] - _SHIFTS[:, None]).ravel()
    return np.stack([np.interp(at, _REACH, c).reshape(len(_SHIFTS), -1) for c in curves])


def _standardised(values: NDArray[Any]) -> NDArray[Any]:
    """``values`` over their last axis less their mean, over their spread (NaN where flat)."""
    v = np.asarray(values, np.float64)
    spread = v.std(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: NDArray[Any] = (v - v.mean(-1, keepdims=True)) / np.where(spread > 0, spread, np.nan)
    return out
