"""A large labelled set, as a labelling service exports one (``toptable bench dice --large N``).

A stranger with a crowded tray (:func:`vision.synth.strangers.stranger`, seed
``LARGE_SEED``: 13 to 39 dice a photo) photographed N times (default 200, every face
shown) is calibrated as ``toptable dice calibrate`` does, with its leave-photos-out check
(:func:`vision.learning.report.calibrate_with_report`), in a child process held to one
core; then 50 new photos are read. Printed: the photos and dice learned from (calibration's
budget, :mod:`vision.learning.photo_budget`), the CPU and wall time, the child's peak
resident memory, and the new photos' figures. No issue sets a target here; a Raspberry Pi 4
has 1 to 8 GB.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

from controller.bench.dice_costs import one_thread_child
from vision.synth.strangers import stranger, write_stranger

LARGE_SEED = 2913
NEW_PHOTOS = 50

_CHILD = """
import sys
from pathlib import Path
from controller.bench.dice_large import large_set_figures
print(large_set_figures(Path(sys.argv[1])))
"""


def large_set_figures(root: Path) -> str:
    """In the child process: hold it to one CPU, calibrate ``root/train`` with its check
    (progress on stderr), read ``root/test``; the figures as JSON."""
    import resource
    import time

    import cv2

    from vision.learning.dataset import load_dataset
    from vision.learning.evaluate import evaluate
    from vision.learning.progress import progress_bar
    from vision.learning.report import calibrate_with_report

    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    cv2.setNumThreads(1)
    train, test = load_dataset(root / "train"), load_dataset(root / "test")
    wall, cpu = time.perf_counter(), time.process_time()
    model, report = calibrate_with_report(train, face_set="large", progress=progress_bar())
    spent = (time.process_time() - cpu, time.perf_counter() - wall)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    result = evaluate(test, model).to_json()
    learned = json.loads(model.report)["learned_from"]
    check = report.cv.to_json() if report.cv is not None else {}
    return json.dumps(
        {
            "photos": len(train.items),
            "dice": train.dice_count,
            "learned_photos": learned["photos"],
            "learned_dice": learned["dice"],
            "cpu_s": spent[0],
            "wall_s": spent[1],
            "peak_mb": peak_mb,
            "check_f1": check.get("f1", float("nan")),
            "check_faces": check.get("accuracy", float("nan")),
            "test_dice": test.dice_count,
            **{k: result[k] for k in ("f1", "accuracy", "unsure", "wrong_above_threshold")},
        }
    )


def large_lines(f: dict[str, float]) -> list[str]:
    """The figures (``large_set_figures``' JSON) as printed lines."""
    return [
        f"  calibration with its 3-fold check, one core: {f['cpu_s']:.0f} s CPU (wall "
        f"{f['wall_s']:.0f} s), peak memory {f['peak_mb']:.0f} MB; learned from "
        f"{f['learned_photos']:.0f} of its {f['photos']:.0f} photos ({f['learned_dice']:.0f} "
        f"of {f['dice']:.0f} dice); the check: F1 {f['check_f1']:.4f}, faces "
        f"{f['check_faces']:.2%}",
        f"  its {f['test_dice']:.0f} new dice: detection F1 {f['f1']:.4f}, faces right "
        f"{f['accuracy']:.2%}, unsure {f['unsure']:.0f}, wrong above the threshold "
        f"{f['wrong_above_threshold']:.0f}",
    ]


def bench_large(photos: int, tiny: bool = False) -> None:
    """Print the figures of a set of ``photos`` labelled photos (``tiny``: a small stranger,
    a smoke run)."""
    who = stranger(LARGE_SEED, tiny=tiny)
    print(f"a large labelled set ({photos} photos of stranger {LARGE_SEED}: {who.describe()}): "
          "rendering, then calibrating with its check and reading on one core", flush=True)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="toptable-large-") as tmp:
        root = Path(tmp)
        write_stranger(root / "train", who, photos, 1, every_face=True)
        write_stranger(root / "test", who, NEW_PHOTOS if not tiny else 4, 2)
        figures = one_thread_child(_CHILD, root)
    if figures is not None:
        print("\n".join(large_lines(figures)), flush=True)
