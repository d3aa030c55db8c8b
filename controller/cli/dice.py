"""``toptable dice ...``: calibrate, evaluate, read one image, capture a dataset, render one.

toptable dice calibrate DATASET --out MODEL.npz [--split S] [--also DIR] [--json]  learn a
                                     face set (and from DIR's photos too, faces matched by
                                     name), then its own leave-photos-out figures and warnings
toptable dice calibrate --synthetic --out MODEL.npz  the synthetic Tournament of Power dice
toptable dice eval DATASET --model MODEL [--split S] [--json]  detection and face figures
toptable dice eval DATASET --model MODEL --errors DIR   also a crop of every mistake, and why
toptable dice eval DATASET --cv 4 [--json]           leave-images-out cross-validation
toptable dice read IMAGE [--model M] [--expect N] [--json] [--annotate OUT.png]
toptable dice capture OUT_DIR --faces 1,2,3,4,5,6 [--device /dev/video0 | --folder DIR]
toptable dice watch [--device D | --folder F | --video V | --synthetic] [--expect N]
toptable dice synth OUT_DIR --images N               a synthetic dataset (YOLO layout)
toptable dice table-photos JOURNAL... --out DIR      the throws played, as labelled photos

A DATASET is a folder in this project's layout (data.yaml, images/, labels/), a data.yaml
that names its splits as Ultralytics, Roboflow and CVAT write them (``--split`` picks one),
or labelImg's folder of photos with their labels beside them
(:mod:`vision.learning.dataset_layout`).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import queue
import sys
import time
from pathlib import Path
from typing import Any

import cv2

from controller.cli.dice_table import add_table_photos
from controller.cli.flag_needs import not_with, only_with
from controller.cli.flags import (
    POOL,
    SEED,
    ExistingDir,
    ExistingFile,
    FlagError,
    ImageFile,
    NewFile,
    Number,
    OutputDir,
    OutputFile,
    Text,
    Whole,
)
from controller.core.events import Event
from controller.core.quoting import printable
from vision.errors import ModelError
from vision.events import CameraLost, CameraRestored, ThrowSettled
from vision.images import CV_LOG_LEVEL_ERROR, is_photo, read_image, suffix_list, write_image
from vision.learning.capture import run_capture
from vision.learning.dataset import READ_SPLITS, TRAIN_SPLITS, load_dataset
from vision.learning.dataset_layout import YAML_SUFFIXES
from vision.learning.defaults import DEFAULT_MODEL, default_model, train_synthetic_model
from vision.learning.evaluate import EvalResult, ReadError, cross_validate, evaluate
from vision.learning.progress import progress_bar
from vision.learning.report import CalibrationReport, calibrate_with_report, save_errors
from vision.learning.table_photos import joined
from vision.reading.model import FaceModel, load_model
from vision.reading.read import annotate, load_scaled, read_frame
from vision.reading.reader import CameraWorker, DiceReader
from vision.settings import CameraConfig, CameraSource
from vision.synth.scenes import write_dataset

IMAGES = Whole(1, 100_000)
"""Photos rendered for a synthetic dataset or calibration."""
DATASET = ExistingDir(files=YAML_SUFFIXES)
DATASET_HELP = (
    "dataset folder (data.yaml, images/, labels/), or a data.yaml naming its splits "
    "(Ultralytics, Roboflow, CVAT exports), or a folder of photos with labels beside them"
)
SPLIT_HELP = "the split to read when the data.yaml names its splits (train, val, test)"


def _model(path: str | None) -> FaceModel:
    return load_model(path) if path else default_model()


def _save_whole(model: FaceModel, out: Path) -> Path:
    """Write ``model`` at ``out`` (``.npz`` added) whole or not at all: into a file beside
    it, renamed over it once complete, so that a write stopped (Ctrl-C, a full disk) leaves
    the model that was there.

    Raises:
        ModelError: the file cannot be written (the message names it).
    """
    final = out.with_suffix(".npz")  # as FaceModel.save names it (cmd_calibrate refuses others)
    part = final.with_name(f"{final.name}.part.npz")
    try:
        model.save(part)
        part.replace(final)
    except OSError as exc:
        raise ModelError(f"{final}: cannot write the model ({exc.strerror or exc})") from None
    finally:
        part.unlink(missing_ok=True)
    return final


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Learn a model from a dataset (or the synthetic dice) and write it."""
    out = Path(args.out)
    if out.suffix and out.suffix != ".npz":
        raise ModelError(f"{out}: models are written as .npz (numpy), not {out.suffix}")
    report: CalibrationReport | None = None
    if args.synthetic and args.also:
        raise ModelError("--also adds photos to a DATASET's; --synthetic learns rendered dice")
    if args.synthetic:
        model = train_synthetic_model(args.images, args.seed, progress_bar())
    elif args.dataset:
        dataset = load_dataset(args.dataset, args.split, TRAIN_SPLITS)
        dataset = joined(dataset, *(load_dataset(more) for more in args.also))
        model, report = calibrate_with_report(
            dataset, face_set=args.face_set, progress=progress_bar(), folds=3
        )
    else:
        raise ModelError("give a DATASET folder or --synthetic")
    written = _save_whole(model, out)
    if args.json:
        doc: dict[str, Any] = {
            "model": str(written),
            "face_set": model.face_set,
            "names": list(model.names),
            "samples": len(model.samples),
            "die_frac": round(model.detector.die_frac, 5),
            "unlearned_faces": list(model.unlearned),  # no die labeled so: never read
        }
        print(json.dumps(doc | (report.to_json() if report else {}), indent=2))
        return 0
    print(
        f"wrote {written}: face set {model.face_set!r} ({', '.join(model.names)}), "
        f"{len(model.samples)} samples, die {model.detector.die_frac:.3f} "
        "of sqrt(width x height)"
    )
    for line in report.lines() if report else []:
        print(line)
    return 0


def _print_eval(result: EvalResult, as_json: bool, extra: dict[str, Any]) -> None:
    doc = result.to_json() | extra
    if as_json:
        print(json.dumps(doc, indent=2))
        return
    print(
        f"{doc['images']} images, {doc['dice']} dice labeled, {doc['detected']} detected: "
        f"precision {doc['precision']:.4f}, recall {doc['recall']:.4f}, F1 {doc['f1']:.4f}"
    )
    print(
        f"faces right {doc['accuracy']:.2%} of matched dice; unsure {doc['unsure']}, "
        f"wrong above the threshold {doc['wrong_above_threshold']}{result.cut_note}; "
        f"{doc['ms_per_image']} ms per image (decode + read); "
        f"{doc['warned_images']} image(s) warned out of the model's depth"
    )
    names = doc["confusion"]["labels"]
    width = max(6, *(len(n) for n in names))
    print("true \\ read".ljust(width + 2) + " ".join(n.rjust(width) for n in names))
    for name, row in zip(names, doc["confusion"]["rows_true_cols_read"], strict=True):
        print(name.ljust(width + 2) + " ".join(str(v).rjust(width) for v in row))
    for key, value in extra.items():
        print(f"{key}: {value}")


def cmd_eval(args: argparse.Namespace) -> int:
    """Score a model (or cross-validate calibration) on a labeled dataset."""
    dataset = load_dataset(args.dataset, args.split, TRAIN_SPLITS if args.cv else READ_SPLITS)
    if args.cv:
        result, times = cross_validate(dataset, args.cv, progress_bar())
        extra = {
            "folds": args.cv,
            "calibration_s": [round(t, 2) for t in times],
        }
        _print_eval(result, args.json, extra)
        return 0
    model = _model(args.model)
    if not args.errors:
        _print_eval(evaluate(dataset, model), args.json, {})
        return 0
    errors: list[ReadError] = []
    result = evaluate(dataset, model, errors=errors)
    folder = save_errors(errors, args.errors)
    if args.json:
        _print_eval(result, True, {"errors": len(errors), "errors_dir": str(folder)})
        return 0
    _print_eval(result, False, {})
    print(
        f"{len(errors)} mistake(s) written to {folder}: a crop of each "
        "(NNNN_kind_truth_read.png) and errors.json with the reasons"
    )
    return 0


def cmd_read(args: argparse.Namespace) -> int:
    """Read the dice of one image.

    Raises:
        FlagError: --annotate names no image file (OpenCV has no writer for its suffix).
        ImageReadError: the image cannot be read, or the annotated one written.
    """
    if args.annotate and not is_photo(args.annotate):
        raise FlagError(
            f"argument --annotate: {args.annotate}: expected an image file ({suffix_list()})"
        )
    model = _model(args.model)
    image, factor = load_scaled(args.image, model)
    read = read_frame(image, model, args.expect, factor)
    if args.annotate:
        full = read_image(args.image) if factor != 1.0 else image
        drawn = annotate(full, read)
        write_image(args.annotate, drawn)
    if args.json:
        print(json.dumps(read.to_json(), indent=2))
        return 0
    print(f"{len(read.dice)} dice" + (f" (expected {args.expect})" if args.expect else ""))
    for n, die in enumerate(read.dice, start=1):
        flags = die.flags
        x, y, w, h = die.box
        print(
            f"  {n}. {die.face or '-'}  confidence {die.confidence:.2f}  "
            f"box {x:.0f},{y:.0f} {w:.0f}x{h:.0f}" + (f"  [{', '.join(flags)}]" if flags else "")
        )
    if read.flags:
        print(f"flags: {', '.join(read.flags)}")
    for warning in read.warnings:
        print(f"warning: {warning.text}")
    return 0


def _camera_there(device: str, instead: str) -> None:
    """Raises FlagError when ``device`` is not there, naming the cameras that are."""
    if not os.path.exists(device):
        present = ", ".join(sorted(glob.glob("/dev/video*"))) or "none"
        raise FlagError(
            f"argument --device: {device}: no such camera device; cameras present: {present} "
            f"(or use {instead})"
        )


def cmd_capture(args: argparse.Namespace) -> int:
    """Interactive capture of a labeled dataset from a camera."""
    if args.folder:
        # each take reads 3 frames (the camera warm-up): hold each image for 3
        config = CameraConfig(kind=CameraSource.FOLDER, path=args.folder, hold_frames=3)
    else:
        _camera_there(args.device, "--folder")
        config = CameraConfig(kind=CameraSource.V4L2, device=args.device)
    names = [n.strip() for n in args.faces.split(",") if n.strip()]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise FlagError(
            f"argument --faces: {', '.join(map(repr, twice))} given twice: each face needs a "
            "name of its own"
        )
    model = _model(args.model) if args.model else None
    saved = run_capture(config, args.out, names, model=model, shots=args.shots)
    print(f"saved {saved} photos in {args.out} (YOLO layout); calibrate with: "
          f"toptable dice calibrate {args.out} --out MODEL.npz")  # fmt: skip
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    """Run a camera source through the reader and print every event; exit 1 when it
    gave no frame.

    Raises:
        FlagError: --device names no device.
    """
    if args.folder:
        config = CameraConfig(kind=CameraSource.FOLDER, path=args.folder)
    elif args.video:
        config = CameraConfig(kind=CameraSource.FILE, path=args.video)
    elif args.synthetic:
        config = CameraConfig(kind=CameraSource.SYNTHETIC, seed=args.seed, dice=args.expect or 6)
    else:
        _camera_there(args.device, "--folder, --video or --synthetic")
        config = CameraConfig(kind=CameraSource.V4L2, device=args.device)
    # a lost camera is retried every second: keep OpenCV's own warnings off the terminal
    # (cv2.utils.logging is absent from the opencv-python wheels; cv2.setLogLevel is not)
    cv2.setLogLevel(CV_LOG_LEVEL_ERROR)
    events: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(_model(args.model), events, expect=args.expect, evidence_dir=args.evidence)
    worker = CameraWorker(config, reader, retry_s=1.0)
    deadline = time.monotonic() + args.seconds
    lost = ""  # why the camera was last lost
    with worker:
        while time.monotonic() < deadline and not worker.finished.is_set():
            try:
                event = events.get(timeout=0.2)
            except queue.Empty:
                continue
            lost = _print_event(event) or lost
            if isinstance(event, ThrowSettled) and args.throws and event.roll_no >= args.throws:
                break
    while not events.empty():
        lost = _print_event(events.get_nowait()) or lost
    print(f"{worker.frames} frames read")
    if not worker.frames:
        why = f": {lost}" if lost else ""
        print(f"toptable dice watch: the camera gave no frame{why}", file=sys.stderr)
        return 1
    return 0


def _print_event(event: Event) -> str:
    """Print ``event`` as a line; return why the camera was lost, if it says so ("")."""
    if isinstance(event, CameraLost):
        print(f"camera lost: {printable(event.reason, None)}")
        return event.reason
    if isinstance(event, CameraRestored):
        print("camera back")
        return ""
    if isinstance(event, ThrowSettled):
        flags = [f"cocked {list(event.cocked)}"] if event.cocked else []
        flags += [f"unsure {list(event.unsure)}"] if event.unsure else []
        flags += ["count mismatch"] if event.count_mismatch else []
        print(
            f"throw {event.roll_no} ({event.speed}): {', '.join(f or '-' for f in event.faces)}"
            f"; kept {list(event.kept)}" + (f"; {'; '.join(flags)}" if flags else "")
        )
    else:
        print(event)
    return ""


def cmd_synth(args: argparse.Namespace) -> int:
    """Write a synthetic labeled dataset."""
    root = write_dataset(args.out, args.images, seed=args.seed, hard=not args.easy)
    print(f"wrote {args.images} synthetic photos in {root}")
    return 0


def register(sub: Any) -> None:
    """Add ``toptable dice`` and its subcommands."""
    p = sub.add_parser("dice", help="read dice with the camera: calibrate, eval, read, capture")
    dice = p.add_subparsers(dest="dice_command", metavar="ACTION", parser_class=type(p))
    dice.required = True

    c = dice.add_parser(
        "calibrate",
        help="learn a face set from a labeled dataset (YOLO layout)",
        description="Learn a face set (finder and faces) from labeled photos and write the "
        "model, then measure the calibration by leaving photos out (3 folds: each photo read "
        "by a model that never saw it) and print its figures and warnings (too few photos, "
        "photos too alike, labels that disagree). A large set is learned from a seeded "
        "choice of its photos that shows every face, within calibration's budget of photos "
        "and dice (the check still reads every photo). --synthetic calibrates on rendered "
        "game dice instead, without that check. Progress goes to stderr.",
    )
    dataset = c.add_argument("dataset", nargs="?", type=DATASET, help=DATASET_HELP)
    split = c.add_argument("--split", type=Text(), help=f"{SPLIT_HELP} (default: train)")
    c.add_argument("--out", required=True, metavar="MODEL.npz", type=OutputFile(),
                   help="model file to write")  # fmt: skip
    face_set = c.add_argument(
        "--face-set", type=Text(), help="name of the face set (default: the folder name)"
    )
    c.add_argument("--also", action="append", default=[], type=DATASET, metavar="DIR",
                   help="more labelled photos to learn from, their faces matched by name "
                   "(as `dice table-photos` writes them); may be given again")  # fmt: skip
    c.add_argument("--json", action="store_true", help="print the model and its report as JSON")
    synthetic = c.add_argument(
        "--synthetic", action="store_true", help="calibrate on rendered game dice"
    )
    images = c.add_argument(  # calibration takes at least two photos
        "--images", type=Whole(2, 100_000), default=12, help="--synthetic: frames to render"
    )
    seed = c.add_argument("--seed", type=SEED, default=1, help="--synthetic: random seed")
    for option in (dataset, split, face_set):  # the rendered dice are the dataset
        not_with(c, option, synthetic)
    for option in (images, seed):
        only_with(c, option, synthetic)
    c.set_defaults(func=cmd_calibrate)

    e = dice.add_parser("eval", help="detection and face-reading figures on a labeled dataset")
    e.add_argument("dataset", type=DATASET, help=DATASET_HELP)
    e.add_argument("--split", type=Text(), help=f"{SPLIT_HELP} (default: val, else test; "
                   "train with --cv)")  # fmt: skip
    model = e.add_argument(
        "--model", type=ExistingFile(), help=f"model file (default: {DEFAULT_MODEL.name})"
    )
    how = e.add_mutually_exclusive_group()
    cv = how.add_argument("--cv", type=Whole(2, 20), metavar="K",
                          help="K-fold leave-images-out cross-validation (calibrates K models)")  # fmt: skip
    not_with(e, model, cv)  # the folds calibrate their own
    how.add_argument("--errors", metavar="DIR", type=OutputDir(),
                     help="write a crop of every mistake and errors.json (reasons) to DIR")  # fmt: skip
    e.add_argument("--json", action="store_true", help="print JSON")
    e.set_defaults(func=cmd_eval)

    r = dice.add_parser("read", help="read the dice of one image")
    r.add_argument("image", type=ImageFile())
    r.add_argument(
        "--model", type=ExistingFile(), help=f"model file (default: {DEFAULT_MODEL.name})"
    )
    r.add_argument("--expect", type=POOL, help="number of dice expected (pool size)")
    r.add_argument("--json", action="store_true", help="print JSON")
    r.add_argument("--annotate", metavar="OUT.png", type=NewFile(),
                   help="write the image with boxes and faces")  # fmt: skip
    r.set_defaults(func=cmd_read)

    k = dice.add_parser("capture", help="photograph your dice face by face into a dataset")
    k.add_argument("out", type=OutputDir(), help="dataset folder to write (YOLO layout)")
    k.add_argument("--faces", default="kick,punch,sphere,strength,star,teleport", type=Text(),
                   help="face names in class order (comma-separated)")  # fmt: skip
    k_device = k.add_argument(
        "--device", default="/dev/video0", type=Text(), help="V4L2 camera device"
    )
    k_folder = k.add_argument("--folder", type=ExistingDir(),
                              help="take frames from an image folder instead of a camera")  # fmt: skip
    not_with(k, k_device, k_folder)
    k.add_argument("--model", type=ExistingFile(),
                   help="a model whose die size finds the dice (default: shipped)")  # fmt: skip
    k.add_argument("--shots", type=Whole(1, 100), default=2, help="photos per face")
    k.set_defaults(func=cmd_capture)

    w = dice.add_parser("watch", help="run a camera through the reader and print its events")
    w_device = w.add_argument(
        "--device", default="/dev/video0", type=Text(), help="V4L2 camera device"
    )
    source = w.add_mutually_exclusive_group()  # one source: the first of them won, silently
    w_folder = source.add_argument(
        "--folder", type=ExistingDir(), help="an image folder instead of a camera"
    )
    video = source.add_argument(
        "--video", type=ExistingFile(), help="a video file instead of a camera"
    )
    w_synthetic = source.add_argument(
        "--synthetic", action="store_true", help="rendered dice instead of a camera"
    )
    w_seed = w.add_argument("--seed", type=SEED, default=0, help="--synthetic: random seed")
    not_with(w, w_device, w_folder, video, w_synthetic)
    only_with(w, w_seed, w_synthetic)
    w.add_argument(
        "--model", type=ExistingFile(), help=f"model file (default: {DEFAULT_MODEL.name})"
    )
    w.add_argument("--expect", type=POOL, help="number of dice expected (pool size)")
    w.add_argument("--evidence", type=OutputDir(), help="folder to keep each settled frame in")
    w.add_argument("--seconds", type=Number(0, 86_400, above=True), default=30.0,
                   help="stop after this long")  # fmt: skip
    w.add_argument("--throws", type=Whole(1, 1_000_000), help="stop after this many throws")
    w.set_defaults(func=cmd_watch)

    add_table_photos(dice)

    s = dice.add_parser("synth", help="render a synthetic labeled dataset of the game dice")
    s.add_argument("out", type=OutputDir())
    s.add_argument("--images", type=IMAGES, default=20)
    s.add_argument("--seed", type=SEED, default=0)
    s.add_argument("--easy", action="store_true", help="no hard lighting, blur and noise")
    s.set_defaults(func=cmd_synth)
