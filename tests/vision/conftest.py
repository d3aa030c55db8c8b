"""Vision's shared fixtures: each calibrated model is made once per test session (and
once for all of pytest-xdist's workers, which otherwise make a session fixture each).

Calibration is the slow path of vision (tens of seconds on two cores): a test that
needs a calibrated model takes one of these instead of calibrating again; a test
that checks what a calibration says about its own photos calibrates those.
"""

from __future__ import annotations

import fcntl
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import cv2
import pytest

from tests.paths import REPO
from vision.learning.calibrate import calibrate
from vision.learning.dataset import Dataset, load_dataset
from vision.learning.defaults import default_model
from vision.learning.report import CalibrationReport, calibrate_with_report
from vision.reading.model import FaceModel
from vision.synth.scenes import stress_settings, write_dataset

T = TypeVar("T")


def made_once(
    factory: pytest.TempPathFactory, worker_id: str, name: str, make: Callable[[], T]
) -> T:
    """``make()``'s result, made by the first xdist worker that asks and read back (pickled)
    by the others of the same run; without xdist, made here."""
    if worker_id == "master":
        return make()
    shared = factory.getbasetemp().parent  # this run's folder, above every worker's own
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        done = shared / f"{name}.pickle"
        if not done.is_file():
            done.write_bytes(pickle.dumps(make()))
        loaded: T = pickle.loads(done.read_bytes())
        return loaded


@pytest.fixture(scope="session")
def model() -> FaceModel:
    """The shipped synthetic model (:func:`~vision.learning.defaults.default_model`),
    loaded once."""
    return default_model()


@pytest.fixture(scope="session")
def stress_photos(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Three training and two test frames of dice in random colours on a random tray."""
    root = tmp_path_factory.mktemp("stress")
    settings = stress_settings(3)
    train = write_dataset(root / "train", 3, seed=1, settings=settings)
    test = write_dataset(root / "test", 2, seed=2, settings=settings)
    return train, test


@pytest.fixture(scope="session")
def stress_calibration(
    stress_photos: tuple[Path, Path], tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> tuple[FaceModel, CalibrationReport]:
    """The stress training frames calibrated as ``toptable dice calibrate`` does, with its
    report (three photos: too few for its leave-photos-out check, so one calibration).
    Every worker renders the same photos (seeded); one of them calibrates."""
    return made_once(
        tmp_path_factory,
        worker_id,
        "stress-calibration",
        lambda: calibrate_with_report(load_dataset(stress_photos[0]), face_set="stress", folds=3),
    )


@pytest.fixture(scope="session")
def pi_tray() -> Dataset:
    """The 20 Raspberry Pi camera photos of ../shared/datasets/pi-tray."""
    root = REPO.parent / "shared" / "datasets" / "pi-tray"
    if not root.is_dir():
        pytest.skip(f"{root} is absent: the shared datasets sit beside the checkout in CI")
    return load_dataset(root)


PI_TRAY_HELD_OUT = tuple(range(0, 20, 4))
"""The pi-tray photos :func:`pi_tray_model` never saw (every fourth)."""


@pytest.fixture(scope="session")
def pi_tray_model(
    pi_tray: Dataset, tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> FaceModel:
    """A model calibrated on 15 pi-tray photos, all but :data:`PI_TRAY_HELD_OUT` (by one
    xdist worker for all)."""
    train = [i for i in range(len(pi_tray.items)) if i not in PI_TRAY_HELD_OUT]
    return made_once(
        tmp_path_factory,
        worker_id,
        "pi-tray-model",
        lambda: calibrate(pi_tray.subset(train), face_set="pi-tray"),
    )


def _negative_dataset(root: Path, images: int, seed: int) -> Path:
    """Synthetic dice turned into their negative: dark dice, light symbols, light tray."""
    out = write_dataset(root, images, seed=seed, hard=True)
    for path in (out / "images").glob("*.png"):
        cv2.imwrite(str(path), 255 - cv2.imread(str(path)))
    return out


@pytest.fixture(scope="session")
def dark_dice(
    tmp_path_factory: pytest.TempPathFactory, worker_id: str
) -> tuple[FaceModel, str, Path]:
    """Three photos of dark dice on a light tray, the first die of the first photo labeled
    as another face, calibrated (by one xdist worker for all): the model, the mislabeled
    label file's name, and three more such photos (labeled right) to read.

    One calibration for two behaviours: dark dice are learned (tests/vision/test_calibrate.py)
    and a label mistake is named (test_learned.py); an owner's photos may have both.
    """

    def make() -> tuple[FaceModel, str, Path]:
        root = tmp_path_factory.mktemp("dark-dice")
        train = _negative_dataset(root / "train", 3, seed=1)
        label = sorted((train / "labels").iterdir())[0]
        lines = label.read_text().splitlines()
        cls, rest = lines[0].split(" ", 1)
        lines[0] = f"{(int(cls) + 3) % 6} {rest}"
        label.write_text("\n".join(lines) + "\n")
        model = calibrate(load_dataset(train), face_set="negative")
        return model, label.name, _negative_dataset(root / "test", 3, seed=2)

    return made_once(tmp_path_factory, worker_id, "dark-dice", make)
