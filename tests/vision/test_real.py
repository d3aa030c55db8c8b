"""The real pipeline on real Raspberry Pi camera photos (../shared/datasets/pi-tray)."""

from __future__ import annotations

import pytest

from tests.paths import REPO
from vision.errors import ModelError
from vision.learning.calibrate import calibrate
from vision.learning.dataset import Dataset, load_dataset
from vision.learning.defaults import default_model
from vision.learning.evaluate import evaluate
from vision.reading.read import read_file


@pytest.fixture(scope="module")
def pi_tray() -> Dataset:
    root = REPO.parent / "shared" / "datasets" / "pi-tray"
    if not root.is_dir():
        pytest.skip(f"{root} is absent: the shared datasets sit beside the checkout in CI")
    return load_dataset(root)


@pytest.mark.timeout(150)  # a guard against a hang: calibration's time is a bench figure
def test_calibrate_on_15_read_the_other_5(pi_tray: Dataset) -> None:
    n = len(pi_tray.items)
    test_idx = list(range(0, n, 4))
    train_idx = [i for i in range(n) if i not in test_idx]
    assert len(train_idx) == 15
    model = calibrate(pi_tray.subset(train_idx), face_set="pi-tray")
    assert model.names == ("1", "2", "3", "4", "5", "6")
    assert 0.07 < model.detector.die_frac < 0.13
    result = evaluate(pi_tray.subset(test_idx), model)
    assert result.images == 5 and result.dice == 30
    # one die of image_6, pressed in a tight cluster of three, scores near the threshold
    assert result.f1 >= 0.98 and result.precision == 1.0
    assert result.accuracy >= 0.96
    assert result.wrong_sure == 0, "no wrong face above the confidence threshold"


def test_synthetic_model_refuses_pip_dice(pi_tray: Dataset) -> None:
    with pytest.raises(ModelError, match="face set 'top-synthetic'"):
        evaluate(pi_tray, default_model())


def test_read_full_resolution_photo_scaled(pi_tray: Dataset) -> None:
    """A 3280x2464 photo is decoded reduced; boxes come back in full-size pixels."""
    model = calibrate(pi_tray.subset([1, 2, 3, 5, 6, 7]), face_set="pi-tray")
    read = read_file(pi_tray.items[0].image, model, expect=6)
    assert read.size == (3280, 2464)
    assert len(read.dice) == 6 and not read.count_mismatch
    assert all(200 < d.box[2] < 500 for d in read.dice)
