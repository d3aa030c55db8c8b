"""``toptable dice ...``: calibrate, evaluate, read one image, capture a dataset, render one.

toptable dice calibrate DATASET --out MODEL.npz [--split S] [--also DIR] [--jobs J] [--json]
                                     learn a face set (and from DIR's photos too, faces matched
                                     by name) and write it, then its own leave-photos-out
                                     figures (J calibrations at once) and warnings
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
import json
import sys
from pathlib import Path
from typing import Any

from controller.cli.dice_camera import add_camera_commands, face_model
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
    OutputDir,
    OutputFile,
    Text,
    Whole,
)
from controller.core.durable import replace_durably
from vision.errors import ModelError
from vision.images import is_photo, read_image, suffix_list, write_image
from vision.learning.dataset import READ_SPLITS, TRAIN_SPLITS, Dataset, load_dataset
from vision.learning.dataset_layout import YAML_SUFFIXES
from vision.learning.defaults import DEFAULT_MODEL, train_synthetic_model
from vision.learning.evaluate import EvalResult, ReadError, cross_validate, evaluate
from vision.learning.fold_check import check_jobs
from vision.learning.photo_budget import within_budget
from vision.learning.progress import progress_bar
from vision.learning.report import CalibrationReport, calibrate_with_report, save_errors
from vision.learning.table_photos import joined
from vision.reading.model import FaceModel
from vision.reading.read import annotate, load_scaled, read_frame
from vision.synth.scenes import write_dataset

IMAGES = Whole(1, 100_000)
"""Photos rendered for a synthetic dataset or calibration."""
DATASET = ExistingDir(files=YAML_SUFFIXES)
DATASET_HELP = (
    "dataset folder (data.yaml, images/, labels/), or a data.yaml naming its splits "
    "(Ultralytics, Roboflow, CVAT exports), or a folder of photos with labels beside them"
)
SPLIT_HELP = "the split to read when the data.yaml names its splits (train, val, test)"


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
        replace_durably(part, final)
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
        model, report = _calibrate_and_check(dataset, args.face_set, out, args.jobs)
    else:
        raise ModelError("give a DATASET folder or --synthetic")
    written = _save_whole(model, out)  # (with its check's figures, in its report)
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


def _calibrate_and_check(
    dataset: Dataset, face_set: str | None, out: Path, jobs: int | None
) -> tuple[FaceModel, CalibrationReport]:
    """Calibrate, write the model as soon as it is calibrated (a check stopped leaves it
    to read with), then check it on photos each fold did not see (in ``jobs`` processes).

    Raises:
        ModelError: as :func:`calibrate_with_report`; the model cannot be written.
    """
    folds = 3

    def write_now(model: FaceModel, checks: int) -> None:
        written = _save_whole(model, out)
        if checks:
            print(
                f"\nwrote {written}; checking it on photos it did not see ({checks} models, "
                "each without a third of them; Ctrl-C stops the check and keeps the model)",
                file=sys.stderr,
                flush=True,
            )

    jobs = jobs or check_jobs(folds, within_budget(dataset).dataset.dice_count)
    return calibrate_with_report(
        dataset, face_set, progress_bar(), folds=folds, jobs=jobs, written=write_now
    )


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
    model = face_model(args.model)
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
    model = face_model(args.model)
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


def cmd_synth(args: argparse.Namespace) -> int:
    """Write a synthetic labeled dataset."""
    root = write_dataset(args.out, args.images, seed=args.seed, hard=not args.easy)
    print(f"wrote {args.images} synthetic photos in {root}")
    return 0


def register(sub: Any) -> None:
    """Add ``toptable dice`` and its subcommands."""
    p = sub.add_parser(
        "dice", help="learn and read your dice: calibrate, read, watch... (toptable dice -h)"
    )
    dice = p.add_subparsers(dest="dice_command", metavar="ACTION", parser_class=type(p))
    dice.required = True

    c = dice.add_parser(
        "calibrate",
        help="learn a face set from a labeled dataset (YOLO layout)",
        description="Learn a face set (finder and faces) from labeled photos and write the "
        "model, then measure the calibration by leaving photos out (3 folds: each photo read "
        "by a model that never saw it; Ctrl-C stops that check and keeps the model written; "
        "the folds run beside the model's calibration on the cores free) and print its "
        "figures and warnings (too few photos, photos too alike, labels that disagree). A "
        "large set is learned from a seeded choice of its photos that shows every face, "
        "within calibration's budget of photos and dice (the check still reads every "
        "photo). --synthetic calibrates on rendered game dice instead, without that check. "
        "Progress goes to stderr.",
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
    jobs = c.add_argument(
        "--jobs", type=Whole(1, 64), metavar="J",
        help="calibrations at once: the model's and its check's (each a process holding its "
        "photos; default: the cores free to this process, at most 4, as many as the memory "
        "available holds)",
    )  # fmt: skip
    synthetic = c.add_argument(
        "--synthetic", action="store_true", help="calibrate on rendered game dice"
    )
    images = c.add_argument(  # calibration takes at least two photos
        "--images", type=Whole(2, 100_000), default=12, help="--synthetic: frames to render"
    )
    seed = c.add_argument("--seed", type=SEED, default=1, help="--synthetic: random seed")
    for option in (dataset, split, face_set, jobs):  # the rendered dice are the dataset
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

    add_camera_commands(dice)
    add_table_photos(dice)

    s = dice.add_parser("synth", help="render a synthetic labeled dataset of the game dice")
    s.add_argument("out", type=OutputDir())
    s.add_argument("--images", type=IMAGES, default=20)
    s.add_argument("--seed", type=SEED, default=0)
    s.add_argument("--easy", action="store_true", help="no hard lighting, blur and noise")
    s.set_defaults(func=cmd_synth)
