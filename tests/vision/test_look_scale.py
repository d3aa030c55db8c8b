"""A photo taken by hand that the finder cannot measure is read at the size where its dice
look most like the owner's (vision.reading.look_scale)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.errors import ConfigError
from vision.learning.evaluate import match
from vision.learning.report import CalibrationReport
from vision.reading import die_scale
from vision.reading.detect import FACE_DIE_PX, DetectorParams
from vision.reading.die_scale import look_at_sizes, photo_die_scale
from vision.reading.look_scale import (
    EMPTY_SIZE,
    OVERRULES,
    checked_die_scale,
    further_step,
    look_reach_steps,
    looked_die_scale,
    smoothed,
)
from vision.reading.model import FaceModel, load_model
from vision.reading.photo_scale import measure_scales, measured_die_scale, size_curves
from vision.reading.read import read_frame
from vision.reading.scaling import (
    MAX_LOOK_STEPS,
    SCALE_STEP,
    STEPS,
    image_length,
    shrink,
    working_scale,
)
from vision.synth.die import PlacedDie
from vision.synth.scenes import Renderer, stress_settings

# a hang guard, not a speed limit: the stress calibration (shared) is a CPU-minute
pytestmark = pytest.mark.timeout(600)


NINE = range(-STEPS, STEPS + 1)  # the sizes every model looks at, as steps


def _by_step(means: dict[int, list[float]], steps: range = NINE) -> list[list[float]]:
    """The distances found at each size ``SCALE_STEP ** j`` for j in ``steps``: ``means[j]``
    (none elsewhere)."""
    return [means.get(j, []) for j in steps]


def test_the_size_is_where_the_dice_look_like_the_owners_on_the_whole() -> None:
    # one lucky die at the smallest size is nearest of all, but its neighbour is far: the
    # valley two steps up, where three sizes in a row read well, is the dice's size
    valley = {-4: [0.3], -3: [0.9], -2: [0.9, 0.95], -1: [0.8], 0: [0.75, 0.85], 1: [0.55],
              2: [0.45, 0.55], 3: [0.55], 4: [0.8]}  # fmt: skip
    assert looked_die_scale(_by_step(valley), NINE) == pytest.approx(SCALE_STEP**2)
    # a valley leaning toward its lower side lies between the two sizes, nearer the lower
    leaning = valley | {1: [0.5], 3: [0.6]}
    assert SCALE_STEP**1.5 < looked_die_scale(_by_step(leaning), NINE) < SCALE_STEP**2


def test_a_size_that_found_no_die_is_never_chosen() -> None:
    # a die found only at the learned size, far from the owner's: still its size, as no
    # other size found one
    assert looked_die_scale(_by_step({0: [2.0]}), NINE) == 1.0
    # found at two sizes, the nearer one's: the empty sizes around count as far
    sparse = {-3: [0.9], 3: [0.4]}
    assert looked_die_scale(_by_step(sparse), NINE) == pytest.approx(SCALE_STEP**3)
    curve = smoothed(np.array([np.nan, 0.9, np.nan, 0.5, np.nan]))
    assert np.isinf(curve[[0, 2, 4]]).all()
    assert curve[3] == pytest.approx(np.mean([EMPTY_SIZE * 0.9, 0.5, EMPTY_SIZE * 0.9]))
    assert curve[1] == pytest.approx(np.mean([EMPTY_SIZE * 0.9, 0.9, EMPTY_SIZE * 0.9]))


def test_a_photo_with_no_die_at_any_size_reads_at_the_learned_size() -> None:
    assert look_reach_steps(DetectorParams()) == NINE
    assert measure_scales() == pytest.approx([SCALE_STEP**j for j in NINE])
    assert looked_die_scale([[] for _ in NINE], NINE) == 1.0
    with pytest.raises(ValueError, match="8 lists of distances for 9 sizes"):
        looked_die_scale([[0.5]] * 8, NINE)


def test_the_look_reaches_the_sizes_it_was_given() -> None:
    # a look learned to reach 7 steps under and 5 over: its valley at 5 under is found,
    # where the nine sizes' would stop at their edge
    steps = look_reach_steps(DetectorParams(look_under=7, look_over=5))
    assert steps == range(-7, 6)
    far = {j: [0.4 + 0.1 * abs(j + 5)] for j in steps}
    assert looked_die_scale(_by_step(far, steps), steps) == pytest.approx(SCALE_STEP**-5)
    assert looked_die_scale(_by_step(far), NINE) == pytest.approx(SCALE_STEP**-4, rel=0.05)


def test_the_look_goes_on_past_an_end_only_while_its_dice_read_best_there() -> None:
    reach = range(-7, 6)
    far = {j: [0.4 + 0.1 * abs(j + 5)] for j in reach}  # the dice's size: 5 steps under
    assert further_step(_by_step(far), NINE, reach) == -5
    # one size past the valley, the end (smoothed over two sizes, the valley one of them)
    # is still lowest: one more; two past, the valley lies inside: no further
    assert further_step(_by_step(far, range(-5, 5)), range(-5, 5), reach) == -6
    assert further_step(_by_step(far, range(-7, 5)), range(-7, 5), reach) is None
    assert further_step(_by_step(far), NINE, NINE) is None  # no reach beyond the nine
    # lowest inside the nine, or no die at any size: the nine are all
    inside = {j: [0.4 + 0.1 * abs(j - 1)] for j in NINE}
    assert further_step(_by_step(inside), NINE, reach) is None
    assert further_step(_by_step({}), NINE, reach) is None
    # and up as well as down
    near = {j: [0.4 + 0.1 * abs(j - 5)] for j in reach}
    assert further_step(_by_step(near), NINE, reach) == 5


def test_a_look_flat_over_its_sizes_goes_on_past_an_end_near_its_lowest() -> None:
    """Two dice far under the nine read alike, and poorly, at each of them (catan's photos
    in a set with pi-tray's): an end within ``FLAT`` of the lowest point is looked past."""
    reach = range(-8, 5)
    flat = {-4: [0.67], -3: [0.64], -2: [0.65], -1: [0.60], 0: [0.67]}  # none found above
    assert further_step(_by_step(flat), NINE, reach) == -5
    assert further_step(_by_step(flat), NINE, NINE) is None  # no reach beyond the nine
    valley = {j: [0.40 + 0.06 * abs(j)] for j in NINE}  # clearly lowest inside
    assert further_step(_by_step(valley), NINE, reach) is None
    # both ends near the lowest: the end lying lower first, the other once it is used up
    level = {j: [0.60 + (0.01 if j > 0 else 0.0)] for j in NINE}
    assert further_step(_by_step(level), NINE, reach) == -5
    assert further_step(_by_step(level), NINE, range(-4, 6)) == 5


@pytest.mark.parametrize("field", ["look_under", "look_over"])
def test_a_look_short_of_the_measures_sizes_or_past_its_reach_is_refused(field: str) -> None:
    for steps in (STEPS - 1, MAX_LOOK_STEPS + 1):
        with pytest.raises(ConfigError, match=f"{field} {steps} must be within 4..8"):
            DetectorParams.from_dict({field: steps})
    older = DetectorParams().to_dict()
    del older[field]  # a model calibrated before the look learned its reach: the nine sizes
    assert look_reach_steps(DetectorParams.from_dict(older)) == NINE


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
    looks = look_at_sizes(image, fixed, measure_scales())
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


def test_a_look_reaching_farther_gives_the_measure_its_own_sizes(
    fixed: FaceModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    image, _ = _scene(0.45, 46, 4)  # dice 7 steps under: the look goes past the nine
    params = replace(fixed.params, hand_held=True, photo_scale=True, look_under=8, look_over=5)
    wide = replace(fixed, detector=replace(fixed.detector, params=params))
    given: list[list[float]] = []
    looked: list[float] = []

    def measure(image: NDArray[Any], detector: Any, evidence: list[float]) -> float:
        given.append(list(evidence))
        return 1.0

    def look(image: NDArray[Any], model: FaceModel, scales: list[float]) -> Any:
        looked.extend(scales)
        return look_at_sizes(image, model, scales)

    monkeypatch.setattr(die_scale, "measured_die_scale", measure)
    monkeypatch.setattr(die_scale, "look_at_sizes", look)
    die_scale.photo_die_scale(image, wide)
    assert min(looked) < SCALE_STEP**-STEPS * 0.99  # it did look further
    # the measure weighs the nine sizes it learned its curves at, however far the look goes
    assert given == [look_at_sizes(image, fixed, measure_scales()).evidence]


def test_a_photo_beyond_the_nine_sizes_is_read_by_a_look_that_reaches_it(
    unmeasured: FaceModel,
) -> None:
    image, dice = _scene(0.45, 46, 4)  # dice about 7 steps under the learned side
    boxes = [d.box() for d in dice]
    reaching = replace(unmeasured.params, look_under=8)
    wide = replace(unmeasured, detector=replace(unmeasured.detector, params=reaching))
    read = read_frame(image, wide)
    assert read.die_scale == pytest.approx(0.45, rel=0.12)
    pairs = match(boxes, [d.box for d in read.dice])
    assert len(pairs) == len(dice) == len(read.dice)
    assert all(read.dice[j].face == dice[i].symbol.value for i, j in pairs)
    # the nine sizes stop at 0.64: read too large, a die is missed
    nine = read_frame(image, unmeasured)
    assert nine.die_scale >= SCALE_STEP**-STEPS * 0.99
    assert len(match(boxes, [d.box for d in nine.dice])) < len(pairs)


def test_a_hand_held_photos_freed_memory_goes_back_and_a_fixed_cameras_stays(
    fixed: FaceModel, unmeasured: FaceModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    released: list[bool] = []
    monkeypatch.setattr("vision.reading.read.release_freed_memory", lambda: released.append(True))
    image, _ = _scene(1.0, 47, 2)
    read_frame(image, fixed)
    assert released == []  # the next frame needs the same memory at once
    read_frame(image, unmeasured)
    assert released == [True]  # the look's frames, many times this one's, let go
