"""The default face model: the synthetic Tournament of Power dice.

``models/top-synthetic.npz`` (about 6 MB) is calibrated on 12 hard synthetic
frames (72 dice, seed 1) by :func:`train_synthetic_model` (the same calibration an
owner runs on photos: learned finder and face samples); it is seeded, so
``toptable dice calibrate --synthetic --out vision/models/top-synthetic.npz``
rebuilds it (the finder's weights equal up to floating-point rounding, ~1e-7).
Real dice need their own calibration.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.progress import Progress, quiet
from vision.reading.model import FaceModel, load_model
from vision.synth.scenes import write_dataset

DEFAULT_MODEL = Path(__file__).resolve().parents[1] / "models" / "top-synthetic.npz"
SYNTHETIC_FACE_SET = "top-synthetic"


def train_synthetic_model(images: int = 12, seed: int = 1, progress: Progress = quiet) -> FaceModel:
    """Calibrate a model on ``images`` freshly rendered hard synthetic frames."""
    with tempfile.TemporaryDirectory(prefix="toptable-synth-") as tmp:
        root = write_dataset(Path(tmp) / SYNTHETIC_FACE_SET, images, seed=seed, hard=True)
        return calibrate(load_dataset(root), face_set=SYNTHETIC_FACE_SET, progress=progress)


def default_model() -> FaceModel:
    """The shipped synthetic model, or one trained now if the file is absent.

    Raises:
        ModelError: the shipped file exists but is unreadable.
    """
    if DEFAULT_MODEL.is_file():
        return load_model(DEFAULT_MODEL)
    return train_synthetic_model()
