"""Reports: a read's mistakes written as crops (:func:`save_errors`) and calibration
with its own leave-photos-out figures and warnings (:func:`calibrate_with_report`)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.images import write_image
from vision.learning.calibrate import calibrate
from vision.learning.dataset import Dataset
from vision.learning.evaluate import EvalResult, ReadError
from vision.learning.face_channel import EACH_DIES_OWN
from vision.learning.fold_check import CheckProgress, Fold, FoldRunner, plan_folds, run_fold
from vision.learning.progress import Progress, quiet
from vision.reading.detect import DetectorParams
from vision.reading.model import FaceModel
from vision.reading.read import load_scaled


def save_errors(errors: Sequence[ReadError], folder: str | Path, margin: float = 0.5) -> Path:
    """Write each mistake as a crop (``NNNN_kind_truth_read.png``, the box and some of its
    surroundings, the box drawn) and ``errors.json`` listing them with their reasons.
    Returns the folder."""
    from vision.images import read_image

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    listed = []
    cache: dict[Path, NDArray[Any]] = {}
    for n, err in enumerate(errors, start=1):
        if err.image not in cache:
            cache.clear()
            cache[err.image] = read_image(err.image)
        image = cache[err.image]
        x, y, w, h = err.box
        pad = margin * max(w, h)
        x0, y0 = max(0, int(x - pad)), max(0, int(y - pad))
        x1 = min(image.shape[1], int(x + w + pad))
        y1 = min(image.shape[0], int(y + h + pad))
        crop = image[y0:y1, x0:x1].copy()
        colour = {"missed": (0, 0, 255), "false": (255, 0, 255)}.get(err.kind, (0, 190, 255))
        cv2.rectangle(crop, (int(x - x0), int(y - y0)), (int(x + w - x0), int(y + h - y0)),
                      colour, max(1, crop.shape[1] // 150))  # fmt: skip
        name = f"{n:04d}_{err.kind}_{_in_name(err.truth)}_{_in_name(err.read)}.png"
        if crop.size:
            write_image(folder / name, crop)
        listed.append({"file": name} | err.to_json())
    (folder / "errors.json").write_text(json.dumps(listed, indent=2), encoding="utf-8")
    return folder


def _rounded(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 1)


def _times_as(aspect: float) -> str:
    """A width over a height in words: ``1.85 times as tall as wide``."""
    shape = "wide as tall" if aspect > 1.0 else "tall as wide"
    return f"{max(aspect, 1.0 / aspect):.2f} times as {shape}"


@dataclass
class CalibrationReport:
    """What calibration says about itself: leave-photos-out figures and warnings."""

    photos: int
    dice: int
    seconds: float
    cv: EvalResult | None
    folds: int
    warnings: list[str]
    colour: str = EACH_DIES_OWN  # the colour faces are read in (vision.learning.face_channel)
    finders: int = 1  # dice of this many colours, each found by a finder of its own
    face_aspect: float = 1.0  # the top faces' squash, undone where faces are cut (1: none)
    measures_size: bool = False  # photos taken by hand: each read at its measured die size
    pixel_aspect: float = 1.0  # the photos' stretch, undone before reading (1: none)
    # where the photos lie inside the edges they were fitted with (left, top, right,
    # bottom; empty: no edges)
    export_edges: tuple[float, ...] = ()
    grey: bool = False  # the photos are grey: colour frames are read grey
    # when calibration's budget left photos out (vision.learning.photo_budget): the photos
    # and dice learned from, and the budget's photos, dice and die areas; None: every photo
    learned_from: tuple[int, int, int, int, int] | None = None
    # the seconds until the model was calibrated (and written), before its check
    calibrated_seconds: float | None = None

    def to_json(self) -> dict[str, Any]:
        """Plain values (``dice calibrate --json``)."""
        return {
            "photos": self.photos,
            "dice": self.dice,
            "seconds": round(self.seconds, 1),
            "calibrated_seconds": _rounded(self.calibrated_seconds),
            "folds": self.folds,
            "leave_photos_out": self.cv.to_json() if self.cv is not None else None,
            "faces_read_in": self.colour,
            "finders": self.finders,
            "face_aspect": round(self.face_aspect, 3),
            "measures_size": self.measures_size,
            "pixel_aspect": round(self.pixel_aspect, 3),
            "export_edges": [round(v, 4) for v in self.export_edges],
            "grey": self.grey,
            "learned_from": list(self.learned_from) if self.learned_from else None,
            "warnings": list(self.warnings),
        }

    def lines(self) -> list[str]:
        """Human-readable lines for the end of ``dice calibrate``."""
        out = [f"calibrated on {self.photos} photos ({self.dice} dice) in {self.seconds:.1f} s"]
        if self.calibrated_seconds is not None and self.cv is not None:
            out[0] += f" (the model in {self.calibrated_seconds:.1f} s, then its check)"
        if self.learned_from:
            photos, dice, max_photos, max_dice, max_areas = self.learned_from
            out.append(
                f"learned from {photos} of the {self.photos} photos ({dice} of {self.dice} "
                f"dice): past {max_photos} photos, {max_dice} dice or photos the size of "
                f"{max_areas} dice, calibration learns from a seeded choice that shows every "
                "face (more would cost time and memory, not reading); the leave-photos-out "
                "check reads every photo"
            )
        if self.cv is not None:
            j = self.cv.to_json()
            out.append(
                f"leave-photos-out ({self.folds} folds, each photo read by a model that never "
                f"saw it): detection F1 {j['f1']:.4f} (P {j['precision']:.4f}, "
                f"R {j['recall']:.4f}), faces right {j['accuracy']:.2%}, unsure {j['unsure']}, "
                f"wrong above the threshold {j['wrong_above_threshold']}{self.cv.cut_note}"
            )
        if self.colour != EACH_DIES_OWN:
            out.append(
                f"faces read in {self.colour}: it tells your dice's faces apart better than "
                "each die's own colours (the model keeps it)"
            )
        if self.finders > 1:
            out.append(
                f"dice of {self.finders} colours: each colour is found by a finder of its own"
            )
        if self.pixel_aspect != 1.0:
            out.append(
                f"stretched photos: the labeled dice are {_times_as(self.pixel_aspect)}, more "
                "than a camera makes them (resized to another shape, as labelling services "
                "do); each photo is read with square pixels again"
            )
        if self.export_edges:
            x0, y0, x1, y1 = self.export_edges
            out.append(
                f"photos fitted with plain edges: each lies in {x1 - x0:.0%} x {y1 - y0:.0%} "
                "of its photo (as labelling services fit a set into one shape); the camera's "
                "own frames are fitted so before they are read"
            )
        if self.grey:
            out.append(
                "grey photos: the dice are learned without colour (as a labelling service's "
                "grey step leaves them); the camera's colour frames are made grey before they "
                "are read"
            )
        if self.face_aspect != 1.0:
            across = "down" if self.face_aspect > 1.0 else "across"
            out.append(
                f"an oblique camera: the dice's top faces look {_times_as(self.face_aspect)} "
                f"(squashed {across} the photo); faces are read stretched back to square"
            )
        if self.measures_size:
            out.append(
                "photos taken from different distances: each photo is read at its dice's size, "
                "measured in it"
            )
        out.extend(f"warning: {w}" for w in self.warnings)
        return out


def _too_alike(dataset: Dataset) -> str | None:
    """A warning when the photos hardly differ (the same throw again and again)."""
    thumbs = []
    for item in dataset.items:
        image, _ = load_scaled(item.image, DetectorParams(die_frac=0.5))
        gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
        thumbs.append(cv2.resize(gray, (32, 24), interpolation=cv2.INTER_AREA).astype(np.float32))
    if len(thumbs) < 2:
        return None
    diffs = [float(np.abs(a - b).mean()) for i, a in enumerate(thumbs) for b in thumbs[i + 1 :]]
    centres = [(d.cx, d.cy) for item in dataset.items for d in item.dice]
    spread = float(np.std(np.array(centres), axis=0).mean()) if centres else 0.0
    if float(np.median(diffs)) < 1.0 or spread < 0.03:
        return (
            "the photos are nearly alike (the dice in the same places): throw the dice again "
            "between photos, over the whole tray"
        )
    return None


def _learned_from(values: dict[str, int] | None) -> tuple[int, int, int, int, int] | None:
    """:attr:`CalibrationReport.learned_from` from the model's report."""
    if not values or values["photos"] >= values["of_photos"]:
        return None
    keys = ("photos", "dice", "max_photos", "max_dice", "max_die_areas")
    photos, dice, max_photos, max_dice, max_areas = (values[k] for k in keys)
    return photos, dice, max_photos, max_dice, max_areas


def calibrate_with_report(
    dataset: Dataset,
    face_set: str | None = None,
    progress: Progress = quiet,
    folds: int = 3,
    jobs: int = 1,
    written: Callable[[FaceModel, int], object] = lambda model, checks: None,
) -> tuple[FaceModel, CalibrationReport]:
    """Calibrate on every photo, then measure the calibration by leaving photos out
    (``folds`` models, each calibrated without a share of the photos and reading them;
    fewer than 2: not measured), and warn when the photos are too few, too alike, or
    their labels disagree.

    ``written(model, checks)`` is called as soon as the model is calibrated, before its
    ``checks`` folds (the caller writes it: a check stopped leaves a model to read with).
    With ``jobs`` over 1 the folds run in ``jobs - 1`` processes of their own while this
    one calibrates the model. The figures and warnings are also kept in the model file
    (``FaceModel.report``).

    Raises:
        ModelError: as :func:`calibrate`; a fold's process that ended without its figures.
    """
    start = time.perf_counter()
    n = len(dataset.items)
    can_cv = folds >= 2 and n >= 2 * folds
    plan = plan_folds(dataset, folds)
    shares = CheckProgress(progress, dataset, plan, folds)
    runner = FoldRunner(min(jobs - 1, len(plan)), shares.of_fold) if jobs > 1 and plan else None
    threads = cv2.getNumThreads()
    if runner:
        cv2.setNumThreads(1)  # a core each: this process's calibration and each fold's
    ended = False  # (else the folds still running are stopped: the model failed)
    try:
        if runner:
            runner.start(dataset, face_set, plan)
        model = calibrate(dataset, face_set=face_set, progress=shares.part(0))
        calibrated = time.perf_counter() - start
        written(model, len(plan))

        def here(fold: Fold) -> EvalResult | None:
            return run_fold(dataset, face_set, fold, shares.part(fold.number))

        read = runner.results(plan, here) if runner else [here(f) for f in plan]
        ended = True
    finally:
        if runner:
            runner.close(stop=not ended)
            cv2.setNumThreads(threads)
    shares.finish("checked" if plan else "calibrated")
    cv: EvalResult | None = None
    for result in read:
        if result is not None:
            cv = cv or EvalResult(dataset.names)
            cv.add(result)
    checked = sum(result is not None for result in read)
    saved = json.loads(model.report) if model.report else {}
    warnings = list(saved.get("warnings", []))
    alike = _too_alike(dataset)
    if alike:
        warnings.append(alike)
    if folds >= 2 and not can_cv:  # fewer folds: the caller did not ask for the measure
        warnings.append(
            f"too few photos ({n}) to measure the calibration on photos it did not see: "
            f"give {2 * folds} or more"
        )
    elif can_cv and cv is None:
        warnings.append(
            "each face is shown in too few photos to measure the calibration on photos it did "
            "not see (leaving a third of them out leaves some face unlearned): give every "
            "face in several photos"
        )
    elif cv is not None and (cv.f1 < 0.98 or cv.whole_accuracy < 0.98):
        warnings.append(
            "on photos it did not see, this calibration misses or misreads dice: add photos "
            "(every face several times, in the table's own light); `dice eval --errors DIR` "
            "shows which"
        )
    report = CalibrationReport(
        photos=n,
        dice=dataset.dice_count,
        seconds=time.perf_counter() - start,
        calibrated_seconds=calibrated,
        cv=cv,
        folds=checked,
        warnings=warnings,
        colour=saved.get("face_channel", {}).get("chosen", EACH_DIES_OWN),
        finders=int(saved.get("finders", 1)),
        face_aspect=float(saved.get("face_aspect", 1.0)),
        pixel_aspect=float(saved.get("pixel_aspect", 1.0)),
        export_edges=tuple(float(v) for v in saved.get("export_edges", [])),
        grey=bool(saved.get("grey", False)),
        measures_size=bool(saved.get("photo_scale", {}).get("measured", False)),
        learned_from=_learned_from(saved.get("learned_from")),
    )
    model.report = json.dumps(saved | {"calibration": report.to_json()})
    return model, report


def _in_name(face: str | None) -> str:
    """A face's name as a part of a file name: the data.yaml's names may hold any text (a
    ``/``, a character the file system refuses), and at most 40 characters are kept."""
    if not face:
        return "none"
    kept = "".join(c if c.isalnum() or c in "-+" else "_" for c in face)
    return kept[:40] or "face"
