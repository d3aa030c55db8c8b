"""Evaluation: reading labeled photos with a model and scoring the reads against the labels.

A detection counts when its IoU with a labeled box is >= 0.5 (:func:`match`);
:class:`EvalResult` holds the figures, :class:`ReadError` one mistake with its
reason; :func:`evaluate` reads a dataset, :func:`cross_validate` reads each photo
with a model calibrated without it.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.learning.calibrate import calibrate
from vision.learning.dataset import Dataset
from vision.learning.progress import Progress, quiet
from vision.reading.box_fit import Box, iou
from vision.reading.model import FaceModel
from vision.reading.read import DiceRead, load_scaled, read_frame

MATCH_IOU = 0.5


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
    warned: int = 0  # images whose read said the reader was out of its depth
    cut: int = 0  # matched dice read cut by the frame's edge (their faces seen in part)
    cut_correct: int = 0  # of those, read right
    ms_total: float = 0.0
    confusion: NDArray[Any] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.confusion = np.zeros((len(self.names), len(self.names)), dtype=np.int64)

    def add(self, other: EvalResult) -> None:
        """Accumulate another result of the same face set."""
        for f in ("images", "dice", "detected", "matched", "correct", "unsure", "wrong_sure",
                  "warned", "cut", "cut_correct"):  # fmt: skip
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

    @property
    def whole_accuracy(self) -> float:
        """Faces read right among matched dice whole in the frame (what more photos mend)."""
        whole = self.matched - self.cut
        return (self.correct - self.cut_correct) / whole if whole else 0.0

    @property
    def cut_note(self) -> str:
        """A clause on the matched dice cut by the frame's edge ("" when none was)."""
        if not self.cut:
            return ""
        return (
            f" ({self.cut} of the dice cut by the photo's edge, read in part and asked: "
            f"{self.cut_correct} right)"
        )

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
            "warned_images": self.warned,
            "cut_by_edge": {"matched": self.cut, "right": self.cut_correct},
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
    res.warned = int(bool(read.warnings))
    index = {n: i for i, n in enumerate(names)}
    for i, j in match([b for _, b in labeled], [d.box for d in read.dice]):
        die = read.dice[j]
        truth = labeled[i][0]
        res.matched += 1
        guess = index[die.guess]
        res.confusion[truth, guess] += 1
        right = guess == truth and not die.cocked
        res.correct += int(right)
        res.cut += int(die.cut)
        res.cut_correct += int(right and die.cut)
        res.unsure += int(die.unsure or die.cocked)
        res.wrong_sure += int(not right and not (die.unsure or die.cocked))
    return res


@dataclass(frozen=True)
class ReadError:
    """One mistake of a read against the labels: a missed die, a false detection, a misread."""

    kind: str  # "missed", "false", "misread", "cocked", "unsure"
    image: Path
    box: Box  # in the image's pixels
    truth: str | None
    read: str | None
    confidence: float
    reason: str

    def to_json(self) -> dict[str, Any]:
        """Plain values."""
        return {
            "kind": self.kind,
            "image": str(self.image),
            "box": [round(v, 1) for v in self.box],
            "truth": self.truth,
            "read": self.read,
            "confidence": self.confidence,
            "reason": self.reason,
        }


def read_errors(
    read: DiceRead, labeled: Sequence[tuple[int, Box]], names: Sequence[str], image: Path
) -> list[ReadError]:
    """The mistakes of one read: labeled dice not found, detections of no labeled die,
    faces read wrong (and dice flagged cocked or unsure), each with its reason."""
    out: list[ReadError] = []
    pairs = match([b for _, b in labeled], [d.box for d in read.dice])
    hit_i = {i for i, _ in pairs}
    hit_j = {j for _, j in pairs}
    for i, (cls, box) in enumerate(labeled):
        if i not in hit_i:
            best = max((iou(box, d.box) for d in read.dice), default=0.0)
            why = (
                f"found with a misplaced box (IoU {best:.2f} < {MATCH_IOU})"
                if best > 0.1
                else "not found: the finder's score stayed under its threshold, or the "
                "face classifier took it for background"
            )
            out.append(ReadError("missed", image, box, names[cls], None, 0.0, why))
    for j, die in enumerate(read.dice):
        if j not in hit_j:
            out.append(
                ReadError(
                    "false",
                    image,
                    die.box,
                    None,
                    die.guess,
                    die.confidence,
                    "a detection that matches no labeled die",
                )
            )
    for i, j in pairs:
        die = read.dice[j]
        truth = names[labeled[i][0]]
        if die.cocked:
            out.append(ReadError("cocked", image, die.box, truth, die.guess, die.confidence,
                                 "outline not square: flagged cocked (leaning)"))  # fmt: skip
        elif die.guess != truth:
            kind = "unsure" if die.unsure else "misread"
            why = (
                f"read {die.guess!r} in part, cut by the frame's edge (flagged unsure)"
                if die.cut
                else f"read {die.guess!r} below the confidence threshold (flagged unsure)"
                if die.unsure
                else f"read {die.guess!r} with confidence {die.confidence:.2f}, above the threshold"
            )
            out.append(ReadError(kind, image, die.box, truth, die.guess, die.confidence, why))
    return out


def evaluate(
    dataset: Dataset,
    model: FaceModel,
    progress: Progress = quiet,
    errors: list[ReadError] | None = None,
    die_scale: float | None = None,
) -> EvalResult:
    """Read every labeled image with ``model`` and score it; the mistakes are appended
    to ``errors`` when a list is given (see :func:`save_errors`); ``die_scale`` as for
    :func:`vision.reading.read.read_frame`.

    Raises:
        ModelError: the model is for another face set.
        ImageReadError: a photo cannot be decoded.
    """
    model.check_face_set(dataset.names, str(dataset.root))
    total = EvalResult(dataset.names)
    for n, item in enumerate(dataset.items, start=1):
        start = time.perf_counter()
        image, factor = load_scaled(item.image, model)
        read = read_frame(image, model, factor=factor, die_scale=die_scale)
        read = replace(read, ms=(time.perf_counter() - start) * 1000.0)
        w, h = read.size
        labeled = [(d.cls, d.box_px(w, h)) for d in item.dice]
        total.add(score_read(read, labeled, dataset.names))
        if errors is not None:
            errors.extend(read_errors(read, labeled, dataset.names, item.image))
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
