"""A die's size in the owner's photos, from the labeled boxes: its median side over
the photo's length, and how it grows across a photo a camera sees obliquely."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.errors import ConfigError, ModelError
from vision.learning.dataset import Dataset
from vision.reading.detect import Detector, DetectorParams, perspective_size
from vision.reading.photo_scale import face_die_scale
from vision.reading.scaling import MAX_LOOK_STEPS, SCALE_STEP, STEPS, shrink

SLOPE_DICE = 12  # labeled dice needed to fit how their size grows across the photos
MAX_SLOPE = 1.5  # the steepest growth believed (a camera 40 degrees off straight down: ~0.9)
SLOPE_SIGNIFICANCE = 3.0  # standard errors a fitted slope must stand out by to be learned
# photos whose dice's sizes spread more than this (the standard deviation of their log,
# beyond what the dice's scatter within a photo explains) were taken from different
# distances (by hand; a camera fixed over the table: under 0.05)
DISTANCE_SPREAD = 0.1
LABEL_SCATTER = 0.08  # a labeled die's size scatter (log) when no photo shows two dice


def size_slopes(where_on: NDArray[Any], sides: NDArray[Any]) -> dict[str, float]:
    """How a die's side grows across the photos (an oblique camera sees the near dice
    larger): the slopes of a plane fitted to the labeled dice's sides over their centres
    (shares of the width and height), each over the side at the centre; none from fewer
    than ``SLOPE_DICE`` dice or dice that do not spread across the photos, and each slope
    0 unless it stands ``SLOPE_SIGNIFICANCE`` standard errors out of the sides' scatter."""
    flat = {"size_slope_x": 0.0, "size_slope_y": 0.0}
    if len(sides) < SLOPE_DICE or (np.ptp(where_on, axis=0) < 0.3).any():
        return flat
    design = np.column_stack([np.ones(len(sides)), where_on - 0.5])
    fit, *_ = np.linalg.lstsq(design, sides, rcond=None)
    centre = float(fit[0])
    if centre <= 0:
        return flat
    # a slope of noise would size every cut of the reader wrongly, across a whole photo:
    # on a camera straight down the fits land within 2 standard errors of 0, on an
    # oblique one at 13 or more (the twenty strangers; catan's webcam: 1.5 across, 4.5 down)
    scatter = float(np.sum((sides - design @ fit) ** 2)) / (len(sides) - 3)
    errors = np.sqrt(scatter * np.diag(np.linalg.pinv(design.T @ design)))
    slopes = [
        float(g) if abs(g) >= SLOPE_SIGNIFICANCE * e else 0.0
        for g, e in zip(fit[1:], errors[1:], strict=True)
    ]
    return {
        "size_slope_x": float(np.clip(slopes[0] / centre, -MAX_SLOPE, MAX_SLOPE)),
        "size_slope_y": float(np.clip(slopes[1] / centre, -MAX_SLOPE, MAX_SLOPE)),
    }


def _log_sizes(sides: NDArray[Any], where_on: NDArray[Any], params: DetectorParams) -> NDArray[Any]:
    """Each labeled die's side over the side ``params`` gives it where it lies, as a log."""
    expected = np.array([params.die_frac * perspective_size(params, u, v) for u, v in where_on])
    out: NDArray[Any] = np.log(np.asarray(sides) / expected)
    return out


def distances_vary(
    sides: NDArray[Any], where_on: NDArray[Any], photo_of: NDArray[Any], params: DetectorParams
) -> bool:
    """Whether the photos were taken from different distances (by hand): the spread of
    their dice's mean size beyond what the scatter of the dice within a photo gives is
    over ``DISTANCE_SPREAD`` (``sides`` as ``die_frac``, ``where_on`` the dice's centres as
    shares of the width and height, ``photo_of`` each die's photo); three photos at least."""
    logs = _log_sizes(sides, where_on, params)
    groups = [logs[photo_of == k] for k in np.unique(photo_of)]
    if len(groups) < 3:
        return False
    several = [g for g in groups if len(g) >= 2]
    scatter = (
        sum(float(((g - g.mean()) ** 2).sum()) for g in several) / sum(len(g) - 1 for g in several)
        if several
        else LABEL_SCATTER**2
    )
    means = np.array([g.mean() for g in groups])
    beyond = float(means.var(ddof=1)) - scatter * float(np.mean([1 / len(g) for g in groups]))
    return beyond > DISTANCE_SPREAD**2


def photo_scales(
    sides: NDArray[Any],
    where_on: NDArray[Any],
    photo_of: NDArray[Any],
    photos: int,
    params: DetectorParams,
) -> NDArray[Any]:
    """Each of ``photos`` photos' dice's side over the side ``params`` gives them where they
    lie: the median over its labeled dice (arguments as :func:`distances_vary`'s); 1 for a
    photo without dice."""
    logs = _log_sizes(sides, where_on, params)
    out = np.ones(photos)
    for k in range(photos):
        mine = logs[photo_of == k]
        if len(mine):
            out[k] = float(np.exp(np.median(mine)))
    return out


def own_sizes(
    params: DetectorParams,
    sides: NDArray[Any],
    where_on: NDArray[Any],
    photo_of: NDArray[Any],
    photos: int,
) -> tuple[DetectorParams, NDArray[Any], bool]:
    """For photos taken from different distances (:func:`distances_vary`; arguments as its):
    ``params`` with the die size and slopes fitted again on the sizes freed of each
    photo's distance, each photo's size (:func:`photo_scales`), True. Otherwise ``params``
    as given, ones, False."""
    if not distances_vary(sides, where_on, photo_of, params):
        return params, np.ones(photos), False
    own = sides / photo_scales(sides, where_on, photo_of, photos, params)[photo_of]
    slopes = size_slopes(where_on, own)
    params = replace(
        params,
        die_frac=float(np.median(own)),
        size_slope_x=slopes["size_slope_x"],
        size_slope_y=slopes["size_slope_y"],
    )
    return params, photo_scales(sides, where_on, photo_of, photos, params), True


def look_reach(scales: NDArray[Any]) -> tuple[int, int]:
    """How far the look at a photo's die size reaches under and over the learned side,
    in steps (``DetectorParams.look_under``, ``look_over``): to the calibration photos'
    smallest and largest ``scales``, rounded outward, at least ``STEPS`` each way and at
    most ``MAX_LOOK_STEPS``."""
    steps = np.log(np.asarray(scales, np.float64)) / math.log(SCALE_STEP)

    def reach(farthest: float) -> int:
        return min(MAX_LOOK_STEPS, max(STEPS, math.ceil(round(farthest, 6))))

    return reach(-float(steps.min())), reach(float(steps.max()))


def unmeasured_warning(scales: NDArray[Any], missed: float) -> str:
    """The calibration warning when its photos were taken from different distances (their
    sizes ``scales``) and the measure missed them by ``missed`` (a log: see
    :func:`measure_works`)."""
    sizes = sum(look_reach(scales)) + 1  # the most a look takes (under, over, the learned)
    return (
        f"the photos were taken from different distances (their dice {min(scales):.2f}-"
        f"{max(scales):.2f} times the median size), and on this table the finder cannot tell "
        f"a photo's die size (it missed the calibration photos' by {math.exp(missed) - 1:.0%}):"
        f" each photo is read at the size where its dice look most like these (up to "
        f"{sizes + 1} reads a photo: slower, and less sure than a measure); take them from one distance, "
        "or label more"
    )


def measure_works(
    faces: Sequence[NDArray[Any]], scales: NDArray[Any], detector: Detector
) -> tuple[bool, float, float]:
    """Whether reading should measure each photo's die size (:mod:`vision.reading.photo_scale`):
    the calibration photos at the face scale of their own dice (``faces``), put back at
    their sizes ``scales``, each measured by ``detector`` without its own size curve; it
    should when the measure misses their sizes by less than half what reading them all at
    the learned size would (the median of the logs' differences). With both medians."""
    measured = np.array([
        face_die_scale(shrink(face, s), detector, leave_out=k)
        for k, (face, s) in enumerate(zip(faces, scales, strict=True))
    ])  # fmt: skip
    missed = float(np.median(np.abs(np.log(measured / scales))))
    unmeasured = float(np.median(np.abs(np.log(scales))))
    return missed < 0.5 * unmeasured, missed, unmeasured


def die_frac_from_labels(dataset: Dataset) -> float:
    """The median labeled box side over the image's ``sqrt(width * height)``: for a
    normalised box, ``sqrt(w * h)`` whatever the photo's size or aspect.

    Raises:
        ModelError: the dataset holds no labeled die.
    """
    sides = [float(np.sqrt(d.w * d.h)) for item in dataset.items for d in item.dice]
    if not sides:
        raise ModelError(f"{dataset.root}: no labeled die to calibrate from")
    return float(np.median(sides))


def with_labelled_size(params: DetectorParams, dataset: Dataset) -> DetectorParams:
    """``params`` with the die's size the labels give (:func:`die_frac_from_labels`).

    Raises:
        ModelError: no labeled die, or boxes of a size the reader takes for no die (the
            message names the dataset and the size the finder allows).
    """
    frac = die_frac_from_labels(dataset)
    try:
        return replace(params, die_frac=frac)
    except ConfigError as exc:
        raise ModelError(
            f"{dataset.root}: its labeled dice measure {frac:.3f} of sqrt(width x height) "
            f"(the median box), but {exc}: are the labels YOLO boxes of single dice "
            "(class, centre x, centre y, width, height, each a share of the photo)?"
        ) from None


# a box's side over its die's side, on average over the die's turns (|cos a| + |sin a|)
TYPICAL_TURN = 4.0 / math.pi


def label_side(width: float, height: float) -> float:
    """A die's side guessed from its labelled box (any pixels, the same out), not knowing
    its turn: the side :func:`vision.reading.die_shape.orientation` looks for its outline
    at, which then gives the turn."""
    return math.sqrt(width * height) / TYPICAL_TURN


BOX_DICE = 6  # labeled dice needed to measure the shape of the boxes the owner draws


def box_shape(label_sides: NDArray[Any], found_sides: NDArray[Any]) -> dict[str, float]:
    """The box to report for a die, as the owner labels them: ``box_scale``, the labeled
    boxes' side over the side reading will give (the die's side where it lies, turned by
    its rotation), and ``box_aspect``, their width over their height (1 for a camera
    straight down; an oblique one foreshortens a die across its tilt). Medians over the
    labeled dice: ``label_sides`` their boxes' (width, height) a row, ``found_sides`` the
    side reading gives each, in the same unit. Neither is learned (both 1) from fewer
    than ``BOX_DICE`` dice."""
    if len(label_sides) < BOX_DICE:
        return {"box_scale": 1.0, "box_aspect": 1.0}
    across = float(np.median(label_sides[:, 0] / found_sides))
    down = float(np.median(label_sides[:, 1] / found_sides))
    return {
        "box_scale": float(np.clip(np.sqrt(across * down), 0.5, 2.0)),
        "box_aspect": float(np.clip(across / down, 0.4, 2.5)),
    }


def face_aspect(params: DetectorParams, box_aspect: float) -> float:
    """How much wider than tall the camera sees a die's top face, for cutting faces
    stretched back to square: the owner's boxes' width over height (``box_aspect``) when
    calibration learned a tilt (a size slope in ``params``: the near dice larger) and the
    boxes are squashed along it (a tilt down the photo makes them wider than tall, one
    across it taller than wide); else 1. Boxes off square the other way are the owner's
    drawing (a die's near side boxed with its top face), not the view's."""
    if not params.oblique:
        return 1.0
    down_the_photo = abs(params.size_slope_y) >= abs(params.size_slope_x)
    squashed = box_aspect > 1.0 if down_the_photo else box_aspect < 1.0
    return box_aspect if squashed else 1.0
