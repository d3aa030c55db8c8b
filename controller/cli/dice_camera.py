"""``toptable dice capture`` and ``toptable dice watch``: the dice commands that run a
camera (or a folder, a video, rendered dice) through the reader.

    toptable dice capture OUT_DIR --faces 1,2,3,4,5,6 [--device /dev/video0 | --folder DIR]
    toptable dice watch [--device D | --folder F | --video V | --synthetic] [--expect N]
"""

from __future__ import annotations

import argparse
import glob
import os
import queue
import sys
import time
from typing import Any

import cv2

from controller.cli.flag_needs import not_with, only_with
from controller.cli.flags import (
    POOL,
    SEED,
    ExistingDir,
    ExistingFile,
    FlagError,
    Number,
    OutputDir,
    Text,
    Whole,
)
from controller.core.events import Event
from controller.core.quoting import printable
from vision.events import CameraLost, CameraRestored, ThrowSettled
from vision.images import CV_LOG_LEVEL_ERROR
from vision.learning.capture import run_capture
from vision.learning.defaults import DEFAULT_MODEL, default_model
from vision.reading.model import FaceModel, load_model
from vision.reading.reader import CameraWorker, DiceReader
from vision.settings import CameraConfig, CameraSource


def face_model(path: str | None) -> FaceModel:
    """The face model at ``path``, else the shipped one.

    Raises:
        ModelError: the file is no face model this toptable reads.
    """
    return load_model(path) if path else default_model()


def add_camera_commands(dice: Any) -> None:
    """Register ``dice capture`` and ``dice watch`` on the ``dice`` subparsers."""
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
    model = face_model(args.model) if args.model else None
    saved = run_capture(config, args.out, names, model=model, shots=args.shots)
    print(f"saved {saved} photos in {args.out} (YOLO layout); calibrate with: "
          f"toptable dice calibrate {args.out} --out MODEL.npz")  # fmt: skip
    return 0


def cmd_watch(args: argparse.Namespace) -> int:
    """Run a camera source through the reader and print every event; exit 1 when it
    gave no frame.

    Raises:
        FlagError: --device names no device, --video no video.
    """
    # a lost camera is retried every second: keep OpenCV's own warnings off the terminal
    # (cv2.utils.logging is absent from the opencv-python wheels; cv2.setLogLevel is not)
    cv2.setLogLevel(CV_LOG_LEVEL_ERROR)
    if args.folder:
        config = CameraConfig(kind=CameraSource.FOLDER, path=args.folder)
    elif args.video:
        _a_video(args.video)
        config = CameraConfig(kind=CameraSource.FILE, path=args.video)
    elif args.synthetic:
        config = CameraConfig(kind=CameraSource.SYNTHETIC, seed=args.seed, dice=args.expect or 6)
    else:
        _camera_there(args.device, "--folder, --video or --synthetic")
        config = CameraConfig(kind=CameraSource.V4L2, device=args.device)
    events: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(
        face_model(args.model), events, expect=args.expect, evidence_dir=args.evidence
    )
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


def _a_video(path: str | os.PathLike[str]) -> None:
    """Raises:
    FlagError: ``path`` gives no frame OpenCV can read (not a video, or cut short): bad
        input named on the command line, not a camera that went away.
    """
    capture = cv2.VideoCapture(os.fspath(path))
    try:
        readable = capture.isOpened() and capture.read()[0]
    finally:
        capture.release()
    if not readable:
        raise FlagError(f"argument --video: {printable(os.fspath(path))}: no frame OpenCV can read in it "
                        "(not a video, or cut short)")  # fmt: skip


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
        faces = ", ".join(f or "-" for f in event.faces)
        if not event.moved:
            print(f"no throw (every die lies where it lay): {faces}")
            return ""
        print(
            f"throw {event.roll_no} ({event.speed}): {faces}"
            f"; kept {list(event.kept)}" + (f"; {'; '.join(flags)}" if flags else "")
        )
    else:
        print(event)
    return ""
