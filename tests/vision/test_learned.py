"""The learned reader: owner-calibrated finder, stress colours, errors, reports, bad input."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.errors import ModelError
from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import ReadError, evaluate
from vision.learning.report import CalibrationReport, _too_alike, save_errors
from vision.reading.detect import Detector, DetectorParams
from vision.reading.die_shape import face_contrast
from vision.reading.features import FEATURE_SIZE, autocorr_many, cut_patch, features
from vision.reading.model import FaceModel, load_model
from vision.reading.read import read_frame
from vision.reading.scaling import image_length, working_scale
from vision.synth.scenes import Renderer, stress_settings, write_dataset

# The first test to ask for the stress calibration (made once for all workers) waits for it:
# a hang guard, not a speed limit.
pytestmark = pytest.mark.timeout(300)


def test_coloured_dice_calibrated_and_read(
    stress_photos: tuple[Path, Path],
    stress_calibration: tuple[FaceModel, CalibrationReport],
    tmp_path: Path,
) -> None:
    model, _ = stress_calibration
    errors: list[ReadError] = []
    result = evaluate(load_dataset(stress_photos[1]), model, errors=errors)
    assert result.f1 >= 0.9 and result.accuracy >= 0.9
    assert result.wrong_sure <= 1
    # the model file round-trips, with its own calibration report
    back = load_model(model.save(tmp_path / "m.npz"))
    assert back.names == model.names
    assert json.loads(back.report)["photos"] == 3
    scene = Renderer(stress_settings(3), seed=9).scene(count=4)
    assert len(read_frame(scene.image, back).dice) == len(read_frame(scene.image, model).dice)
    # errors are written as crops with their reasons
    folder = save_errors(errors, tmp_path / "errors")
    listed = json.loads((folder / "errors.json").read_text())
    assert len(listed) == len(errors)
    assert all((folder / e["file"]).is_file() for e in listed)


def test_photo_without_dice_reads_none(
    stress_calibration: tuple[FaceModel, CalibrationReport],
) -> None:
    model, _ = stress_calibration
    empty = Renderer(stress_settings(3), seed=4).render([])
    assert read_frame(empty, model).dice == ()


def test_a_die_without_marks_is_no_die(
    stress_calibration: tuple[FaceModel, CalibrationReport],
) -> None:
    """A die-sized square of a die's own colour but with no marks on it (a finger, a
    blank card) is not read, while the dice around it are: the contrast floor is learned
    from the owner's dice."""
    model, _ = stress_calibration
    floor = model.params.min_contrast
    assert floor > 0.0
    scene = Renderer(stress_settings(3), seed=11).scene(count=5)
    before = read_frame(scene.image, model)
    blank = scene.image.copy()
    gone = scene.dice[0]
    cx, cy = gone.center
    x, y = int(cx), int(cy)
    strip = blank[y - 2 : y + 3, x - int(gone.side / 2) : x - int(gone.side / 3)]  # no marks
    body = np.median(strip.reshape(-1, 3), axis=0)
    rect = ((cx, cy), (gone.side * 0.9, gone.side * 0.9), gone.angle)
    corners = cv2.boxPoints(rect).astype(np.int32)
    cv2.fillConvexPoly(blank, corners, tuple(float(v) for v in body))
    assert face_contrast(blank, cx, cy, gone.side) < floor
    assert all(face_contrast(scene.image, *d.center, d.side) > floor for d in scene.dice)
    after = read_frame(blank, model)
    near = [d for d in after.dice if np.hypot(d.center[0] - cx, d.center[1] - cy) < gone.side / 2]
    assert near == []
    assert len(after.dice) == len(before.dice) - 1


def test_face_contrast_does_not_depend_on_the_light() -> None:
    image = np.full((80, 80, 3), (200, 210, 220), np.uint8)
    for x, y in ((30, 30), (50, 30), (30, 50), (50, 50)):
        cv2.circle(image, (x, y), 4, (30, 30, 30), -1)
    bright = face_contrast(image, 40, 40, 50)
    dim = face_contrast((image * 0.4).astype(np.uint8), 40, 40, 50)
    flat = face_contrast(np.full((80, 80, 3), 180, np.uint8), 40, 40, 50)
    assert dim == pytest.approx(bright, rel=0.15)
    assert flat < 0.05 * bright


def test_one_photo_refused(stress_photos: tuple[Path, Path]) -> None:
    one = load_dataset(stress_photos[0]).subset([0])
    with pytest.raises(ModelError, match="needs at least 2 photos"):
        calibrate(one)


def test_report_warns_about_few_photos(
    stress_calibration: tuple[FaceModel, CalibrationReport],
) -> None:
    model, report = stress_calibration
    assert report.photos == 3 and report.cv is None
    assert any("too few photos" in w for w in report.warnings)
    assert any("only 3 photos" in w for w in report.warnings)
    assert "calibration" in json.loads(model.report)
    assert report.lines()[0].startswith("calibrated on 3 photos")


def test_photos_nearly_alike_are_warned_about(tmp_path: Path) -> None:
    root = write_dataset(tmp_path / "varied", 3, seed=4, hard=False)
    assert _too_alike(load_dataset(root)) is None, "three different throws"
    # the same throw photographed three times
    first = sorted((root / "images").iterdir())[0]
    for other in sorted((root / "images").iterdir())[1:]:
        shutil.copyfile(first, other)
        label = root / "labels" / f"{first.stem}.txt"
        shutil.copyfile(label, root / "labels" / f"{other.stem}.txt")
    warning = _too_alike(load_dataset(root))
    assert warning is not None and "nearly alike" in warning


def test_label_mistake_named(dark_dice: tuple[FaceModel, str, Path]) -> None:
    model, mislabeled, _ = dark_dice  # 18 dice, 3 a face; one labeled as another face
    warnings = json.loads(model.report)["warnings"]
    named = [w for w in warnings if "check the label" in w]
    assert len(named) == 1 and named[0].startswith(f"labels/{mislabeled}: line 1: labeled")
    # until it is mended, the reader asks about its two faces, not about every die
    found = re.search(r"labeled '(\w+)' but looks like '(\w+)'", named[0])
    assert found is not None
    labeled, like = found.groups()
    a, b = model.names.index(labeled), model.names.index(like)
    assert model.pair_thresholds is not None and model.pair_thresholds[a, b] > model.threshold
    assert model.pair_thresholds[a, b] == model.pair_thresholds[b, a]
    raised = model.pair_thresholds > model.threshold
    assert raised.sum() == 2, "that pair alone"
    pair = [w for w in warnings if w.startswith("faces that look alike: ")]
    assert len(pair) == 1 and "raised by a die named above as a likely label mistake" in pair[0]


def test_old_and_corrupt_model_files(tmp_path: Path) -> None:
    old = tmp_path / "old.npz"
    np.savez(old, format=np.int64(1))
    with pytest.raises(ModelError, match=r"model format 1, .*calibrate again"):
        load_model(old)
    broken = tmp_path / "broken.npz"
    broken.write_bytes(b"PK\x03\x04 not really a zip")
    with pytest.raises(ModelError, match="not a toptable face model"):
        load_model(broken)


def test_die_size_measured_against_image_length() -> None:
    """A camera turned a quarter turn keeps the working scale."""
    params = DetectorParams(die_frac=0.1)
    wide = working_scale(image_length(1920, 1080), params)
    tall = working_scale(image_length(1080, 1920), params)
    assert wide == pytest.approx(tall)
    assert Detector(params).die_frac == 0.1


def test_noise_reads_as_no_dice() -> None:
    from vision.learning.defaults import default_model

    noise = np.random.default_rng(0).integers(0, 255, (480, 640, 3)).astype(np.uint8)
    assert read_frame(noise, default_model()).dice == ()


def test_a_patch_has_the_same_features_alone_or_in_a_stack() -> None:
    """Features are computed for a whole stack at once (one thumbnail resize of the
    patches stacked): no patch's numbers may depend on its neighbours in the stack."""
    rng = np.random.default_rng(0)
    image = (rng.random((120, 160, 3)) * 255).astype(np.uint8)
    rects = [((80.0, 60.0), (40.0, 40.0), a) for a in (0.0, 20.0, 45.0)]
    patches = np.stack([cut_patch(image, r) for r in rects])
    assert patches.shape == (3, 32, 32)
    stacked = features(patches)
    assert stacked.shape == (3, FEATURE_SIZE)
    one_by_one = np.concatenate([features(p[None]) for p in patches])
    assert np.allclose(stacked, one_by_one, atol=1e-6)
    assert not np.allclose(stacked[0], stacked[1])
    assert features(patches[:0]).shape == (0, FEATURE_SIZE)


def test_mark_layout_feature_ignores_where_the_marks_are() -> None:
    """The autocorrelation part of a face's features does not change when its marks
    move (an oblique view shifts the top face) and tells two layouts apart."""

    def face(pips: list[tuple[int, int]], dx: int = 0) -> NDArray[Any]:
        p = np.ones((32, 32), np.float32)
        for x, y in pips:
            cv2.circle(p, (x + dx, y), 3, (-4.0,), -1)
        out: NDArray[Any] = (p - p.mean()) / p.std()
        return out

    four = [(10, 10), (22, 10), (10, 22), (22, 22)]
    five = [*four, (16, 16)]
    a, b, c = autocorr_many(np.stack([face(four), face(four, 3), face(five)]))
    assert np.linalg.norm(a - b) < 0.05
    assert np.linalg.norm(a - c) > 2 * np.linalg.norm(a - b)
