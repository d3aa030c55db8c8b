"""Photos a labelling service made grey: calibration tells them, and the camera's colour
frames are made grey before they are read."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import evaluate
from vision.learning.report import CalibrationReport
from vision.reading.detect import DetectorParams
from vision.reading.exported import AS_IT_IS, as_calibrated, is_grey
from vision.reading.model import FaceModel


def _grey_jpeg(image: NDArray[Any]) -> NDArray[Any]:
    """``image`` made grey, kept three-channel and saved as a colour JPEG, decoded."""
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    ok, data = cv2.imencode(".jpg", grey, [cv2.IMWRITE_JPEG_QUALITY, 80])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


def test_grey_photos_are_told_from_colour_ones() -> None:
    rng = np.random.default_rng(4)
    colour = cv2.resize(rng.integers(0, 255, (30, 40, 3)).astype(np.uint8), (400, 300))
    assert not is_grey(colour)
    assert is_grey(_grey_jpeg(colour))
    assert is_grey(colour[:, :, 0])  # one channel
    # a nearly grey scene still shows its colour on more than 1 % of its pixels
    dull = np.full((300, 400, 3), 128, np.uint8)
    dull[100:140, 100:140] = (120, 128, 140)
    assert not is_grey(dull)


def test_a_colour_frame_is_made_grey_for_a_grey_model() -> None:
    rng = np.random.default_rng(5)
    frame = rng.integers(0, 255, (60, 80, 3)).astype(np.uint8)
    image, placement = as_calibrated(frame, DetectorParams(grey=True), [(80, 60)])
    assert placement == AS_IT_IS and image.shape == frame.shape
    assert (image[:, :, 0] == image[:, :, 1]).all() and (image[:, :, 1] == image[:, :, 2]).all()
    assert as_calibrated(frame, DetectorParams(), [(80, 60)])[0] is frame


def _grey_set(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst)
    for photo in (dst / "images").iterdir():
        cv2.imwrite(str(photo), _grey_jpeg(cv2.imread(str(photo))))
    return dst


def test_the_cameras_colour_frames_read_with_a_model_of_grey_photos(
    stress_photos: tuple[Path, Path],
    stress_calibration: tuple[FaceModel, CalibrationReport],
    tmp_path: Path,
) -> None:
    train, test = stress_photos
    model = calibrate(load_dataset(_grey_set(train, tmp_path / "train")))
    assert model.params.grey
    result = evaluate(load_dataset(test), model)  # the colour frames, made grey
    assert (result.f1, result.accuracy) == (1.0, 1.0)
    # (these random trays read alike in colour too; catan-webcam's did not: a model of its
    # grey photos found 333 "dice" on its 15 colour frames, none of them a die)
    assert not stress_calibration[0].params.grey  # the same photos in colour
