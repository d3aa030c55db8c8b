"""Photos stretched to another shape (as labelling services resize a set): calibration
measures the stretch on the labels, and every photo is read with square pixels again."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import evaluate, match
from vision.learning.report import CalibrationReport
from vision.reading.domain import DomainIssue
from vision.reading.exported import frame_box
from vision.reading.pixel_aspect import (
    CAMERA_LIMIT,
    MIN_BOXES,
    frame_stretch,
    native_size,
    pixel_aspect,
    unstretched,
)
from vision.reading.read import read_file


def test_a_stretch_is_what_no_camera_makes() -> None:
    assert pixel_aspect([1.0] * 10) == 1.0
    # an oblique camera's boxes (wider than tall), or a near side boxed (taller): the camera's
    assert pixel_aspect([1.36] * 10) == 1.0
    assert pixel_aspect([0.72] * 10) == 1.0
    assert pixel_aspect([1.78, 1.8, 1.76, 1.9, 1.7, 1.78, 1.79]) == pytest.approx(1.78)
    assert pixel_aspect([0.5] * 10) == 0.5
    assert pixel_aspect([CAMERA_LIMIT * 1.01] * 10) > 1.0
    assert pixel_aspect([2.0] * (MIN_BOXES - 1)) == 1.0  # too few boxes to tell


@pytest.mark.parametrize(("shape", "aspect", "square"), [((100, 400), 2.0, (100, 200)), ((400, 100), 0.5, (200, 100))])  # fmt: skip
def test_a_stretched_photo_is_shrunk_along_its_stretch(
    shape: tuple[int, int], aspect: float, square: tuple[int, int]
) -> None:
    image = np.zeros((*shape, 3), np.uint8)
    out = unstretched(image, aspect)
    assert out.shape[:2] == square
    assert unstretched(image, 1.0) is image
    scale = (square[1] / shape[1], square[0] / shape[0])
    # a box found in the square pixels, in the photo's own
    assert frame_box((10.0, 20.0, 30.0, 40.0), (*scale, 0.0, 0.0)) == pytest.approx(
        (10.0 / scale[0], 20.0 / scale[1], 30.0 / scale[0], 40.0 / scale[1])
    )


def _squashed(src: Path, dst: Path) -> Path:
    """A copy of the dataset ``src`` with each photo's height halved (its labels, normalised,
    unchanged): every die looks twice as wide as tall."""
    shutil.copytree(src, dst)
    for photo in (dst / "images").iterdir():
        image = cv2.imread(str(photo))
        h, w = image.shape[:2]
        cv2.imwrite(str(photo), cv2.resize(image, (w, h // 2), interpolation=cv2.INTER_AREA))
    return dst


def test_stretched_photos_are_read_as_if_they_were_not(
    stress_photos: tuple[Path, Path], tmp_path: Path
) -> None:
    train, test = (_squashed(p, tmp_path / p.name) for p in stress_photos)
    model = calibrate(load_dataset(train))
    assert model.params.pixel_aspect == pytest.approx(2.0, rel=0.05)
    # read as stretched, 5 of these 12 dice were asked about and 2 read wrong
    result = evaluate(load_dataset(test), model)
    assert (result.f1, result.accuracy, result.unsure) == (1.0, 1.0, 0)
    # the boxes come back in the stretched photo's own pixels
    item = load_dataset(test).items[0]
    read = read_file(item.image, model)
    w, h = read.size
    assert (h, w) == cv2.imread(str(item.image)).shape[:2]
    labeled = [d.box_px(w, h) for d in item.dice]
    assert len(match(labeled, [d.box for d in read.dice])) == len(labeled) == len(read.dice)
    assert read.warnings == ()
    # the camera's own photos, in the shape they had before the stretch, are read as they
    # are (un-stretched again, 3 of these 12 dice were read wrong, 5 asked about, and both
    # photos warned)
    result = evaluate(load_dataset(stress_photos[1]), model)
    assert (result.f1, result.accuracy, result.unsure, result.warned) == (1.0, 1.0, 0, 0)
    # a photo of a third shape is named by its own size
    plain = stress_photos[1] / "images" / item.image.name
    image = cv2.imread(str(plain))
    h0 = image.shape[0]
    cropped = tmp_path / "square.png"
    cv2.imwrite(str(cropped), image[:, :h0])
    read = read_file(cropped, model)
    shape = [w for w in read.warnings if w.kind is DomainIssue.PHOTO_SHAPE]
    assert len(shape) == 1
    assert shape[0].text.startswith(f"a {h0}x{h0} photo, but the model learned from {w}x{h}")


def test_a_frame_in_the_shape_before_the_stretch_is_read_as_it_is() -> None:
    squares = [(640, 640)]
    wide = 640 / 360  # a 16:9 frame made square: its boxes 0.5625 times as wide as tall
    assert frame_stretch((640, 640), 1 / wide, squares) == pytest.approx(1 / wide)
    assert frame_stretch((1920, 1080), 1 / wide, squares) == 1.0  # the camera's own
    assert frame_stretch((1280, 720), 1 / wide, squares) == 1.0
    assert frame_stretch((700, 640), 1 / wide, squares) == pytest.approx(1 / wide)  # nearer
    assert frame_stretch((1920, 1080), 1 / wide, ()) == pytest.approx(1 / wide)  # not known
    assert frame_stretch((1920, 1080), 1.0, squares) == 1.0
    assert native_size((640, 640), 1 / wide) == (640, 360)
    assert native_size((640, 640), 2.0) == (320, 640)


def test_calibration_says_the_photos_were_stretched() -> None:
    report = CalibrationReport(photos=20, dice=60, seconds=1.0, cv=None, folds=0, warnings=[],
                               pixel_aspect=0.54)  # fmt: skip
    assert any(
        line.startswith("stretched photos: the labeled dice are 1.85 times as tall as wide")
        for line in report.lines()
    )
    assert report.to_json()["pixel_aspect"] == 0.54
