"""Calibration on other kinds of dice: dark dice on a light tray are found and learned."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import evaluate
from vision.synth.scenes import write_dataset


def _negative_dataset(root: Path, images: int, seed: int) -> Path:
    """Synthetic dice turned into their negative: dark dice, light symbols, light tray."""
    out = write_dataset(root, images, seed=seed, hard=True)
    for path in (out / "images").glob("*.png"):
        cv2.imwrite(str(path), 255 - cv2.imread(str(path)))
    return out


@pytest.mark.timeout(240)  # a hang guard: a calibration on a loaded core
def test_dark_dice_on_a_light_tray(tmp_path: Path) -> None:
    train = load_dataset(_negative_dataset(tmp_path / "train", 3, seed=1))
    test = load_dataset(_negative_dataset(tmp_path / "test", 3, seed=2))
    model = calibrate(train, face_set="negative")
    result = evaluate(test, model)
    assert result.f1 >= 0.94  # three photos only: calibration itself warns they are too few
    assert result.accuracy >= 0.94
    assert result.wrong_sure == 0
