"""``toptable bench dice``: the dice-reading figures the issue asks for.

1. Real photos (``../shared/datasets/pi-tray``): leave-images-out 4-fold
   cross-validation (calibrate on 15 photos, read the other 5; every photo is
   read once by a model that never saw it): detection F1, face accuracy and
   the calibration time for 15 photos.
2. Synthetic Tournament of Power dice, hard settings, 6 dice per frame, read by
   the shipped model: face accuracy and wrong reads above the confidence
   threshold over 10,000 dice (600 with ``--quick``).
3. Cocked dice: the share of leaning dice flagged cocked.
4. Speed: median time to read a settled 1280x960 frame with 6 dice, on one
   core (``cv2.setNumThreads(1)``), as wall-clock time and as the reading
   thread's CPU time (which other jobs on a shared machine do not inflate),
   and the per-frame cost while dice move.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

import cv2

from vision.calibrate import EvalResult, calibrate, cross_validate, match, score_read
from vision.dataset import load_dataset
from vision.defaults import default_model
from vision.model import FaceModel
from vision.read import read_frame
from vision.settle import SettleDetector
from vision.synth import Renderer, Settings

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "datasets" / "pi-tray"


def bench_real(dataset_dir: Path) -> None:
    """Print cross-validation figures on the real photos."""
    if not (dataset_dir / "data.yaml").is_file():
        print(f"real photos: skipped ({dataset_dir} is absent)")
        return
    dataset = load_dataset(dataset_dir)
    result, times = cross_validate(dataset, folds=4)
    j = result.to_json()
    print(
        f"real photos ({dataset_dir.name}, {j['images']} photos, {j['dice']} dice, 4-fold "
        f"leave-images-out): detection F1 {j['f1']:.4f} (P {j['precision']:.4f}, "
        f"R {j['recall']:.4f}), face accuracy {j['accuracy']:.2%}, unsure {j['unsure']}, "
        f"wrong above threshold {j['wrong_above_threshold']}"
    )
    model = calibrate(dataset, face_set=dataset.root.name)
    frames = []
    for item in dataset.items:
        half = cv2.imread(str(item.image), cv2.IMREAD_REDUCED_COLOR_2)
        if half is not None:
            frames.append(cv2.resize(half, (1280, 960), interpolation=cv2.INTER_AREA))
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        reads = []
        cpu = []
        for _ in range(5):
            for frame in frames:
                start, start_cpu = time.perf_counter(), time.thread_time()
                read_frame(frame, model)
                cpu.append((time.thread_time() - start_cpu) * 1000)
                reads.append((time.perf_counter() - start) * 1000)
    finally:
        cv2.setNumThreads(threads)
    print(
        f"real photos as 1280x960 camera frames, one core: median "
        f"{statistics.median(reads):.1f} ms per read, CPU time {statistics.median(cpu):.1f} ms "
        f"({len(reads)} reads)"
    )
    print(
        f"calibration from {len(dataset.items) * 3 // 4} photos: "
        f"{max(times):.2f} s (slowest fold), {j['ms_per_image']} ms per photo read (decode + read)"
    )


def bench_synthetic(model: FaceModel, dice: int, seed: int = 1000) -> None:
    """Print face accuracy on ``dice`` hard synthetic dice, 6 per frame."""
    renderer = Renderer(Settings(hard=True), seed=seed)
    total = EvalResult(model.names)
    frames = (dice + 5) // 6
    index = {n: i for i, n in enumerate(model.names)}
    for _ in range(frames):
        scene = renderer.scene(count=6)
        read = read_frame(scene.image, model)
        labeled = [(index[d.symbol.value], d.box()) for d in scene.dice]
        total.add(score_read(read, labeled, model.names))
    j = total.to_json()
    print(
        f"synthetic game dice, hard, 6 per frame: {j['dice']} dice, detection F1 {j['f1']:.4f}, "
        f"face accuracy {j['accuracy']:.3%}, unsure {j['unsure']}, "
        f"wrong above threshold {j['wrong_above_threshold']}"
    )


def bench_cocked(model: FaceModel, frames: int, seed: int = 2000) -> None:
    """Print how many leaning dice are flagged cocked, and how many flat ones wrongly are."""
    renderer = Renderer(Settings(hard=True, touching=0.0), seed=seed)
    flagged = false_flags = flat = 0
    for _ in range(frames):
        scene = renderer.scene(count=4, cocked=1)
        read = read_frame(scene.image, model)
        truth = [d.box() for d in scene.dice]
        for i, j in match(truth, [d.box for d in read.dice]):
            if scene.dice[i].cocked:
                flagged += int(read.dice[j].cocked)
            else:
                flat += 1
                false_flags += int(read.dice[j].cocked)
    print(
        f"cocked dice: {flagged}/{frames} flagged; flat dice wrongly flagged {false_flags}/{flat}"
    )


def bench_speed(model: FaceModel, frames: int) -> None:
    """Print the median read time of a settled 1280x960 frame with 6 dice, one core."""
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        renderer = Renderer(Settings(hard=True), seed=3000)
        scenes = [renderer.scene(count=6).image for _ in range(min(frames, 40))]
        times = []
        cpu = []
        for n in range(frames):
            start, start_cpu = time.perf_counter(), time.thread_time()
            read_frame(scenes[n % len(scenes)], model)
            cpu.append((time.thread_time() - start_cpu) * 1000)
            times.append((time.perf_counter() - start) * 1000)
        settle = SettleDetector()
        moving = []
        for n in range(frames):
            start = time.perf_counter()
            settle.update(scenes[n % len(scenes)])
            moving.append((time.perf_counter() - start) * 1000)
    finally:
        cv2.setNumThreads(threads)
    print(
        f"read a settled 1280x960 frame, 6 dice, one core: median {statistics.median(times):.1f} ms, "
        f"p95 {sorted(times)[int(0.95 * len(times))]:.1f} ms, CPU time median "
        f"{statistics.median(cpu):.1f} ms ({frames} reads); "
        f"settle check per frame {statistics.median(moving):.2f} ms"
    )


def main(argv: list[str]) -> int:
    """Print every figure; ``--quick`` for a smoke run."""
    parser = argparse.ArgumentParser(prog="toptable bench dice")
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--dice", type=int, help="synthetic dice to read (default 10000)")
    parser.add_argument("--cocked", type=int, help="frames with a cocked die (default 300)")
    parser.add_argument("--reads", type=int, help="timed frame reads (default 300)")
    parser.add_argument("--dataset", type=Path, default=SHARED)
    args = parser.parse_args(argv)
    model = default_model()
    dice = args.dice or (600 if args.quick else 10_000)
    bench_real(args.dataset)
    bench_synthetic(model, dice)
    bench_cocked(model, args.cocked or (30 if args.quick else 300))
    bench_speed(model, args.reads or (50 if args.quick else 300))
    return 0
