"""Experiment, not product: strangers photographed as small phone photos (360x640).

Issue 28's third real table was small phone photos (360x640, portrait) of pip and
ornate symbol dice; the strangers' benchmark draws its photo sizes from 640x480 up, so
this renders each stranger of the seeds given again at 360x640 — its dice, table,
camera angle and light as drawn, the die 18 to 60 pixels (drawn from the seed), as many
dice as the smaller photo has room for — calibrates on 20 photos and reads 50 new ones,
as the benchmark does (``controller.bench.dice``), with the reader's code and settings
unchanged. Figures and what they say: docs/decisions/vision.md, "Small phone photos".

From the checkout (a stranger takes 0.5 to 4 minutes on one core)::

    .venv/bin/python -m tools.experiments.small_phone 2800 2801 2802
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace

import cv2
import numpy as np

from controller.bench.dice import bench_stranger
from vision.synth.strangers import Stranger, stranger

SMALL = (360, 640)


def small_phone(seed: int) -> Stranger:
    """The stranger of ``seed`` photographed at 360x640."""
    base = stranger(seed)
    width, height = SMALL
    die = float(np.random.default_rng([seed, 360]).uniform(18, 60))
    room = int(0.25 * width * height / (die * 1.6) ** 2)
    most = max(1, min(base.dice[1], room))
    lens = base.focal / max(base.width, base.height) * max(width, height)  # the same lens
    return replace(base, width=width, height=height, die_px=die, focal=lens,
                   dice=(max(1, most // 3), most))  # fmt: skip


def one(seed: int) -> str:
    """One stranger's figures, in one line."""
    start = time.time()
    r = bench_stranger(small_phone(seed))
    if r.failed:
        return f"{seed} {r.what}: calibration refused: {r.failed}"
    return (
        f"{seed} {r.what}: dice {r.dice} F1 {r.f1:.4f} faces {r.faces:.2%} "
        f"unsure {r.unsure} unflagged {r.unflagged} ({time.time() - start:.0f} s)"
    )


def main(argv: list[str]) -> None:
    """Print each seed's line."""
    cv2.setNumThreads(1)
    for seed in argv:
        print(one(int(seed)), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
