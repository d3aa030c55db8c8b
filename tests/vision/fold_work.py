"""A fold's work for tests/vision/test_fold_check.py: found by its module's name in the
processes the folds run in."""

from __future__ import annotations

import os
import time

import cv2

from vision.learning.dataset import Dataset
from vision.learning.evaluate import EvalResult
from vision.learning.fold_check import Fold
from vision.learning.progress import Progress


def one_step_a_photo(
    dataset: Dataset, face_set: str | None, fold: Fold, progress: Progress
) -> EvalResult:
    """A step for each training photo (named), then one saying this process's id and
    OpenCV's threads; the fold's test photos counted as read."""
    steps = len(fold.train) + 1
    for k, i in enumerate(fold.train, start=1):
        progress(k, steps, dataset.items[i].image.name)
    progress(steps, steps, f"{os.getpid()} {cv2.getNumThreads()}")
    return EvalResult(dataset.names, images=len(fold.test))


def stuck(dataset: Dataset, face_set: str | None, fold: Fold, progress: Progress) -> None:
    """A fold that says it started (and its process's id), then never ends (a calibration's
    minutes, and more)."""
    progress(1, 2, f"started {os.getpid()}")
    time.sleep(3600)


def a_while(dataset: Dataset, face_set: str | None, fold: Fold, progress: Progress) -> EvalResult:
    """A fold that says it started, takes three seconds, and counts its test photos read."""
    progress(1, 2, "started")
    time.sleep(3)
    return EvalResult(dataset.names, images=len(fold.test))
