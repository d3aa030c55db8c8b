"""The real pipeline on real Raspberry Pi camera photos (../shared/datasets/pi-tray)."""

from __future__ import annotations

import pytest

from tests.vision.conftest import PI_TRAY_HELD_OUT
from vision.errors import ModelError
from vision.learning.dataset import Dataset
from vision.learning.defaults import default_model
from vision.learning.evaluate import evaluate
from vision.reading.model import FaceModel
from vision.reading.read import read_file, reduction


@pytest.mark.slow  # the 15-photo pi-tray calibration: CPU-minutes
@pytest.mark.timeout(
    900
)  # a hang guard (its first user waits for the calibration), not a speed limit
def test_calibrate_on_15_read_the_other_5(pi_tray: Dataset, pi_tray_model: FaceModel) -> None:
    assert len(pi_tray.items) - len(PI_TRAY_HELD_OUT) == 15
    model = pi_tray_model
    assert model.names == ("1", "2", "3", "4", "5", "6")
    assert 0.07 < model.detector.die_frac < 0.13
    result = evaluate(pi_tray.subset(PI_TRAY_HELD_OUT), model)
    assert result.images == 5 and result.dice == 30
    # one die of image_6, pressed in a tight cluster of three, scores near the threshold
    assert result.f1 >= 0.98 and result.precision == 1.0
    assert result.accuracy >= 0.96
    assert result.wrong_sure == 0, "no wrong face above the confidence threshold"


def test_synthetic_model_refuses_pip_dice(pi_tray: Dataset) -> None:
    with pytest.raises(ModelError, match="face set 'top-synthetic'"):
        evaluate(pi_tray, default_model())


@pytest.mark.slow  # the 15-photo pi-tray calibration: CPU-minutes
@pytest.mark.timeout(
    900
)  # a hang guard (its first user waits for the calibration), not a speed limit
def test_read_full_resolution_photo_scaled(pi_tray: Dataset, pi_tray_model: FaceModel) -> None:
    """A 3280x2464 photo is decoded reduced; boxes come back in full-size pixels."""
    photo = pi_tray.items[PI_TRAY_HELD_OUT[0]].image
    assert reduction(photo, pi_tray_model) > 1
    read = read_file(photo, pi_tray_model, expect=6)
    assert read.size == (3280, 2464)
    assert len(read.dice) == 6 and not read.count_mismatch
    assert all(200 < d.box[2] < 500 for d in read.dice)
