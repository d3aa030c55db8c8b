"""Calibration (learning a face set from a labeled dataset) and evaluation.

Calibration: the die size comes from the labeled boxes; the die finder runs on
every photo, each found die that overlaps a labeled box (IoU >= 0.5) gives a
face sample (in its four quarter turns); the model stores them
(:mod:`vision.model`). Evaluation reads every photo with a model and compares
with the labels: a detection counts when its IoU with a labeled box is >= 0.5.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np

from vision.dataset import Dataset, LabeledImage
from vision.detect import Box, DetectorParams, detect, iou
from vision.errors import ModelError
from vision.features import cut_patch, features, quarter_turns
from vision.model import DEFAULT_THRESHOLD, FaceModel, train
from vision.read import DiceRead, image_size, load_scaled, read_frame

Progress = Callable[[int, int, str], None]

MATCH_IOU = 0.5
# each calibration die is also stored slightly turned and zoomed (degrees, scale)
JITTER: tuple[tuple[float, float], ...] = ((0.0, 1.0), (6.0, 1.0), (-6.0, 1.0), (0.0, 1.08))


def quiet(done: int, total: int, what: str) -> None:
    """A progress callback that says nothing."""


def match(labeled: Sequence[Box], found: Sequence[Box]) -> list[tuple[int, int]]:
    """Greedy one-to-one matching of boxes with IoU >= 0.5, best pairs first."""
    pairs = sorted(
        ((iou(a, b), i, j) for i, a in enumerate(labeled) for j, b in enumerate(found)),
        reverse=True,
    )
    used_i: set[int] = set()
    used_j: set[int] = set()
    out = []
    for score, i, j in pairs:
        if score < MATCH_IOU:
            break
        if i in used_i or j in used_j:
            continue
        used_i.add(i)
        used_j.add(j)
        out.append((i, j))
    return out


def _boxes(item: LabeledImage, width: int, height: int) -> list[Box]:
    return [d.box_px(width, height) for d in item.dice]


def _scaled(box: Box, factor: float) -> Box:
    return (box[0] * factor, box[1] * factor, box[2] * factor, box[3] * factor)


def die_frac_from_labels(dataset: Dataset) -> float:
    """The median die side over image width, from the labeled boxes.

    The image aspect ratio (to turn normalised boxes into square sides) is read
    from the first photo; a dataset's photos are assumed to share it.

    Raises:
        ModelError: the dataset holds no labeled die.
        ImageReadError: the first photo cannot be read.
    """
    items = [item for item in dataset.items if item.dice]
    if not items:
        raise ModelError(f"{dataset.root}: no labeled die to calibrate from")
    width, height = image_size(items[0].image)
    aspect = height / width
    sides = [float(np.sqrt(d.w * d.h * aspect)) for item in items for d in item.dice]
    return float(np.median(sides))


def _choose_polarity(dataset: Dataset, params: DetectorParams, probe: int = 3) -> DetectorParams:
    """Light dice on a dark tray, or dark dice on a light one: whichever finds more
    labeled dice in the first ``probe`` photos (light wins a tie)."""
    found_by: dict[str, int] = {}
    for polarity in ("light", "dark"):
        trial = replace(params, dice=polarity)
        hits = 0
        for item in dataset.items[:probe]:
            image, factor = load_scaled(item.image, trial)
            h, w = image.shape[:2]
            labeled = _boxes(item, round(w * factor), round(h * factor))
            found = [_scaled(d.box, factor) for d in detect(image, trial).detections]
            hits += len(match(labeled, found))
        found_by[polarity] = hits
    return replace(params, dice="dark" if found_by["dark"] > found_by["light"] else "light")


def calibrate(
    dataset: Dataset,
    face_set: str | None = None,
    progress: Progress = quiet,
    base: DetectorParams | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> FaceModel:
    """Learn a face model from a labeled dataset; ``progress(done, total, what)`` is called.

    Without ``base`` settings, light dice on a dark tray or dark dice on a light
    one is chosen from the first photos. Two passes over the photos (each
    decoded again, so memory stays flat): the first measures a lone die's area
    as the finder sees it, the second cuts the face samples with that area known.

    Raises:
        ModelError: no die could be matched, or a face has no sample.
        ImageReadError: a photo cannot be decoded.
    """
    params = replace(base or DetectorParams(), die_frac=die_frac_from_labels(dataset))
    if base is None:
        params = _choose_polarity(dataset, params)
    total = len(dataset.items)
    areas: list[float] = []
    for n, item in enumerate(dataset.items, start=1):
        image, factor = load_scaled(item.image, params)
        h, w = image.shape[:2]
        result = detect(image, params)
        labeled = _boxes(item, round(w * factor), round(h * factor))
        found = [_scaled(d.box, factor) for d in result.detections]
        for _, j in match(labeled, found):
            areas.append(result.detections[j].area_ratio * params.die_area)
        progress(n, 2 * total, f"sizing {item.image.name}")
    if not areas:
        raise ModelError(f"{dataset.root}: no labeled die was found by the die finder")
    params = replace(params, die_area=float(np.median(areas)))
    feats: list[np.ndarray] = []
    labels: list[int] = []
    groups: list[int] = []  # which die each sample comes from
    for n, item in enumerate(dataset.items, start=total + 1):
        image, factor = load_scaled(item.image, params)
        h, w = image.shape[:2]
        result = detect(image, params)
        labeled = _boxes(item, round(w * factor), round(h * factor))
        found = [_scaled(d.box, factor) for d in result.detections]
        gray = cv2.cvtColor(result.work, cv2.COLOR_BGR2GRAY)
        for i, j in match(labeled, found):
            die_id = len(groups) and groups[-1] + 1
            (cx, cy), (rw, rh), angle = result.detections[j].rect
            for d_angle, zoom in JITTER:
                rect = ((cx, cy), (rw * zoom, rh * zoom), angle + d_angle)
                for turned in quarter_turns(cut_patch(gray, rect)):
                    feats.append(features(turned))
                    labels.append(item.dice[i].cls)
                    groups.append(die_id)
        progress(n, 2 * total, f"learning {item.image.name}")
    name = face_set or dataset.root.name
    return train(
        name, dataset.names, np.stack(feats), np.array(labels), params, threshold, np.array(groups)
    )


@dataclass
class EvalResult:
    """Detection and face-reading figures over a set of labeled images."""

    names: tuple[str, ...]
    images: int = 0
    dice: int = 0
    detected: int = 0
    matched: int = 0
    correct: int = 0
    unsure: int = 0
    wrong_sure: int = 0
    ms_total: float = 0.0
    confusion: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.confusion = np.zeros((len(self.names), len(self.names)), dtype=np.int64)

    def add(self, other: EvalResult) -> None:
        """Accumulate another result of the same face set."""
        for f in ("images", "dice", "detected", "matched", "correct", "unsure", "wrong_sure"):
            setattr(self, f, getattr(self, f) + getattr(other, f))
        self.ms_total += other.ms_total
        self.confusion += other.confusion

    @property
    def precision(self) -> float:
        """Matched detections over all detections."""
        return self.matched / self.detected if self.detected else 0.0

    @property
    def recall(self) -> float:
        """Matched labeled dice over all labeled dice."""
        return self.matched / self.dice if self.dice else 0.0

    @property
    def f1(self) -> float:
        """Harmonic mean of precision and recall."""
        p, r = self.precision, self.recall
        return 2 * p * r / (p + r) if p + r else 0.0

    @property
    def accuracy(self) -> float:
        """Faces read right among matched dice (a cocked die counts as wrong)."""
        return self.correct / self.matched if self.matched else 0.0

    def to_json(self) -> dict[str, Any]:
        """The ``dice eval --json`` document."""
        return {
            "images": self.images,
            "dice": self.dice,
            "detected": self.detected,
            "precision": round(self.precision, 4),
            "recall": round(self.recall, 4),
            "accuracy": round(self.accuracy, 4),
            "f1": round(self.f1, 4),
            "ms_per_image": round(self.ms_total / self.images, 2) if self.images else 0.0,
            "unsure": self.unsure,
            "wrong_above_threshold": self.wrong_sure,
            "confusion": {
                "labels": list(self.names),
                "rows_true_cols_read": self.confusion.tolist(),
            },
        }


def score_read(
    read: DiceRead, labeled: Sequence[tuple[int, Box]], names: Sequence[str]
) -> EvalResult:
    """Compare one read with its labels (face index, box in the read's pixels)."""
    res = EvalResult(tuple(names), images=1, dice=len(labeled), detected=len(read.dice))
    res.ms_total = read.ms
    index = {n: i for i, n in enumerate(names)}
    for i, j in match([b for _, b in labeled], [d.box for d in read.dice]):
        die = read.dice[j]
        truth = labeled[i][0]
        res.matched += 1
        guess = index[die.guess]
        res.confusion[truth, guess] += 1
        right = guess == truth and not die.cocked
        res.correct += int(right)
        res.unsure += int(die.unsure or die.cocked)
        res.wrong_sure += int(not right and not (die.unsure or die.cocked))
    return res


def evaluate(dataset: Dataset, model: FaceModel, progress: Progress = quiet) -> EvalResult:
    """Read every labeled image with ``model`` and score it.

    Raises:
        ModelError: the model is for another face set.
        ImageReadError: a photo cannot be decoded.
    """
    model.check_face_set(dataset.names, str(dataset.root))
    total = EvalResult(dataset.names)
    for n, item in enumerate(dataset.items, start=1):
        start = time.perf_counter()
        image, factor = load_scaled(item.image, model)
        read = read_frame(image, model, factor=factor)
        read = replace(read, ms=(time.perf_counter() - start) * 1000.0)
        w, h = read.size
        labeled = [(d.cls, d.box_px(w, h)) for d in item.dice]
        total.add(score_read(read, labeled, dataset.names))
        progress(n, len(dataset.items), item.image.name)
    return total


def cross_validate(
    dataset: Dataset, folds: int = 4, progress: Progress = quiet
) -> tuple[EvalResult, list[float]]:
    """Leave-images-out cross-validation: each fold's photos are read by a model
    calibrated on the other photos only. Returns the pooled result and each
    fold's calibration time in seconds.

    Raises:
        ModelError: a fold's training photos lack a face.
    """
    n = len(dataset.items)
    folds = max(2, min(folds, n))
    pooled = EvalResult(dataset.names)
    times = []
    for k in range(folds):
        test = [i for i in range(n) if i % folds == k]
        trainset = [i for i in range(n) if i % folds != k]
        start = time.perf_counter()
        model = calibrate(dataset.subset(trainset), face_set=dataset.root.name)
        times.append(time.perf_counter() - start)
        pooled.add(evaluate(dataset.subset(test), model))
        progress(k + 1, folds, f"fold {k + 1}")
    return pooled, times
