"""The dice's size measured in each photo: photos taken by hand, nearer or farther than the
calibration photos, are read at their own dice's size (vision.reading.photo_scale), and a
calibration on such photos learns each at its own size (vision.learning.die_size)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.errors import ModelError
from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.die_size import (
    distances_vary,
    look_reach,
    measure_works,
    own_sizes,
    photo_scales,
    unmeasured_warning,
)
from vision.learning.evaluate import evaluate, match
from vision.learning.report import CalibrationReport
from vision.reading.detect import FACE_DIE_PX, DetectorParams
from vision.reading.model import FaceModel, load_model
from vision.reading.photo_scale import CURVE_STEPS, matched_shift, measured_die_scale, size_curves
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
from vision.synth.strangers import StrangerCamera, stranger, write_stranger

# a hang guard, not a speed limit: the stress calibration (shared) is a CPU-minute
pytestmark = pytest.mark.timeout(600)


@pytest.fixture(scope="module")
def calibrated(stress_calibration: tuple[FaceModel, CalibrationReport]) -> FaceModel:
    return stress_calibration[0]


def _face(image: NDArray[Any], model: FaceModel) -> NDArray[Any]:
    """A 1280x960 frame at the face scale of the model's learned side."""
    return shrink(image, working_scale(image_length(1280, 960), model.params, FACE_DIE_PX))


@pytest.fixture(scope="module")
def hand_held(calibrated: FaceModel) -> FaceModel:
    """The stress model as if its photos had been taken from different distances: its
    size curves learned on three frames of the table at the learned size."""
    params = replace(calibrated.params, photo_scale=True)
    detector = replace(calibrated.detector, params=params)
    faces = [_face(_scene(1.0, seed=30 + k)[0], calibrated) for k in range(3)]
    return replace(calibrated, detector=replace(detector, size_curves=size_curves(faces, detector)))


def _scene(scale: float, seed: int, count: int = 5) -> tuple[NDArray[Any], list[PlacedDie]]:
    """A frame of the stress calibration's table with dice ``scale`` times its size."""
    settings = stress_settings(3)
    settings = replace(settings, die_frac=settings.die_frac * scale)
    scene = Renderer(settings, seed=seed).scene(count=count)
    return scene.image, scene.dice


@pytest.mark.parametrize(("scale", "count"), [(0.7, 8), (1.3, 5), (1.45, 4)])
def test_a_photo_nearer_or_farther_is_measured(
    hand_held: FaceModel, calibrated: FaceModel, scale: float, count: int
) -> None:
    image, _ = _scene(scale, seed=11, count=count)
    assert measured_die_scale(image, hand_held.detector) == pytest.approx(scale, rel=0.1)
    assert measured_die_scale(image, calibrated.detector) == 1.0  # no size curves: never


def test_a_photo_at_the_learned_size_and_the_bare_tray_stay_as_learned(
    calibrated: FaceModel, hand_held: FaceModel
) -> None:
    image, _ = _scene(1.0, seed=12)
    scale = measured_die_scale(image, hand_held.detector)
    assert scale == pytest.approx(1.0, abs=SCALE_STEP**0.25 - 1)  # within a quarter step
    measured, as_learned = read_frame(image, hand_held), read_frame(image, calibrated)
    assert measured.die_scale == scale and as_learned.die_scale == 1.0
    assert [d.face for d in measured.dice] == [d.face for d in as_learned.dice]
    assert replace(measured, ms=0.0) == replace(
        read_frame(image, calibrated, die_scale=scale), ms=0.0
    )
    bare, _ = _scene(1.0, seed=12, count=0)
    assert measured_die_scale(bare, hand_held.detector) == pytest.approx(1.0, rel=0.3)


def test_a_photo_taken_nearer_reads_at_its_own_size(
    calibrated: FaceModel, hand_held: FaceModel
) -> None:
    image, dice = _scene(1.5, seed=13, count=4)
    measured = read_frame(image, hand_held)
    assert measured.die_scale == pytest.approx(1.5, rel=0.1)
    assert measured.to_json()["die_scale"] == round(measured.die_scale, 3)
    boxes = [d.box() for d in dice]
    pairs = match(boxes, [d.box for d in measured.dice])
    assert len(pairs) == len(dice) == len(measured.dice)
    assert all(measured.dice[j].face == dice[i].symbol.value for i, j in pairs)
    # a model of a camera fixed over the table reads at the learned size: the boxes are a
    # half of the dice's, and miss
    as_learned = read_frame(image, calibrated)
    assert as_learned.die_scale == 1.0
    assert len(match(boxes, [d.box for d in as_learned.dice])) < len(pairs)
    assert read_frame(image, calibrated, die_scale=measured.die_scale).dice == measured.dice


def test_whether_to_measure_is_kept_in_the_model_file(hand_held: FaceModel, tmp_path: Path) -> None:
    loaded = load_model(hand_held.save(tmp_path / "held.npz"))
    curves, kept = hand_held.detector.size_curves, loaded.detector.size_curves
    assert loaded.params.photo_scale and curves is not None and kept is not None
    assert kept.shape == (3, 2 * CURVE_STEPS + 1)
    assert kept.ravel() == pytest.approx(curves.ravel(), rel=1e-6)
    older = hand_held.params.to_dict()
    del older["photo_scale"]  # a model calibrated before it: a fixed camera
    assert not DetectorParams.from_dict(older).photo_scale


def test_the_measure_stays_within_its_range(hand_held: FaceModel) -> None:
    image, _ = _scene(0.3, seed=14, count=12)
    reach = SCALE_STEP**STEPS
    assert 1 / reach <= measured_die_scale(image, hand_held.detector) <= reach


def test_reading_measures_only_when_the_measure_finds_the_calibration_photos(
    hand_held: FaceModel,
) -> None:
    detector = hand_held.detector
    faces = [_face(_scene(1.0, seed=20 + k)[0], hand_held) for k in range(3)]
    sizes = np.array([0.75, 1.3, 1.5])
    works, missed, unmeasured = measure_works(faces, sizes, detector)
    assert (
        works
        and missed < 0.06
        and unmeasured == pytest.approx(np.median(np.log([1.3, 1.5, 1 / 0.75])))
    )
    blind = replace(detector, weights=np.zeros_like(detector.weights))  # finds nothing anywhere
    works, missed, unmeasured_blind = measure_works(faces, sizes, blind)
    assert not works and missed == pytest.approx(unmeasured) == unmeasured_blind


def test_photo_scales_from_the_labels() -> None:
    params = DetectorParams(die_frac=0.05)
    sides = np.array([0.05, 0.052, 0.07, 0.071, 0.069, 0.04])
    where = np.full((6, 2), 0.5)
    photo_of = np.array([0, 0, 1, 1, 1, 2])
    scales = photo_scales(sides, where, photo_of, 4, params)
    assert scales[:3] == pytest.approx([1.02, 1.4, 0.8], rel=1e-3)
    assert scales[3] == 1.0  # a photo without dice
    # a die nearer the camera of an oblique view is larger where it lies: not a nearer photo
    oblique = replace(params, size_slope_y=0.5)
    near_side = np.array([[0.5, 0.5], [0.5, 1.0]])
    assert photo_scales(np.array([0.05, 0.0625]), near_side, np.array([0, 1]), 2, oblique) == (
        pytest.approx([1.0, 1.0])
    )


def test_photos_from_different_distances_are_told_from_a_fixed_camera() -> None:
    rng = np.random.default_rng(5)
    params = DetectorParams(die_frac=0.05)
    photo_of = np.repeat(np.arange(20), 3)
    where = rng.uniform(0.1, 0.9, (60, 2))
    label_noise = np.exp(rng.normal(0, 0.05, 60))
    fixed = 0.05 * rng.uniform(0.92, 1.08, 20)[photo_of] * label_noise
    assert not distances_vary(fixed, where, photo_of, params)
    by_hand = 0.05 * 1.4 ** rng.uniform(-1, 1, 20)[photo_of] * label_noise
    assert distances_vary(by_hand, where, photo_of, params)
    # one die a photo: the photos' spread is judged against a label's usual scatter
    singles = np.arange(20)
    assert not distances_vary(fixed[::3], where[::3], singles, params)
    assert distances_vary(by_hand[::3], where[::3], singles, params)
    assert not distances_vary(by_hand[:6], where[:6], photo_of[:6], params)  # two photos


def test_a_hand_held_strangers_distance_changes_from_photo_to_photo() -> None:
    who = stranger(2807, tiny=True)
    held = replace(who, distance_spread=1.5)
    camera = StrangerCamera(held, 5)
    sizes = [camera._pose()[3] for _ in range(12)]
    assert max(sizes) / min(sizes) > 1.6
    assert all(who.die_px / 1.5 / 1.08 <= s <= who.die_px * 1.5 * 1.08 for s in sizes)
    fixed = StrangerCamera(who, 5)
    steady = [fixed._pose()[3] for _ in range(12)]
    assert max(steady) / min(steady) < 1.18
    assert "by hand" in held.describe() and "by hand" not in who.describe()


@pytest.mark.slow
def test_a_calibration_on_hand_held_photos_learns_each_at_its_own_size(tmp_path: Path) -> None:
    who = replace(stranger(2811), distance_spread=1.5)
    train = load_dataset(write_stranger(tmp_path / "train", who, 12, 1, every_face=True))
    test = load_dataset(write_stranger(tmp_path / "test", who, 8, 2))
    model = calibrate(train)
    report = json.loads(model.report)
    assert report["hand_held"] and report["photo_scale"]["measured"] and model.params.photo_scale
    assert model.params.hand_held
    reach = [-model.params.look_under, model.params.look_over]
    assert report["look_reach"] == reach and reach[0] <= -STEPS and reach[1] >= STEPS
    measured, as_learned = evaluate(test, model), evaluate(test, model, die_scale=1.0)
    assert measured.f1 >= 0.97 and measured.accuracy >= 0.97
    assert measured.f1 > as_learned.f1


def test_the_calibration_report_says_when_photos_are_measured() -> None:
    measured = CalibrationReport(20, 300, 1.0, None, 0, [], measures_size=True)
    assert measured.to_json()["measures_size"] is True
    assert any("read at its dice's size, measured in it" in line for line in measured.lines())
    fixed = CalibrationReport(20, 300, 1.0, None, 0, [])
    assert not any("measured in it" in line for line in fixed.lines())


def test_own_sizes_leave_a_fixed_cameras_size_as_it_is() -> None:
    rng = np.random.default_rng(6)
    params = DetectorParams(die_frac=0.05)
    photo_of = np.repeat(np.arange(10), 3)
    where = rng.uniform(0.1, 0.9, (30, 2))
    fixed = 0.05 * rng.uniform(0.95, 1.05, 30)
    same, scales, held = own_sizes(params, fixed, where, photo_of, 11)
    assert same is params and not held and (scales == 1.0).all() and len(scales) == 11
    by_hand = fixed * np.array([0.7, 1.4])[photo_of % 2]
    learned, scales, held = own_sizes(params, by_hand, where, photo_of, 10)
    assert held  # each photo's dice at its own size: 0.035 and 0.07 of the photo's length
    assert learned.die_frac * scales[::2] == pytest.approx(np.full(5, 0.035), rel=0.06)
    assert learned.die_frac * scales[1::2] == pytest.approx(np.full(5, 0.07), rel=0.06)


def test_the_warning_when_the_measure_misses_names_sizes_and_miss() -> None:
    text = unmeasured_warning(np.array([0.7, 1.0, 1.4]), math.log(1.25))
    assert "0.70-1.40 times the median size" in text and "by 25%" in text
    assert "(up to 10 reads a photo" in text  # the nine sizes, then the read
    farther = unmeasured_warning(np.array([0.5, 1.0, 1.4]), math.log(1.25))
    assert (
        "(up to 13 reads a photo" in farther
    )  # 6.1 steps under: 7 under, 4 over, the learned, the read


def test_the_look_reaches_the_calibration_photos_sizes() -> None:
    # within the nine sizes: the nine
    assert look_reach(np.array([0.7, 1.0, 1.4])) == (STEPS, STEPS)
    # a photo of dice half the median side (6.1 steps under), one 1.8 times (5.2 over)
    assert look_reach(np.array([0.5, 1.0, 1.8])) == (7, 6)
    # a size exactly on a step is reached, not passed
    assert look_reach(np.array([SCALE_STEP**-5, 1.0, SCALE_STEP**6])) == (5, 6)
    # at most MAX_LOOK_STEPS each way
    assert look_reach(np.array([0.1, 1.0, 9.0])) == (MAX_LOOK_STEPS, MAX_LOOK_STEPS)


def _arrays(model: FaceModel, path: Path) -> dict[str, NDArray[Any]]:
    with np.load(model.save(path)) as data:
        return {k: data[k] for k in data.files}


def test_a_model_file_with_broken_size_curves_is_refused(
    hand_held: FaceModel, tmp_path: Path
) -> None:
    path = tmp_path / "held.npz"
    arrays = _arrays(hand_held, path)
    length = 2 * CURVE_STEPS + 1
    for bad in (
        np.zeros((3, 5)),
        np.zeros((0, length)),
        np.zeros(length),
        np.full((2, length), np.nan),
    ):
        np.savez_compressed(path, **(arrays | {"size_curves": bad.astype(np.float32)}))
        with pytest.raises(ModelError, match=r"held\.npz: size_curves of shape"):
            load_model(path)
    del arrays["size_curves"]
    np.savez_compressed(path, **(arrays | {"size_curve": np.zeros(5, np.float32)}))
    with pytest.raises(ModelError, match=r"held\.npz: size_curve of shape .*\(17,\)"):
        load_model(path)


def test_a_model_file_of_before_reads_its_one_curve_by_its_best_shift(
    hand_held: FaceModel, tmp_path: Path
) -> None:
    # files written before each photo's curve was kept held the photos' mean as size_curve
    path = tmp_path / "older.npz"
    arrays = _arrays(hand_held, path)
    curves = arrays.pop("size_curves")
    mean = (curves / curves.max(1, keepdims=True)).mean(0)
    np.savez_compressed(path, **(arrays | {"size_curve": mean}))
    older = load_model(path)
    assert older.detector.size_curves is not None and older.detector.size_curves.shape == (1, 17)
    image, _ = _scene(1.3, seed=11, count=5)
    assert measured_die_scale(image, older.detector) == pytest.approx(1.3, rel=0.1)
    # with one curve, the best shift itself (as the files of before were read)
    curve = np.interp(np.arange(-STEPS, STEPS + 1) + 1.5, np.arange(-8, 9), mean)
    assert matched_shift(curve, mean[None]) == -1.5


def test_the_shift_matched_is_the_nearest_windows_median() -> None:
    reach = np.arange(-CURVE_STEPS, CURVE_STEPS + 1)
    stored = np.stack([np.exp(-0.5 * ((reach - c) / w) ** 2) + 0.3 * np.exp(-reach / 6.0)
                       for c, w in ((0, 1.5), (0.3, 2.0), (-0.2, 1.2), (0.1, 1.8))])  # fmt: skip
    offsets = np.arange(-STEPS, STEPS + 1)
    for shift in (-2.5, 0.0, 1.75):
        photo = np.interp(offsets - shift, reach, stored[1])  # dice 1.12**shift the learned
        assert matched_shift(photo, stored) == pytest.approx(shift, abs=0.25)
        assert matched_shift(photo, stored, leave_out=1) == matched_shift(photo, stored[[0, 2, 3]])
    assert matched_shift(np.ones(2 * STEPS + 1), stored) == 0.0  # a flat photo: as learned
    assert matched_shift(offsets.astype(float), np.zeros((3, len(reach)))) == 0.0  # nothing found
