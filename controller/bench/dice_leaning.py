"""``toptable bench dice --leaning N``: are a stranger's leaning (cocked) dice flagged?

Each of N strangers (:mod:`vision.synth.strangers`) is calibrated on 20 of its photos, as
the strangers' bench does, then reads photos of the same table where about a third of
the dice lean on an edge (:mod:`vision.synth.leaning`). A leaning die should be flagged
cocked (or at least asked about), never read as a face; a flat one should not be flagged.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2

from vision.errors import ModelError
from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.reading.read import DiceRead, read_frame
from vision.synth.leaning import LeaningCamera
from vision.synth.strangers import stranger, write_stranger

LEANING_SEED = 2800  # the first set of the strangers' bench
CALIBRATION_PHOTOS = 20
LEANING_PHOTOS = 20
TINY_PHOTOS = (4, 3)  # calibrate on, read (a smoke run)
NEAR = 0.6  # a read die within this many die sides of a die's centre is that die


@dataclass(frozen=True)
class LeaningFigures:
    """One stranger's dice, leaning and flat, as the reader flagged them."""

    seed: int
    what: str
    leaning: int  # leaning dice found
    cocked: int  # of them, flagged cocked
    asked: int  # of them, not flagged cocked but unsure
    flat: int  # flat dice found
    flat_cocked: int  # of them, flagged cocked
    failed: str = ""  # why calibration refused (its figures are then 0)

    @property
    def guessed(self) -> int:
        """Leaning dice read as a face, sure: the score counts a face the die does not show."""
        return self.leaning - self.cocked - self.asked


def count_dice(read: DiceRead, labels: Sequence[tuple[float, float, float, float]],
               leaning: Sequence[bool], die_px: float) -> tuple[int, int, int, int, int]:  # fmt: skip
    """(leaning found, flagged cocked, asked; flat found, flagged cocked) of one photo: each
    labeled die is the read die nearest its box's centre, within ``NEAR`` sides."""
    out = [0, 0, 0, 0, 0]
    for (x, y, w, h), lean in zip(labels, leaning, strict=True):
        cx, cy = x + w / 2, y + h / 2
        near = [d for d in read.dice if math.dist(d.center, (cx, cy)) < NEAR * die_px]
        if not near:
            continue
        die = min(near, key=lambda d: math.dist(d.center, (cx, cy)))
        if lean:
            out[0] += 1
            out[1] += die.cocked
            out[2] += die.unsure and not die.cocked
        else:
            out[3] += 1
            out[4] += die.cocked
    return out[0], out[1], out[2], out[3], out[4]


def bench_one_leaning(seed: int, tiny: bool = False) -> LeaningFigures:
    """Calibrate on one stranger's flat dice, then read its dice leaning."""
    cv2.setNumThreads(1)
    who = stranger(seed, tiny=tiny)
    train_n, test_n = TINY_PHOTOS if tiny else (CALIBRATION_PHOTOS, LEANING_PHOTOS)
    with tempfile.TemporaryDirectory(prefix="toptable-leaning-") as tmp:
        train = load_dataset(write_stranger(Path(tmp), who, train_n, 1, every_face=True))
        try:
            model = calibrate(train)
        except ModelError as exc:
            return LeaningFigures(seed, who.describe(), 0, 0, 0, 0, 0, str(exc))
    camera = LeaningCamera(who, 3)
    leaning = cocked = asked = flat = flat_cocked = 0
    for _ in range(test_n):
        photo, labels = camera.photo()
        read = read_frame(photo, model)
        n = count_dice(read, [box for _, box in labels], camera.leaning, who.die_px)
        leaning, cocked, asked = leaning + n[0], cocked + n[1], asked + n[2]
        flat, flat_cocked = flat + n[3], flat_cocked + n[4]
    return LeaningFigures(seed, who.describe(), leaning, cocked, asked, flat, flat_cocked)


def leaning_summary(rows: list[LeaningFigures]) -> str:
    """The leaning dice of every stranger, in one line."""
    leaning = sum(r.leaning for r in rows)
    flat = sum(r.flat for r in rows)

    def share(n: int, of: int) -> str:
        return f"{n} ({n / of:.1%})" if of else str(n)

    return (
        f"leaning dice on {len(rows)} strangers' tables: {leaning} found, flagged cocked "
        f"{share(sum(r.cocked for r in rows), leaning)}, asked {share(sum(r.asked for r in rows), leaning)}, "
        f"read as a face {share(sum(r.guessed for r in rows), leaning)}; flat dice {flat}, "
        f"flagged cocked {share(sum(r.flat_cocked for r in rows), flat)}"
    )


def bench_leaning(count: int, seed: int = LEANING_SEED, tiny: bool = False) -> list[LeaningFigures]:
    """Print each stranger's leaning dice and the summary; return the rows."""
    print("leaning dice: each stranger calibrated on its flat dice, reading photos where "
          "about a third of the dice lean (one core)", flush=True)  # fmt: skip
    rows = []
    for k in range(count):
        row = bench_one_leaning(seed + k, tiny)
        rows.append(row)
        end = f"calibration refused: {row.failed}" if row.failed else row.what
        print(f"  stranger {row.seed}: leaning {row.leaning}, cocked {row.cocked}, asked "
              f"{row.asked}, read as a face {row.guessed}; flat {row.flat}, cocked "
              f"{row.flat_cocked} ({end})", flush=True)  # fmt: skip
    print(leaning_summary(rows), flush=True)
    return rows
