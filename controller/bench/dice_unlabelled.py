"""``toptable bench dice --unlabelled N``: does calibration name a die the owner left
without a label, and does the reader still find such dice?

Each of N strangers (:mod:`vision.synth.strangers`) is calibrated twice on 20 of its
photos: as labelled, and with one label line taken out of each of ``DROPPED`` photos (a
seeded draw among photos of two dice or more), as an owner forgets a die. Each
calibration reads 50 new photos. Figures: the dice taken out that calibration named
(with the right face), the places it named on the photos as labelled (each one a false
alarm), and detection F1 and faces right of both calibrations
(:mod:`vision.learning.unlabeled`).
"""

from __future__ import annotations

import json
import math
import tempfile
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.errors import ModelError
from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import evaluate
from vision.synth.strangers import stranger, write_stranger

UNLABELLED_SEED = 2900  # the second set of the strangers' bench
DROPPED = 3  # photos that lose one label line each
PHOTOS = (20, 50)  # calibrate on, read
TINY_PHOTOS = (4, 3)  # a smoke run
NEAR = 0.5  # a named place within this many die sides of a die taken out is that die


@dataclass(frozen=True)
class UnlabelledFigures:
    """One stranger, calibrated as labelled and with labels taken out."""

    seed: int
    what: str
    dropped: int  # label lines taken out
    named: int  # of them, named by calibration at their place
    named_right: int  # of those, with the face they were labelled
    false_alarms: int  # places named on the photos as labelled
    f1: tuple[float, float]  # new photos' detection F1: as labelled, labels taken out
    faces: tuple[float, float]  # new photos' faces right: the same two
    failed: str = ""  # why a calibration refused (its figures are then 0)


def _named(report: str) -> list[tuple[str, float, float, str]]:
    """(label file, x, y, face) of each die calibration named as having no label."""
    out = []
    for warning in json.loads(report).get("warnings", []):
        if "has no label line" not in warning:
            continue
        label = warning.split(": a die near (")[0]
        x, y = (float(v) for v in warning.split("near (")[1].split(")")[0].split(","))
        out.append((label, x, y, warning.split("reads as ")[1].split(" (")[0].strip("'\"")))
    return out


def drop_labels(root: Path, count: int, seed: int) -> list[tuple[str, int, float, float]]:
    """Take one label line out of each of ``count`` label files of ``root`` holding two
    dice or more (seeded), never a face's last one (calibration would refuse, rightly);
    (label file, class, cx, cy) of each line taken out."""
    rng = np.random.default_rng(seed)
    files = sorted((root / "labels").glob("*.txt"))
    lines_of = {p: p.read_text(encoding="utf-8").splitlines() for p in files}
    left = Counter(line.split()[0] for lines in lines_of.values() for line in lines)
    files = [p for p in files if len(lines_of[p]) >= 2]
    taken = []
    for index in rng.choice(len(files), min(count, len(files)), replace=False):
        path = files[int(index)]
        lines = lines_of[path]
        spare = [i for i, line in enumerate(lines) if left[line.split()[0]] >= 2]
        if not spare:
            continue
        line = lines.pop(spare[int(rng.integers(len(spare)))])
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        cls, cx, cy = line.split()[:3]
        left[cls] -= 1
        taken.append((f"labels/{path.name}", int(cls), float(cx), float(cy)))
    return taken


def bench_one_unlabelled(seed: int, tiny: bool = False) -> UnlabelledFigures:
    """Calibrate one stranger as labelled and with labels taken out; read new photos."""
    cv2.setNumThreads(1)
    who = stranger(seed, tiny=tiny)
    train_n, test_n = TINY_PHOTOS if tiny else PHOTOS
    with tempfile.TemporaryDirectory(prefix="toptable-unlabelled-") as tmp:
        root = write_stranger(Path(tmp) / "train", who, train_n, 1, every_face=True)
        test = load_dataset(write_stranger(Path(tmp) / "test", who, test_n, 2))
        try:
            intact = calibrate(load_dataset(root))
            taken = drop_labels(root, DROPPED, seed)
            forgot = calibrate(load_dataset(root))
        except ModelError as exc:
            return UnlabelledFigures(seed, who.describe(), 0, 0, 0, 0, (0, 0), (0, 0), str(exc))
        width, height = cv2.imread(str(next((root / "images").iterdir()))).shape[1::-1]
        read_intact, read_forgot = evaluate(test, intact), evaluate(test, forgot)
    named = _named(forgot.report)
    hits = right = 0
    for label, cls, cx, cy in taken:
        near = [n for n in named if n[0] == label
                and math.hypot(n[1] - cx * width, n[2] - cy * height) < NEAR * who.die_px]  # fmt: skip
        hits += bool(near)
        right += any(n[3] == forgot.names[cls] for n in near)
    return UnlabelledFigures(
        seed,
        who.describe(),
        len(taken),
        hits,
        right,
        len(_named(intact.report)),
        (read_intact.f1, read_forgot.f1),
        (read_intact.accuracy, read_forgot.accuracy),
    )


def bench_unlabelled(
    count: int, seed: int = UNLABELLED_SEED, tiny: bool = False
) -> list[UnlabelledFigures]:
    """Print each stranger's figures and the summary; return the rows."""
    print(f"dice left without a label: each stranger calibrated as labelled and with "
          f"{DROPPED} label lines taken out, each reading new photos (one core)", flush=True)  # fmt: skip
    rows = []
    for k in range(count):
        row = bench_one_unlabelled(seed + k, tiny)
        rows.append(row)
        end = f"calibration refused: {row.failed}" if row.failed else row.what
        print(f"  stranger {row.seed}: named {row.named} of {row.dropped} taken out "
              f"({row.named_right} with their face), false alarms {row.false_alarms}; F1 "
              f"{row.f1[0]:.4f} -> {row.f1[1]:.4f}, faces {row.faces[0]:.2%} -> "
              f"{row.faces[1]:.2%} ({end})", flush=True)  # fmt: skip
    dropped = sum(r.dropped for r in rows)
    print(f"dice left without a label on {len(rows)} strangers' tables: named "
          f"{sum(r.named for r in rows)} of {dropped} ({sum(r.named_right for r in rows)} "
          f"with their face); false alarms {sum(r.false_alarms for r in rows)}", flush=True)  # fmt: skip
    return rows
