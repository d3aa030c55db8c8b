"""A photo taken by hand that the finder cannot measure is read at the size where its dice
look most like the owner's (vision.reading.look_scale)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.learning.evaluate import match
from vision.learning.report import CalibrationReport
from vision.reading.detect import FACE_DIE_PX, DetectorParams
from vision.reading.die_scale import look_at_sizes, photo_die_scale
from vision.reading.look_scale import (
    EMPTY_SIZE,
    OVERRULES,
    checked_die_scale,
    looked_die_scale,
    smoothed,
)
from vision.reading.model import FaceModel, load_model
from vision.reading.photo_scale import (
    SCALE_STEP,
    STEPS,
    look_scales,
    measured_die_scale,
    size_curves,
)
from vision.reading.read import read_frame
from vision.reading.scaling import image_length, shrink, working_scale
from vision.synth.die import PlacedDie
from vision.synth.scenes import Renderer, stress_settings

# a hang guard, not a speed limit: the stress calibration (shared) is a CPU-minute
pytestmark = pytest.mark.timeout(600)


def _by_step(means: dict[int, list[float]]) -> list[list[float]]:
    """The distances found at each size ``SCALE_STEP ** j``: ``means[j]`` (none elsewhere)."""
    return [means.get(j, []) for j in range(-STEPS, STEPS + 1)]


def test_the_size_is_where_the_dice_look_like_the_owners_on_the_whole() -> None:
    # one lucky die at the smallest size is nearest of all, but its neighbour is far: the
    # valley two steps up, where three sizes in a row read well, is the dice's size
    valley = {-4: [0.3], -3: [0.9], -2: [0.9, 0.95], -1: [0.8], 0: [0.75, 0.85], 1: [0.55],
              2: [0.45, 0.55], 3: [0.55], 4: [0.8]}  # fmt: skip
    assert looked_die_scale(_by_step(valley)) == pytest.approx(SCALE_STEP**2)
    # a valley leaning toward its lower side lies between the two sizes, nearer the lower
    leaning = valley | {1: [0.5], 3: [0.6]}
    assert SCALE_STEP**1.5 < looked_die_scale(_by_step(leaning)) < SCALE_STEP**2


def test_a_size_that_found_no_die_is_never_chosen() -> None:
    # a die found only at the learned size, far from the owner's: still its size, as no
    # other size found one
    assert looked_die_scale(_by_step({0: [2.0]})) == 1.0
    # found at two sizes, the nearer one's: the empty sizes around count as far
    sparse = {-3: [0.9], 3: [0.4]}
    assert looked_die_scale(_by_step(sparse)) == pytest.approx(SCALE_STEP**3)
    curve = smoothed(np.array([np.nan, 0.9, np.nan, 0.5, np.nan]))
    assert np.isinf(curve[[0, 2, 4]]).all()
    assert curve[3] == pytest.approx(np.mean([EMPTY_SIZE * 0.9, 0.5, EMPTY_SIZE * 0.9]))
    assert curve[1] == pytest.approx(np.mean([EMPTY_SIZE * 0.9, 0.9, EMPTY_SIZE * 0.9]))


def test_a_photo_with_no_die_at_any_size_reads_at_the_learned_size() -> None:
    assert look_scales() == pytest.approx([SCALE_STEP**j for j in range(-STEPS, STEPS + 1)])
    assert looked_die_scale([[] for _ in look_scales()]) == 1.0
    with pytest.raises(ValueError, match="8 lists of distances for 9 sizes"):
        looked_die_scale([[0.5]] * 8)


def test_the_look_overrules_a_measure_only_far_from_it() -> None:
    near, far = SCALE_STEP ** (OVERRULES - 0.1), SCALE_STEP ** (OVERRULES + 0.1)
    assert checked_die_scale(1.1, 1.1 * near) == 1.1 == checked_die_scale(1.1, 1.1 / near)
    assert checked_die_scale(1.1, 1.1 * far) == 1.1 * far
    assert checked_die_scale(1.1, 1.1 / far) == 1.1 / far


@pytest.fixture(scope="module")
def fixed(stress_calibration: tuple[FaceModel, CalibrationReport]) -> FaceModel:
    return stress_calibration[0]


@pytest.fixture(scope="module")
def unmeasured(fixed: FaceModel) -> FaceModel:
    """The stress model as if its photos had been taken by hand on a table where the
    finder could not measure their size: no size curves, read by the look."""
    params = replace(fixed.params, hand_held=True, photo_scale=False)
    return replace(fixed, detector=replace(fixed.detector, params=params, size_curves=None))


def _scene(scale: float, seed: int, count: int) -> tuple[NDArray[Any], list[PlacedDie]]:
    """A frame of the stress calibration's table with dice ``scale`` times its size."""
    settings = stress_settings(3)
    settings = replace(settings, die_frac=settings.die_frac * scale)
    scene = Renderer(settings, seed=seed).scene(count=count)
    return scene.image, scene.dice


@pytest.mark.parametrize(("scale", "count", "seed"), [(1.45, 3, 41), (0.7, 2, 42)])
def test_a_photo_the_finder_cannot_measure_is_read_at_its_dices_size(
    fixed: FaceModel, unmeasured: FaceModel, scale: float, count: int, seed: int
) -> None:
    image, dice = _scene(scale, seed, count)
    read = read_frame(image, unmeasured)
    assert read.die_scale == pytest.approx(scale, rel=0.12)
    assert photo_die_scale(image, unmeasured) == read.die_scale
    boxes = [d.box() for d in dice]
    pairs = match(boxes, [d.box for d in read.dice])
    assert len(pairs) == len(dice) == len(read.dice)
    assert all(read.dice[j].face == dice[i].symbol.value for i, j in pairs)
    # the fixed camera's model reads it at the learned size, and misses
    as_learned = read_frame(image, fixed)
    assert as_learned.die_scale == 1.0 == photo_die_scale(image, fixed)
    assert len(match(boxes, [d.box for d in as_learned.dice])) < len(pairs)


def test_a_misled_measure_is_overruled_by_the_look(fixed: FaceModel) -> None:
    # size curves learned on frames whose dice were 1.5 times the learned side, as if they
    # were at it: the finder measures a photo at 1.5 as at about 1
    params = replace(fixed.params, hand_held=True, photo_scale=True)
    detector = replace(fixed.detector, params=params)
    scale = working_scale(image_length(1280, 960), params, FACE_DIE_PX)
    faces = [shrink(_scene(1.5, 50 + k, 4)[0], scale) for k in range(3)]
    misled = replace(fixed, detector=replace(detector, size_curves=size_curves(faces, detector)))
    image, dice = _scene(1.5, 44, 3)
    measured = measured_die_scale(image, misled.detector)
    assert measured < SCALE_STEP**-OVERRULES * 1.5
    read = read_frame(image, misled)
    assert read.die_scale == pytest.approx(1.5, rel=0.12)
    pairs = match([d.box() for d in dice], [d.box for d in read.dice])
    assert len(pairs) == len(dice) == len(read.dice)


def test_the_distances_compared_are_the_first_looks_at_that_size(unmeasured: FaceModel) -> None:
    image, dice = _scene(1.3, 43, 3)
    near, far = look_at_sizes(image, unmeasured, [1.3, 1.3 / SCALE_STEP**3]).distances
    assert len(near) == len(dice)
    assert max(near) < min(far or [np.inf])
    # read in one batch, each size's dice read as they read alone
    assert look_at_sizes(image, unmeasured, [1.3]).distances[0] == pytest.approx(near, rel=1e-5)
    bare, _ = _scene(1.0, 43, 0)
    assert look_at_sizes(bare, unmeasured, [1.0, 1.3]).distances == [[], []]


def test_the_measure_weighs_the_finders_evidence_at_the_looks_sizes(fixed: FaceModel) -> None:
    image, _ = _scene(1.3, 45, 4)
    looks = look_at_sizes(image, fixed, look_scales())
    assert max(looks.evidence) > 0  # the finder finds the dice at some size
    curves = np.array([looks.evidence]) / max(looks.evidence)  # this photo's own curve
    params = replace(fixed.params, photo_scale=True)
    own = replace(fixed.detector, params=params, size_curves=np.pad(curves, ((0, 0), (4, 4))))
    # matched against its own curve, the photo is at the learned size, whichever way taken
    assert measured_die_scale(image, own) == 1.0 == measured_die_scale(image, own, looks.evidence)


def test_a_hand_held_model_file_keeps_how_it_reads(unmeasured: FaceModel, tmp_path: Path) -> None:
    loaded = load_model(unmeasured.save(tmp_path / "held.npz"))
    assert loaded.params.hand_held and not loaded.params.photo_scale
    older = unmeasured.params.to_dict()
    del older["hand_held"]  # a model calibrated before it: read at the learned size
    assert not DetectorParams.from_dict(older).hand_held
