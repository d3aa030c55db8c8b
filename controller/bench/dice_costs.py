"""What reading and calibrating cost, against issue 28's targets (part of ``toptable bench dice``).

Each figure is printed with its target and ``meets`` or ``MISSES``:

- the table's case, the pi-tray model: a settled 1280x960 frame (the pi-tray photos as
  camera frames) and a 12-megapixel JPEG from disk, read on one core
  (``cv2.setNumThreads(1)``); the model file's size and the resident memory it adds;
- a stranger photographed by a 12-megapixel phone
  (:func:`vision.synth.strangers.phone_stranger`: 4000x3000 photos of 16 to 26 marbled
  dice seen at an angle): 20 photos to calibrate on, 10 new ones to read. A child
  process held to one core (its affinity one CPU; OpenCV and the BLAS libraries told to
  use one thread) calibrates, showing its progress, and reads the new photos as 12 MP
  JPEGs from disk and as 1280x960 frames; its CPU time is judged (the wall time,
  printed beside it, includes whatever else runs on the machine). Then the model file's
  size, and the memory the model adds in a fresh process.

Beside them, what the two shipped face networks cost a view on one core run by
``cv2.dnn`` (as the reader runs them) and by numpy (the reference pass): the issue asks
for whichever is faster, measured.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.images import read_image, write_image
from vision.learning.dataset import load_dataset
from vision.reading.embedding import VIEW_PX, default_embedding, strangers_embedding
from vision.reading.model import FaceModel
from vision.reading.read import read_file, read_frame
from vision.synth.strangers import Stranger, phone_stranger, write_stranger

ROOT = Path(__file__).resolve().parents[2]
PHONE_PHOTOS = (20, 10)  # calibrate on, read
ONE_THREAD = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


@dataclass(frozen=True)
class Target:
    """A figure's limit: a value at or under ``limit`` meets it."""

    limit: float
    unit: str

    def judge(self, value: float) -> str:
        """The target and ``meets`` or ``MISSES``, in parentheses."""
        verdict = "meets" if value <= self.limit else "MISSES"
        return f"(target ≤ {self.limit:g} {self.unit}: {verdict})"


CALIBRATION = Target(180.0, "s")
READ_1280 = Target(25.0, "ms")
READ_12MP = Target(500.0, "ms")
MODEL_FILE = Target(20.0, "MB")
MEMORY = Target(60.0, "MB")


# --- the memory a model adds ----------------------------------------------------------


def rss_mb() -> float:
    """This process's resident memory in MB (NaN where ``/proc`` does not say)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return float("nan")


_MEMORY_PROBE = """
import sys
from controller.bench.dice_costs import rss_mb
from vision.reading.model import load_model
from vision.reading.read import read_frame
from vision.synth.scenes import Renderer
frame = Renderer(seed=1).scene(count=6).image
before = rss_mb()
model = load_model(sys.argv[1])
for _ in range(5):
    read_frame(frame, model)
print(f"{rss_mb() - before:.1f} {rss_mb():.0f}")
"""


def model_memory(path: Path) -> tuple[float, float] | None:
    """In a fresh process: the resident memory (MB) that loading the model at ``path`` and
    reading 1280x960 frames add to the imported reader, and the process's; None if the
    probe failed."""
    done = subprocess.run(
        [sys.executable, "-c", _MEMORY_PROBE, str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=300,
    )
    parts = done.stdout.split()
    if done.returncode != 0 or len(parts) != 2:
        return None
    return float(parts[0]), float(parts[1])


def _size_memory_line(path: Path) -> str:
    size = path.stat().st_size / 1e6
    memory = model_memory(path)
    added = (
        f"+{memory[0]:.1f} MB resident (process {memory[1]:.0f} MB) {MEMORY.judge(memory[0])}"
        if memory is not None
        else "not measured"
    )
    return f"model file {size:.2f} MB {MODEL_FILE.judge(size)}; reader memory {added}"


# --- the table's case: the pi-tray model ----------------------------------------------


def bench_speed(model: FaceModel, root: Path, reads: int) -> None:
    """Print read times on one core: 1280x960 frames and a 12-megapixel JPEG."""
    dataset = load_dataset(root)
    frames = []
    for item in dataset.items:
        half = cv2.imread(str(item.image), cv2.IMREAD_REDUCED_COLOR_2)
        if half is not None:
            frames.append(cv2.resize(half, (1280, 960), interpolation=cv2.INTER_AREA))
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        wall, cpu = [], []
        for n in range(reads):
            frame = frames[n % len(frames)]
            start, start_cpu = time.perf_counter(), time.thread_time()
            read_frame(frame, model)
            cpu.append((time.thread_time() - start_cpu) * 1000)
            wall.append((time.perf_counter() - start) * 1000)
        with tempfile.TemporaryDirectory(prefix="toptable-12mp-") as tmp:
            big = cv2.resize(read_image(dataset.items[0].image), (4000, 3000))
            path = Path(tmp) / "12mp.jpg"
            write_image(path, big, [cv2.IMWRITE_JPEG_QUALITY, 92])
            big_ms = []
            for _ in range(5):
                start = time.perf_counter()
                read_file(path, model)
                big_ms.append((time.perf_counter() - start) * 1000)
    finally:
        cv2.setNumThreads(threads)
    print(
        f"speed, one core: a settled 1280x960 frame (pi-tray as camera frames) median "
        f"{statistics.median(wall):.1f} ms wall, p95 {sorted(wall)[int(0.95 * len(wall))]:.1f} ms, "
        f"CPU {statistics.median(cpu):.1f} ms ({reads} reads) "
        f"{READ_1280.judge(statistics.median(cpu))}; a 12-megapixel JPEG from disk "
        f"(decode + read) median {statistics.median(big_ms):.0f} ms "
        f"{READ_12MP.judge(statistics.median(big_ms))}",
        flush=True,
    )


def bench_networks() -> None:
    """Print :func:`network_times` as measured in a child process whose BLAS and OpenMP
    libraries use one thread (numpy's BLAS reads that when it is imported)."""
    done = subprocess.run(
        [sys.executable, "-c", "import controller.bench.dice_costs as c; c.network_times()"],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, **dict.fromkeys(ONE_THREAD, "1")},
        check=False,
        timeout=300,
    )
    line = done.stdout.strip() if done.returncode == 0 else ""
    print(line or f"face networks: the one-core run failed (exit {done.returncode})", flush=True)


def network_times(views: int = 24, rounds: int = 40) -> None:
    """Print the CPU time a view of the two shipped face networks costs on one core, run
    by ``cv2.dnn`` and by numpy, in batches of ``views`` (a frame's dice), taking turns
    (a busy spell of the machine falls on both): the process's CPU time, so that a BLAS
    helper thread would count."""
    nets = (default_embedding(), strangers_embedding())
    batch = np.random.default_rng(0).standard_normal((views, VIEW_PX, VIEW_PX))
    batch = batch.astype(np.float32)  # the cost does not depend on what the views show
    threads = cv2.getNumThreads()
    cv2.setNumThreads(1)
    try:
        times: dict[bool, list[float]] = {False: [], True: []}  # by numpy?
        for n in range(rounds + 1):  # the first builds and warms; then the two take turns
            for numpy_pass, spent in times.items():
                start = time.process_time()
                for net in nets:
                    embed = net.embed_numpy if numpy_pass else net.embed
                    embed(batch)
                if n:
                    spent.append((time.process_time() - start) * 1000 / views)
        ms = {"cv2.dnn": statistics.median(times[False]), "numpy": statistics.median(times[True])}
    finally:
        cv2.setNumThreads(threads)
    runs = "cv2.dnn" if all(n.runs_dnn for n in nets) else "numpy (cv2.dnn cannot: see the log)"
    print(
        f"face networks, one core: a die's view through both, CPU median "
        f"{ms['cv2.dnn']:.2f} ms by cv2.dnn, {ms['numpy']:.2f} ms by numpy (batches of "
        f"{views}); the reader runs {runs}",
        flush=True,
    )


def bench_size_memory(model: FaceModel) -> None:
    """Print the model file's size and, in a fresh process, the resident memory that
    loading it and reading 1280x960 frames add to the imported reader."""
    with tempfile.TemporaryDirectory(prefix="toptable-model-") as tmp:
        line = _size_memory_line(model.save(Path(tmp) / "m.npz"))
    print(f"pi-tray {line}", flush=True)


# --- a stranger photographed by a 12-megapixel phone ---------------------------------

_CHILD = """
import sys
from pathlib import Path
from controller.bench.dice_costs import one_core_figures
print(one_core_figures(Path(sys.argv[1])))
"""


def one_core_figures(root: Path) -> str:
    """In the child process: hold it to one CPU, calibrate on ``root/train`` (progress
    on stderr), save ``root/model.npz``, read ``root/test``; the figures as JSON."""
    from vision.learning.calibrate import calibrate
    from vision.learning.evaluate import evaluate
    from vision.learning.progress import progress_bar

    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    cv2.setNumThreads(1)
    train, test = load_dataset(root / "train"), load_dataset(root / "test")
    wall, cpu = time.perf_counter(), time.process_time()
    model = calibrate(train, face_set="phone", progress=progress_bar())
    calibration = (time.process_time() - cpu, time.perf_counter() - wall)
    model.save(root / "model.npz")
    big, small = [], []
    for item in test.items:
        cpu = time.process_time()
        read_file(item.image, model)
        big.append((time.process_time() - cpu) * 1000)
        frame = cv2.resize(read_image(item.image), (1280, 960), interpolation=cv2.INTER_AREA)
        for _ in range(3):
            cpu = time.process_time()
            read_frame(frame, model)
            small.append((time.process_time() - cpu) * 1000)
    result = evaluate(test, model).to_json()
    return json.dumps(
        {
            "train_dice": train.dice_count,
            "test_dice": test.dice_count,
            "calibration_cpu_s": calibration[0],
            "calibration_wall_s": calibration[1],
            "read_12mp_ms": statistics.median(big),
            "read_1280_ms": statistics.median(small),
            **{k: result[k] for k in ("f1", "accuracy", "unsure", "wrong_above_threshold")},
        }
    )


def write_phone_photos(root: Path, who: Stranger, photos: tuple[int, int] = PHONE_PHOTOS) -> None:
    """The stranger's calibration photos (every face shown) in ``root/train``, new ones in
    ``root/test``."""
    write_stranger(root / "train", who, photos[0], 1, every_face=True)
    write_stranger(root / "test", who, photos[1], 2)


def phone_lines(f: dict[str, float], model_line: str) -> list[str]:
    """The 12 MP stranger's figures (``one_core_figures``' JSON) as printed lines."""
    dice_a_frame = f["test_dice"] / PHONE_PHOTOS[1]
    return [
        f"  calibration on {PHONE_PHOTOS[0]} photos of 12 MP ({f['train_dice']:.0f} dice), "
        f"one core: {f['calibration_cpu_s']:.0f} s CPU (wall {f['calibration_wall_s']:.0f} s) "
        f"{CALIBRATION.judge(f['calibration_cpu_s'])}",
        f"  a 12 MP JPEG from disk (decode + read), one core, median: "
        f"{f['read_12mp_ms']:.0f} ms CPU {READ_12MP.judge(f['read_12mp_ms'])}",
        f"  the same photos as 1280x960 frames ({dice_a_frame:.0f} dice a frame), one core, "
        f"median: {f['read_1280_ms']:.1f} ms CPU {READ_1280.judge(f['read_1280_ms'])}",
        f"  {model_line}",
        f"  its {f['test_dice']:.0f} new dice: detection F1 {f['f1']:.4f}, faces right "
        f"{f['accuracy']:.2%}, unsure {f['unsure']:.0f}, wrong above the threshold "
        f"{f['wrong_above_threshold']:.0f}",
    ]


def bench_phone() -> None:
    """Print the 12 MP stranger's figures, each with its target."""
    who = phone_stranger()
    print(f"12-megapixel stranger ({who.describe()}): rendering {sum(PHONE_PHOTOS)} photos, "
          "then calibrating and reading on one core", flush=True)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="toptable-phone-") as tmp:
        root = Path(tmp)
        write_phone_photos(root, who)
        figures = one_thread_child(_CHILD, root)
        if figures is None:
            return
        model_line = _size_memory_line(root / "model.npz")
    print("\n".join(phone_lines(figures, model_line)), flush=True)


def one_thread_child(script: str, root: Path) -> dict[str, float] | None:
    """Run ``script`` (Python printing its figures as JSON on its last line) in a child
    process with ``root`` as its argument and the BLAS libraries held to one thread (the
    script holds itself to one core); its figures, or None (said so) if it failed."""
    done = subprocess.run(
        [sys.executable, "-c", script, str(root)],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env={**os.environ, **dict.fromkeys(ONE_THREAD, "1")},
        check=False,
    )
    if done.returncode != 0 or not done.stdout.strip():
        print(f"  the one-core run failed (exit {done.returncode})", flush=True)
        return None
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures
