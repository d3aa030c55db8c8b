"""``toptable dice calibrate``: the model is written before its leave-photos-out check, and a
check stopped (Ctrl-C) keeps it (the calibration itself replaced by the shipped model: the
order is what is tested here; tests/cli/test_dice.py calibrates for real)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from controller.cli.main import main
from vision.learning import report
from vision.learning.dataset import Dataset
from vision.learning.defaults import default_model
from vision.learning.evaluate import EvalResult
from vision.learning.fold_check import Fold
from vision.reading.model import FaceModel, load_model
from vision.synth.scenes import write_dataset


@pytest.fixture
def six(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "six", 6, seed=3, per_image=6)


@pytest.fixture
def calibrated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FaceModel:
    """Calibration gives a copy of the shipped model at once."""
    copy = load_model(default_model().save(tmp_path / "shipped" / "model.npz"))
    monkeypatch.setattr(report, "calibrate", lambda *args, **kwargs: copy)
    return copy


def test_a_check_stopped_keeps_the_model_written(
    six: Path,
    tmp_path: Path,
    calibrated: FaceModel,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "mine.npz"

    def stopped(dataset: Dataset, face_set: str | None, fold: Fold, progress: object) -> None:
        assert out.is_file()  # written before any fold
        raise KeyboardInterrupt

    monkeypatch.setattr(report, "run_fold", stopped)
    assert main(["dice", "calibrate", str(six), "--out", str(out), "--jobs", "1"]) == 130
    err = capsys.readouterr().err
    assert f"wrote {out}; checking it on photos it did not see" in err
    assert "Ctrl-C stops the check and keeps the model" in err
    kept = load_model(out)
    assert np.array_equal(kept.samples, calibrated.samples)
    assert not list(tmp_path.glob("*.part*"))


def test_the_checked_model_is_written_again_with_its_figures(
    six: Path,
    tmp_path: Path,
    calibrated: FaceModel,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "mine.npz"
    seen: list[str | None] = []

    def read(dataset: Dataset, face_set: str | None, fold: Fold, progress: object) -> EvalResult:
        seen.append(load_model(out).report)  # the model as written before the check
        return EvalResult(dataset.names, images=len(fold.test), dice=6, detected=6, matched=6)

    monkeypatch.setattr(report, "run_fold", read)
    assert main(["dice", "calibrate", str(six), "--out", str(out), "--jobs", "1", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(seen) == 3 and all("leave_photos_out" not in (r or "") for r in seen)
    assert doc["folds"] == 3 and doc["leave_photos_out"]["images"] == 6
    assert 0 <= doc["calibrated_seconds"] <= doc["seconds"]
    saved = json.loads(load_model(out).report or "{}")
    assert saved["calibration"]["leave_photos_out"]["images"] == 6
