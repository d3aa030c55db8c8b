"""Calibration on other kinds of dice: dark dice on a light tray are found and learned; a
tray of many dice keeps fewer copies of each, and its finder keeps all of them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision.learning import face_samples as sampling
from vision.learning.calibrate import calibrate, calibration_steps
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import evaluate
from vision.learning.face_samples import COPIES, MAX_SAMPLES, die_copies
from vision.learning.threshold import learned_threshold
from vision.reading.detect import DetectorParams
from vision.reading.model import BACKGROUND, FaceModel
from vision.synth.scenes import write_dataset


@pytest.mark.timeout(240)  # a hang guard: the first to ask waits for the calibration
def test_dark_dice_on_a_light_tray(dark_dice: tuple[FaceModel, str, Path]) -> None:
    model, _, test = dark_dice  # learned with one label wrong (tests/vision/conftest.py)
    result = evaluate(load_dataset(test), model)
    assert result.f1 >= 0.94  # three photos only: calibration itself warns they are too few
    assert result.accuracy >= 0.94
    assert result.wrong_sure == 0


def test_many_dice_keep_fewer_copies_each() -> None:
    rng = np.random.default_rng(0)
    assert die_copies(10, rng) == list(COPIES)  # few dice: every copy, in order
    dice = 440  # a 12 MP tray: 20 photos of some 22 dice
    drawn = [die_copies(dice, rng) for _ in range(dice)]
    assert all(copies[0] == COPIES[0] for copies in drawn)  # each keeps its own cut
    assert all(len(set(copies)) == len(copies) == len(drawn[0]) for copies in drawn)
    assert MAX_SAMPLES - 4 * dice < 4 * sum(len(c) for c in drawn) <= MAX_SAMPLES
    assert set().union(*drawn) == set(COPIES)  # between them, every kind of copy


@pytest.mark.timeout(240)  # a hang guard: a calibration on a loaded core
def test_a_calibration_past_its_budget_keeps_its_samples_within_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    train = load_dataset(write_dataset(tmp_path / "train", 3, seed=1))
    test = load_dataset(write_dataset(tmp_path / "test", 2, seed=2))
    budget = 4 * train.dice_count * len(COPIES) // 3  # a third of every die's copies
    monkeypatch.setattr(sampling, "MAX_SAMPLES", budget)
    monkeypatch.setattr(  # as if the held-out dice had shown faces that look alike
        "vision.learning.calibrate.learned_threshold",
        lambda *a, **k: max(learned_threshold(*a, **k), 0.35),  # (one calibration, 3 checks)
    )
    # a finder set to keep 2 dice a frame learns to keep twice the most in a photo
    seen: list[tuple[int, int]] = []
    model = calibrate(
        train,
        face_set="budget",
        base=DetectorParams(max_dice=2),
        progress=lambda done, total, what: seen.append((done, total)),
    )
    steps = calibration_steps(len(train.items))  # one by one to the end, as announced
    assert seen == [(k, steps) for k in range(1, steps + 1)]
    faces = int((model.labels != BACKGROUND).sum())
    assert budget - 4 * train.dice_count < faces <= budget
    assert model.params.max_dice == 2 * max(len(item.dice) for item in train.items) > 2
    report = json.loads(model.report)
    assert model.threshold >= 0.35 and report["face_threshold"] == round(model.threshold, 3)
    # a camera straight down: boxes as square as labeled, the learned shape in the report
    assert report["box_aspect"] == round(model.params.box_aspect, 3) == pytest.approx(1, abs=0.08)
    assert report["box_scale"] == round(model.params.box_scale, 3)
    assert report["face_aspect"] == model.params.face_aspect == 1.0  # faces cut as seen
    assert any(
        w.startswith("faces look alike: ") and f"under {model.threshold:.2f} (not 0.12)" in w
        for w in report["warnings"]
    ), report["warnings"]
    result = evaluate(test, model)
    assert result.f1 >= 0.94 and result.accuracy >= 0.94 and result.wrong_sure == 0
