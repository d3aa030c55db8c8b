"""``toptable bench dice``: the dice-reading figures the issue asks for.

Every figure reads photos the model never saw, calibrated exactly as an owner
would (``calibrate`` on labeled photos, default settings, no change of code):

1. ``pi-tray``: calibrate on 14 photos, read the other 6; and 4-fold
   leave-photos-out cross-validation (every photo read once by a model that
   never saw it).
2. ``catan-webcam``: calibrate on ``train/`` (one day), read ``valid/`` (another day);
   and the same with both stretched to 640x640, as labelling services export a set.
3. Shifted conditions, calibrated on the originals: the test photos of 1. and 2.
   darker and warmer, the camera tilted 12 degrees (a homography of a camera
   turned about its horizontal axis), turned a quarter turn, saved as a poor
   JPEG (quality 12); labels moved with the pixels.
4. Synthetic stress: random tables (one to three dice colours, light or dark, any
   tray and table colour, wood grain, hard light); for each, a model calibrated
   on 12 frames reads frames of new throws: 10,000 dice in all.
5. Strangers (``--strangers N``): N generated dice sets on generated tables
   (:mod:`vision.synth.strangers`), each calibrated on 20 of its photos and reading
   50 new ones, with the same code and settings for every one; the median and the
   worst over them, beside the two shared real sets.
6. Costs against their targets (:mod:`.dice_costs`): reading a settled 1280x960
   frame (the pi-tray photos as camera frames) and a 12-megapixel JPEG on one core, the
   model file's size, the reader's resident memory; and a stranger photographed by a
   12-megapixel phone (``--phone`` for it alone): calibration on 20 of its photos on one
   core, its photos read at 12 MP and at 1280x960, its model's size and memory.
7. Leaning dice (:mod:`.dice_leaning`; ``--leaning N`` for it alone): 10 strangers
   calibrated on their flat dice read photos where about a third of the dice lean: how
   many are flagged cocked, asked about, or read as a face.
8. Dice left without a label (:mod:`.dice_unlabelled`; ``--unlabelled N`` for it alone):
   5 strangers calibrated as labelled and with three label lines taken out: the dice
   calibration names, its false alarms, and both calibrations' reads of new photos.
9. Photos taken by hand (:mod:`.dice_handheld`; ``--handheld N`` for it alone): 10
   strangers whose dice change size from photo to photo, read at the learned size and
   at the size found in each photo.
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import multiprocessing
import os
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from controller.bench.dice_costs import (
    bench_networks,
    bench_phone,
    bench_size_memory,
    bench_speed,
)
from controller.bench.dice_handheld import bench_handheld
from controller.bench.dice_leaning import bench_leaning
from controller.bench.dice_runs import STRANGER_RUNS
from controller.bench.dice_unlabelled import bench_unlabelled
from vision.errors import ModelError
from vision.images import read_image
from vision.learning.calibrate import calibrate
from vision.learning.dataset import Dataset, load_dataset
from vision.learning.evaluate import EvalResult, cross_validate, evaluate, score_read
from vision.learning.face_channel import EACH_DIES_OWN
from vision.reading.model import FaceModel
from vision.reading.read import read_frame
from vision.synth.scenes import Renderer, stress_settings, write_dataset
from vision.synth.strangers import stranger, write_stranger

SHARED = Path(__file__).resolve().parents[3] / "shared" / "datasets"

Transform = Callable[[NDArray[Any]], tuple[NDArray[Any], NDArray[Any] | None]]


def _line(label: str, result: EvalResult) -> str:
    j = result.to_json()
    return (
        f"{label}: {j['images']} photos, {j['dice']} dice: detection F1 {j['f1']:.4f} "
        f"(P {j['precision']:.4f}, R {j['recall']:.4f}), face accuracy {j['accuracy']:.2%}, "
        f"unsure {j['unsure']}, wrong above threshold {j['wrong_above_threshold']}, "
        f"out of depth {j['warned_images']} photos"
    )


def _timed_calibrate(dataset: Dataset) -> tuple[FaceModel, float]:
    """Calibrate; the seconds are this process's CPU time (fair beside parallel jobs)."""
    start = time.process_time()
    model = calibrate(dataset, face_set=dataset.root.name)
    return model, time.process_time() - start


# --- shifted conditions ---------------------------------------------------------------


def _darker_warmer(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    lit = image.astype(np.float32) * np.array([0.38, 0.55, 0.75], np.float32)
    return np.clip(lit, 0, 255).astype(np.uint8), None


def _tilt_matrix(width: int, height: int, degrees: float = 12.0) -> NDArray[Any]:
    f = float(width)
    k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], np.float64)
    t = math.radians(degrees)
    r = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    h = k @ r @ np.linalg.inv(k)
    h = h / h[2, 2]
    # re-aimed at the same centre: the keystone of a tilted camera, not a shifted view
    c = h @ np.array([width / 2, height / 2, 1.0])
    shift = np.array([[1, 0, width / 2 - c[0] / c[2]], [0, 1, height / 2 - c[1] / c[2]], [0, 0, 1]])
    return np.asarray(shift @ h)


def _tilted(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    h, w = image.shape[:2]
    m = _tilt_matrix(w, h)
    fill = tuple(float(v) for v in np.median(image.reshape(-1, 3), axis=0))
    out = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=fill)  # fmt: skip
    return out, m


def _quarter_turn(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    h, _w = image.shape[:2]
    out = np.ascontiguousarray(np.rot90(image, -1))  # clockwise: (x, y) -> (h - 1 - y, x)
    m = np.array([[0, -1, h - 1], [1, 0, 0], [0, 0, 1]], np.float64)
    return out, m


def _poor_jpeg(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 12])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return (decoded if decoded is not None else image), None


EXPORT_SIDE = 640  # Roboflow's "Stretch to 640x640", a common default of public sets


def stretched_square(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """``image`` resized to ``EXPORT_SIDE`` square without keeping its shape, as labelling
    services export a set; the matrix moving its boxes."""
    h, w = image.shape[:2]
    out = cv2.resize(image, (EXPORT_SIDE, EXPORT_SIDE), interpolation=cv2.INTER_AREA)
    return out, np.diag([EXPORT_SIDE / w, EXPORT_SIDE / h, 1.0])


# Roboflow's "Fit (black edges) in ...": at 640 catan's 40 px dice would shrink to 13 px,
# so its photos are fitted into a square of their own width
FIT_SIDE = 1920


def fitted_square(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """``image`` fitted into a ``FIT_SIDE`` square with black edges (its shape kept), as
    labelling services can export a set; the matrix moving its boxes."""
    h, w = image.shape[:2]
    k = FIT_SIDE / max(w, h)
    cw, ch = round(w * k), round(h * k)
    x0, y0 = (FIT_SIDE - cw) // 2, (FIT_SIDE - ch) // 2
    out = np.zeros((FIT_SIDE, FIT_SIDE, 3), np.uint8)
    out[y0 : y0 + ch, x0 : x0 + cw] = cv2.resize(image, (cw, ch), interpolation=cv2.INTER_AREA)
    return out, np.array([[cw / w, 0.0, x0], [0.0, ch / h, y0], [0.0, 0.0, 1.0]])


def made_grey(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """``image`` without colour (kept three-channel), as a labelling service's grey step
    exports a set."""
    grey = cv2.cvtColor(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), cv2.COLOR_GRAY2BGR)
    return grey, None


SHIFTS: dict[str, Transform] = {
    "darker and warmer": _darker_warmer,
    "camera tilted 12 degrees": _tilted,
    "camera turned a quarter turn": _quarter_turn,
    "poor JPEG (quality 12)": _poor_jpeg,
}


def shifted_dataset(dataset: Dataset, transform: Transform, root: Path) -> Dataset:
    """``dataset`` with every photo transformed (and its boxes moved with the pixels),
    written to ``root`` in the YOLO layout."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    names = "\n".join(f'  {i}: "{n}"' for i, n in enumerate(dataset.names))
    (root / "data.yaml").write_text(f"path: .\nnames:\n{names}\n", encoding="utf-8")
    for item in dataset.items:
        image = read_image(item.image)
        h, w = image.shape[:2]
        out, m = transform(image)
        oh, ow = out.shape[:2]
        lines = []
        for d in item.dice:
            x, y, bw, bh = d.box_px(w, h)
            if m is not None:
                pts = np.array([[x, y], [x + bw, y], [x, y + bh], [x + bw, y + bh]], np.float64)
                moved = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), m).reshape(-1, 2)
                x0, y0 = np.clip(moved.min(0), 0, [ow, oh])
                x1, y1 = np.clip(moved.max(0), 0, [ow, oh])
                x, y, bw, bh = x0, y0, x1 - x0, y1 - y0
                if bw < 2 or bh < 2:
                    continue  # moved out of the frame
            lines.append(
                f"{d.cls} {(x + bw / 2) / ow:.6f} {(y + bh / 2) / oh:.6f} {bw / ow:.6f} {bh / oh:.6f}"
            )
        name = item.image.stem + ".jpg"
        quality = 100 if transform is not _poor_jpeg else 95
        cv2.imwrite(str(root / "images" / name), out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        (root / "labels" / f"{item.image.stem}.txt").write_text("\n".join(lines) + "\n")
    return load_dataset(root)


def bench_shifted(label: str, model: FaceModel, test: Dataset) -> None:
    """Print F1 and accuracy of ``model`` on ``test`` under each shifted condition."""
    with tempfile.TemporaryDirectory(prefix="toptable-shift-") as tmp:
        for n, (name, transform) in enumerate(SHIFTS.items()):
            shifted = shifted_dataset(test, transform, Path(tmp) / f"s{n}")
            print("  " + _line(f"{label}, {name}", evaluate(shifted, model)), flush=True)


# --- real photos ----------------------------------------------------------------------


def bench_pi_tray(root: Path, folds: int = 4, shifted: bool = True) -> FaceModel | None:
    """Print the pi-tray figures (14/6 split, shifted conditions, k-fold); return the
    model calibrated on the 14 photos (for the speed figures)."""
    if not (root / "data.yaml").is_file():
        print(f"pi-tray: skipped ({root} is absent)")
        return None
    dataset = load_dataset(root)
    n = len(dataset.items)
    train, test = dataset.subset(range(14)), dataset.subset(range(14, n))
    model, seconds = _timed_calibrate(train)
    print(_line("pi-tray, calibrate on 14, read 6", evaluate(test, model)) +
          f"; calibration {seconds:.1f} s", flush=True)  # fmt: skip
    if shifted:
        bench_shifted("pi-tray 6", model, test)
    if folds:
        result, times = cross_validate(dataset, folds=folds)
        print(_line(f"pi-tray, {folds}-fold leave-photos-out", result) +
              f"; calibration from {n - n // folds} photos {max(times):.1f} s (slowest fold)",
              flush=True)  # fmt: skip
    return model


def bench_catan(root: Path, shifted: bool = True) -> None:
    """Print the catan-webcam figures: train/ (one day) -> valid/ (another day)."""
    if not (root / "train" / "data.yaml").is_file():
        print(f"catan-webcam: skipped ({root} is absent)")
        return
    train, test = load_dataset(root / "train"), load_dataset(root / "valid")
    model, seconds = _timed_calibrate(train)
    print(_line("catan-webcam, calibrate on train/ (33), read valid/ (another day)",
                evaluate(test, model)) + f"; calibration {seconds:.1f} s", flush=True)  # fmt: skip
    if shifted:
        bench_shifted("catan valid", model, test)
        with tempfile.TemporaryDirectory(prefix="toptable-export-") as tmp:
            bench_exported(train, test, Path(tmp))


# how labelling services export a set, and how the webcam's own frames are then read
EXPORTS: tuple[tuple[str, Transform, str], ...] = (
    (f"stretched to {EXPORT_SIDE}x{EXPORT_SIDE}", stretched_square, "as the webcam saved it"),
    (
        f"fitted into {FIT_SIDE}x{FIT_SIDE} with black edges",
        fitted_square,
        "as the webcam saved it",
    ),
    ("made grey", made_grey, "as the webcam saved it (in colour)"),
)


def bench_exported(train: Dataset, test: Dataset, tmp: Path) -> None:
    """Print catan-webcam as each of ``EXPORTS``: calibrated on its ``train`` copy, read on
    its ``test`` copy, and the same model reading ``test`` as the webcam saved it."""
    for k, (how, transform, own) in enumerate(EXPORTS):
        copy_train = shifted_dataset(train, transform, tmp / f"{k}-train")
        copy_test = shifted_dataset(test, transform, tmp / f"{k}-valid")
        model, seconds = _timed_calibrate(copy_train)
        label = f"catan-webcam {how}, train/ -> valid/"
        print(f"  {_line(label, evaluate(copy_test, model))}; calibration {seconds:.1f} s",
              flush=True)  # fmt: skip
        print(_line(f"    the same model reading valid/ {own}", evaluate(test, model)), flush=True)


# --- synthetic stress -----------------------------------------------------------------


def bench_stress(dice: int, tables: int = 5, per_frame: int = 8, seed: int = 500) -> None:
    """Print face accuracy over ``dice`` synthetic dice on ``tables`` random tables."""
    total = EvalResult(())
    per_table = (dice + tables - 1) // tables
    worst = 1.0
    for t in range(tables):
        settings = stress_settings(seed + t)
        with tempfile.TemporaryDirectory(prefix="toptable-stress-") as tmp:
            root = write_dataset(Path(tmp) / "stress", 12, seed=seed + t, settings=settings)
            model = calibrate(load_dataset(root), face_set="stress")
        if not total.names:
            total = EvalResult(model.names)
        renderer = Renderer(settings, seed=seed + 100 + t)
        index = {n: i for i, n in enumerate(model.names)}
        part = EvalResult(model.names)
        while part.dice < per_table:
            scene = renderer.scene(count=per_frame)
            read = read_frame(scene.image, model)
            labeled = [(index[d.symbol.value], d.box()) for d in scene.dice]
            part.add(score_read(read, labeled, model.names))
        worst = min(worst, part.accuracy)
        total.add(part)
    print(_line(f"synthetic stress ({tables} random tables, {per_frame} dice a frame)", total) +
          f"; worst table accuracy {worst:.2%}", flush=True)  # fmt: skip


# --- strangers -----------------------------------------------------------------------

STRANGER_SEED = 2800  # the first stranger's seed: stranger k is seed STRANGER_SEED + k
STRANGER_PHOTOS = (20, 50)  # calibrate on, read
TINY_PHOTOS = (4, 3)
UNFLAGGED_GOAL = 0.005  # issue 28: a wrong face not flagged on at most 0.5 % of a table's dice


@dataclass(frozen=True)
class StrangerFigures:
    """One stranger's figures: its test photos read by the model calibrated on its others."""

    seed: int
    what: str
    dice: int
    f1: float
    faces: float
    unsure: int
    unflagged: int
    seconds: float
    failed: str = ""  # why calibration refused (its figures are then 0)
    colour: str = ""  # the colour calibration chose to read faces in ("": each die's own)
    label_warnings: int = 0  # labels calibration called likely mistakes (all right here)
    finders: int = 1  # colour groups of dice calibration gave a finder each


def bench_one_stranger(seed: int, tiny: bool = False) -> StrangerFigures:
    """Calibrate on one stranger's photos and read its new ones."""
    who = stranger(seed, tiny=tiny)
    train_n, test_n = TINY_PHOTOS if tiny else STRANGER_PHOTOS
    with tempfile.TemporaryDirectory(prefix="toptable-stranger-") as tmp:
        train = load_dataset(write_stranger(Path(tmp) / "train", who, train_n, 1, every_face=True))
        test = load_dataset(write_stranger(Path(tmp) / "test", who, test_n, 2))
        try:
            model, seconds = _timed_calibrate(train)
        except ModelError as exc:
            return StrangerFigures(seed, who.describe(), test.dice_count, 0.0, 0.0, 0, 0, 0.0,
                                   str(exc))  # fmt: skip
        result = evaluate(test, model)
    report = json.loads(model.report)
    chosen = report["face_channel"]["chosen"]
    return StrangerFigures(
        seed, who.describe(), result.dice, result.f1, result.accuracy, result.unsure,
        result.wrong_sure, seconds, colour="" if chosen == EACH_DIES_OWN else chosen,
        label_warnings=report["label_mistakes"], finders=report["finders"],
    )  # fmt: skip


def strangers_summary(rows: list[StrangerFigures]) -> str:
    """The distribution over the strangers, in one line."""
    dice = sum(r.dice for r in rows)
    f1 = [r.f1 for r in rows]
    faces = [r.faces for r in rows]
    unsure = sum(r.unsure for r in rows)
    unflagged = sum(r.unflagged for r in rows)
    over = sum(r.unflagged > UNFLAGGED_GOAL * r.dice for r in rows)
    return (
        f"strangers ({len(rows)}): detection F1 median {statistics.median(f1):.4f}, "
        f"worst {min(f1):.4f}; faces right median {statistics.median(faces):.2%}, "
        f"worst {min(faces):.2%}; unsure {unsure} of {dice} dice ({unsure / max(dice, 1):.2%}); "
        f"wrong and not flagged {unflagged} ({unflagged / max(dice, 1):.2%}; over "
        f"{UNFLAGGED_GOAL:.1%} of their dice on {over} of {len(rows)} tables); faces read in "
        f"a chosen colour on {sum(bool(r.colour) for r in rows)}; label warnings (false "
        f"alarms: the strangers' labels are right) {sum(r.label_warnings for r in rows)} on "
        f"{sum(r.label_warnings > 0 for r in rows)} tables; dice of several colours found "
        f"by a finder per colour on {sum(r.finders > 1 for r in rows)}"
    )


def _one_thread_worker() -> None:
    """A pool worker uses one core, as the strangers are spread over the cores."""
    cv2.setNumThreads(1)


def _strangers_rows(seeds: list[int], tiny: bool, jobs: int) -> Iterator[StrangerFigures]:
    """Each stranger's figures in seed order, ``jobs`` strangers at a time."""
    if jobs <= 1 or len(seeds) <= 1:
        yield from (bench_one_stranger(s, tiny) for s in seeds)
        return
    # numpy's BLAS reads its thread count when imported: set before the workers start
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    context = multiprocessing.get_context("spawn")
    with context.Pool(min(jobs, len(seeds)), initializer=_one_thread_worker) as pool:
        yield from pool.imap(functools.partial(bench_one_stranger, tiny=tiny), seeds)


def bench_strangers(
    count: int, tiny: bool = False, seed: int = STRANGER_SEED, jobs: int = 1
) -> None:
    """Print one line per stranger, then the median and the worst over them."""
    train_n, test_n = TINY_PHOTOS if tiny else STRANGER_PHOTOS
    print(f"strangers: each calibrated on {train_n} of its photos, reading {test_n} new ones "
          f"(same code and settings for all; {max(jobs, 1)} at a time, calibration in CPU "
          f"seconds)", flush=True)  # fmt: skip
    rows = []
    for row in _strangers_rows([seed + k for k in range(count)], tiny, jobs):
        rows.append(row)
        end = f"calibration failed: {row.failed}" if row.failed else (
            f"calibration {row.seconds:.0f} s")  # fmt: skip
        if row.colour:
            end += f", faces read in {row.colour}"
        if row.label_warnings:
            end += f", {row.label_warnings} label warning(s)"
        if row.finders > 1:
            end += f", {row.finders} finders (dice of {row.finders} colours)"
        print(
            f"  stranger {row.seed}: {row.dice} dice: F1 {row.f1:.4f}, faces {row.faces:.2%}, "
            f"unsure {row.unsure}, unflagged wrong {row.unflagged}; {end} ({row.what})",
            flush=True,
        )
    if rows:
        print(strangers_summary(rows), flush=True)


def main(argv: list[str]) -> int:
    """Print every figure; ``--quick`` for a smoke run."""
    parser = argparse.ArgumentParser(prog="toptable bench dice")
    parser.add_argument("--quick", action="store_true", help="fewer dice, reads and folds")
    parser.add_argument("--dice", type=int, help="synthetic stress dice (default 10000)")
    parser.add_argument("--reads", type=int, help="timed frame reads (default 200)")
    parser.add_argument("--datasets", type=Path, default=SHARED, help="the shared datasets folder")
    parser.add_argument("--strangers", type=int, metavar="N",
                        help="only the strangers' figures (N generated dice sets; with --quick, "
                        "tiny ones) beside the shared real sets (default: 20 after the rest, "
                        "none with --quick)")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1, metavar="J",
                        help="strangers calibrated at a time, one core each (default: the "
                        "machine's cores)")  # fmt: skip
    parser.add_argument("--phone", action="store_true",
                        help="only the 12-megapixel stranger's costs (calibration and reading "
                        "on one core, model size, memory)")  # fmt: skip
    for name, what in STRANGER_RUNS.items():
        parser.add_argument(f"--{name}", type=int, metavar="N",
                            help=f"only {what} (with --quick, tiny ones)")  # fmt: skip
    args = parser.parse_args(argv)
    print(f"(machine: {os.cpu_count()} cores; wall times include whatever else runs on it)")
    if args.unlabelled is not None:
        bench_unlabelled(args.unlabelled, tiny=args.quick)
        return 0
    if args.handheld is not None:
        bench_handheld(args.handheld, tiny=args.quick)
        return 0
    if args.phone:
        bench_phone()
        return 0
    if args.leaning is not None:
        bench_leaning(args.leaning, tiny=args.quick)
        return 0
    if args.strangers is not None:
        bench_pi_tray(args.datasets / "pi-tray", folds=0, shifted=False)
        bench_catan(args.datasets / "catan-webcam", shifted=False)
        bench_strangers(args.strangers, tiny=args.quick, jobs=args.jobs)
        return 0
    model = bench_pi_tray(args.datasets / "pi-tray", folds=0 if args.quick else 4)
    bench_catan(args.datasets / "catan-webcam")
    bench_stress(args.dice or (400 if args.quick else 10_000), tables=2 if args.quick else 5)
    if model is not None:
        bench_speed(model, args.datasets / "pi-tray", args.reads or (40 if args.quick else 200))
        bench_size_memory(model)
        bench_networks()
    if not args.quick:
        bench_phone()
        bench_strangers(20, jobs=args.jobs)
        bench_leaning(10)
        bench_unlabelled(5)
        bench_handheld(10)
    return 0
