"""``toptable bench dice --handheld N``: strangers photographed by hand, the phone nearer
or farther each time.

Each of N strangers (:mod:`vision.synth.strangers`) is rendered with each photo's dice
between ``1 / SPREAD`` and ``SPREAD`` times its die size (``Stranger.distance_spread``),
calibrated on 20 such photos and read on 50 new ones twice: at the size calibration
learned (as a camera fixed over the table is read) and at the size found in each photo
(as photos are read: measured by the finder, :mod:`vision.reading.photo_scale`, and
checked by how its dice look, :mod:`vision.reading.look_scale`, or by the look alone where
the finder cannot measure). Figures: detection F1, faces right, unsure and unflagged wrong
of both reads, whether calibration took the photos for hand-held and measures them, and
the resident memory its model adds to a fresh reader (the probe of
:func:`controller.bench.dice_costs.model_memory`; a hand-held photo's look makes frames
several times a photo's).
"""

from __future__ import annotations

import json
import statistics
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path

import cv2

from controller.bench.dice_costs import MEMORY, model_memory
from vision.errors import ModelError
from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import EvalResult, evaluate
from vision.synth.strangers import stranger, write_stranger

HANDHELD_SEED = 2800  # the first set of the strangers' bench, taken by hand
SPREAD = 1.5  # each photo's dice between 1 / SPREAD and SPREAD times the stranger's size
PHOTOS = (20, 50)  # calibrate on, read
TINY_PHOTOS = (4, 3)  # a smoke run


@dataclass(frozen=True)
class HandheldFigures:
    """One hand-held stranger's new photos read at the learned size and at the found."""

    seed: int
    what: str
    dice: int
    f1: tuple[float, float]  # learned size, found size
    faces: tuple[float, float]
    unsure: tuple[int, int]
    unflagged: tuple[int, int]
    hand_held: bool  # calibration saw photos from different distances
    measures: bool  # and the reader measures each photo's die size
    failed: str = ""  # why calibration refused (its figures are then 0)
    memory: float | None = None  # MB its model and reads add to a fresh reader (None: not measured)


def bench_one_handheld(seed: int, tiny: bool = False) -> HandheldFigures:
    """Calibrate on one hand-held stranger's photos; read its new ones both ways."""
    cv2.setNumThreads(1)
    who = replace(stranger(seed, tiny=tiny), distance_spread=SPREAD)
    train_n, test_n = TINY_PHOTOS if tiny else PHOTOS
    with tempfile.TemporaryDirectory(prefix="toptable-handheld-") as tmp:
        train = load_dataset(write_stranger(Path(tmp) / "train", who, train_n, 1, every_face=True))
        test = load_dataset(write_stranger(Path(tmp) / "test", who, test_n, 2))
        try:
            model = calibrate(train)
        except ModelError as exc:
            zero = (0, 0)
            return HandheldFigures(seed, who.describe(), test.dice_count, (0.0, 0.0),
                                   (0.0, 0.0), zero, zero, False, False, str(exc))  # fmt: skip
        fixed: EvalResult = evaluate(test, model, die_scale=1.0)
        measured: EvalResult = evaluate(test, model)
        memory = model_memory(model.save(Path(tmp) / "model.npz"))
    report = json.loads(model.report)
    return HandheldFigures(
        seed,
        who.describe(),
        measured.dice,
        (fixed.f1, measured.f1),
        (fixed.accuracy, measured.accuracy),
        (fixed.unsure, measured.unsure),
        (fixed.wrong_sure, measured.wrong_sure),
        report["hand_held"],
        report["photo_scale"]["measured"],
        memory=None if memory is None else memory[0],
    )


def _how(row: HandheldFigures) -> str:
    """What calibration made of the stranger's photos."""
    if not row.hand_held:
        return "calibration took the photos for a fixed camera's"
    if not row.measures:
        return "taken by hand, each read at the size its dice look best (the measure missed)"
    return "taken by hand, each read at its measured size, checked by the look"


def bench_handheld(
    count: int, seed: int = HANDHELD_SEED, tiny: bool = False
) -> list[HandheldFigures]:
    """Print each hand-held stranger's figures and the summary; return the rows."""
    print(f"strangers photographed by hand (dice x{1 / SPREAD:.2f}-{SPREAD:.2f} of their size "
          "from photo to photo), new photos read at the learned size -> at the size found "
          "in each (one core)", flush=True)  # fmt: skip
    rows = []
    for k in range(count):
        row = bench_one_handheld(seed + k, tiny)
        rows.append(row)
        end = f"calibration refused: {row.failed}" if row.failed else row.what
        print(f"  stranger {row.seed}: {row.dice} dice: F1 {row.f1[0]:.4f} -> {row.f1[1]:.4f}, "
              f"faces {row.faces[0]:.2%} -> {row.faces[1]:.2%}, unsure {row.unsure[0]} -> "
              f"{row.unsure[1]}, unflagged wrong {row.unflagged[0]} -> {row.unflagged[1]}, "
              f"reader memory {_mb(row.memory)}; {_how(row)} ({end})",
              flush=True)  # fmt: skip
    if not rows:
        return rows

    def median(values: list[float]) -> str:
        return f"{statistics.median(values):.4f}"

    dice = sum(r.dice for r in rows)
    print(f"{len(rows)} hand-held strangers, {dice} dice: F1 median "
          f"{median([r.f1[0] for r in rows])} -> {median([r.f1[1] for r in rows])}, worst "
          f"{min(r.f1[0] for r in rows):.4f} -> {min(r.f1[1] for r in rows):.4f}; faces "
          f"median {median([r.faces[0] for r in rows])} -> "
          f"{median([r.faces[1] for r in rows])}, worst {min(r.faces[0] for r in rows):.4f} "
          f"-> {min(r.faces[1] for r in rows):.4f}; unsure {sum(r.unsure[0] for r in rows)} -> "
          f"{sum(r.unsure[1] for r in rows)}; unflagged wrong "
          f"{sum(r.unflagged[0] for r in rows)} -> {sum(r.unflagged[1] for r in rows)}; "
          f"{_worst_memory(rows)}",
          flush=True)  # fmt: skip
    return rows


def _mb(memory: float | None) -> str:
    return "not measured" if memory is None else f"+{memory:.1f} MB"


def _worst_memory(rows: list[HandheldFigures]) -> str:
    """The most resident memory a stranger's model added, judged against the target."""
    measured = [r.memory for r in rows if r.memory is not None]
    if not measured:
        return "reader memory not measured"
    return f"reader memory worst +{max(measured):.1f} MB {MEMORY.judge(max(measured))}"
