"""``toptable bench dice --played N``: what a table learns from the throws played on it.

Each of N strangers whose trays hold few dice (at most ``FEW_DICE`` a photo: the tables
whose twenty calibration photos hold the fewest labelled dice, and ask the most) is
calibrated on 20 photos; then 50 throws are played: each photo is read as the table reads
a settled throw, kept as evidence with its dice boxes beside it
(:mod:`vision.reading.evidence`), and settled on as the players would: a die read sure
keeps its read face (right or wrong: the players let it stand), a die asked about gets its
true face (their answer), and a throw whose dice the reader did not all find alone is
counted by hand (then left out, as :mod:`vision.learning.table_photos` leaves it).
The played throws are written as labelled photos, learned beside the 20
(``dice calibrate --also``), and 50 new photos are read by both models.
"""

from __future__ import annotations

import shutil
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import cv2

from vision.errors import ModelError
from vision.learning.calibrate import calibrate
from vision.learning.dataset import Dataset, load_dataset
from vision.learning.evaluate import EvalResult, evaluate, match
from vision.learning.table_photos import PlayedThrow, joined, write_table_photos
from vision.reading.evidence import ThrowBoxes, write_boxes
from vision.reading.model import FaceModel
from vision.reading.read import load_scaled, read_frame
from vision.synth.strangers import Stranger, stranger, write_stranger

PLAYED_SEED = 2800  # the strangers' bench's first seed: the same tables
FEW_DICE = 6  # a stranger whose photos hold at most this many dice is a table of few dice
PHOTOS = (20, 50, 50)  # calibrate on, play, read new
TINY_PHOTOS = (4, 4, 3)  # a smoke run


@dataclass(frozen=True)
class PlayedFigures:
    """One stranger's new photos read by its 20-photo model, then with its played throws."""

    seed: int
    what: str
    kept: int  # played throws kept as labelled photos
    played: int
    answered: int  # dice asked about and answered (their true face)
    kept_wrong: int  # dice read wrong and sure, kept so (the players let them stand)
    before: EvalResult
    after: EvalResult
    seconds: float  # the second calibration, CPU
    failed: str = ""


def few_dice_strangers(count: int, seed: int = PLAYED_SEED, tiny: bool = False) -> list[int]:
    """The first ``count`` strangers from ``seed`` whose photos hold at most ``FEW_DICE``."""
    seeds: list[int] = []
    s = seed
    while len(seeds) < count:
        if stranger(s, tiny=tiny).dice[1] <= FEW_DICE:
            seeds.append(s)
        s += 1
    return seeds


def play_throws(
    played: Dataset, model: FaceModel, evidence: Path
) -> tuple[list[PlayedThrow], int, int, int]:
    """``played``'s photos read and settled on as the table would (see the module notes),
    each kept in ``evidence`` with its boxes: the throws whose dice were all found, the
    dice answered, the dice kept wrong, and the throws counted by hand (not kept)."""
    evidence.mkdir(parents=True, exist_ok=True)
    throws: list[PlayedThrow] = []
    answered = kept_wrong = by_hand = 0
    for n, item in enumerate(played.items, start=1):
        frame = evidence / f"throw_{n:05d}{item.image.suffix}"
        shutil.copyfile(item.image, frame)
        image, factor = load_scaled(frame, model)
        read = read_frame(image, model, factor=factor)
        w, h = read.size  # (the read's boxes and size are the photo's own pixels)
        write_boxes(frame, ThrowBoxes(read.size, tuple(d.box for d in read.dice), read.faces))
        pairs = match([d.box_px(w, h) for d in item.dice], [d.box for d in read.dice])
        if len(pairs) != len(item.dice) or len(read.dice) != len(item.dice):
            by_hand += 1  # the players count the throw by hand: no box for each face
            continue
        truth = {j: played.names[item.dice[i].cls] for i, j in pairs}
        faces = []
        for j, die in enumerate(read.dice):
            if die.unsure or die.cocked or die.cut:
                answered += 1
                faces.append(truth[j])
            else:
                kept_wrong += die.guess != truth[j]
                faces.append(die.guess)
        throws.append(PlayedThrow(frame, tuple(faces)))
    return throws, answered, kept_wrong, by_hand


def bench_one_played(seed: int, tiny: bool = False) -> PlayedFigures:
    """Calibrate on one stranger's photos, play 50 throws, learn them, read 50 new photos."""
    cv2.setNumThreads(1)
    who: Stranger = stranger(seed, tiny=tiny)
    train_n, play_n, new_n = TINY_PHOTOS if tiny else PHOTOS
    with tempfile.TemporaryDirectory(prefix="toptable-played-") as tmp:
        root = Path(tmp)
        train = load_dataset(write_stranger(root / "train", who, train_n, 1, every_face=True))
        played = load_dataset(write_stranger(root / "played", who, play_n, 2))
        new = load_dataset(write_stranger(root / "new", who, new_n, 3))
        try:
            model = calibrate(train)
        except ModelError as exc:
            empty = EvalResult(new.names)
            return PlayedFigures(seed, who.describe(), 0, play_n, 0, 0, empty, empty, 0.0,
                                 str(exc))  # fmt: skip
        throws, answered, kept_wrong, _ = play_throws(played, model, root / "evidence")
        report = write_table_photos(throws, new.names, root / "table")
        start = time.process_time()
        learned = calibrate(joined(train, load_dataset(root / "table")))
        seconds = time.process_time() - start
        before, after = evaluate(new, model), evaluate(new, learned)
    return PlayedFigures(seed, who.describe(), report.photos, play_n, answered, kept_wrong,
                         before, after, seconds)  # fmt: skip


def _figures(r: EvalResult) -> str:
    return (f"F1 {r.f1:.4f}, faces {r.accuracy:.2%}, unsure {r.unsure} "
            f"({r.unsure / max(r.dice, 1):.1%}), unflagged wrong {r.wrong_sure}")  # fmt: skip


def bench_played(count: int, seed: int = PLAYED_SEED, tiny: bool = False) -> list[PlayedFigures]:
    """Print each stranger's figures before and after learning its played throws, then the
    summary; return the rows."""
    train_n, play_n, new_n = TINY_PHOTOS if tiny else PHOTOS
    print(f"throws played at the table, learned: strangers of at most {FEW_DICE} dice a photo, "
          f"calibrated on {train_n} photos, {play_n} throws played (asked dice answered), "
          f"{new_n} new photos read by the first model -> by the one that learned the played "
          "throws too (one core)", flush=True)  # fmt: skip
    rows = []
    for s in few_dice_strangers(count, seed, tiny):
        row = bench_one_played(s, tiny)
        rows.append(row)
        if row.failed:
            print(f"  stranger {s}: calibration refused: {row.failed}", flush=True)
            continue
        print(f"  stranger {s}: {row.after.dice} dice: {_figures(row.before)} -> "
              f"{_figures(row.after)}; kept {row.kept} of {row.played} throws ({row.answered} "
              f"dice answered, {row.kept_wrong} let stand wrong); calibration {row.seconds:.0f} s "
              f"({row.what})", flush=True)  # fmt: skip
    done = [r for r in rows if not r.failed]
    if done:
        faces = [(r.before.accuracy, r.after.accuracy) for r in done]
        dice = sum(r.after.dice for r in done)
        print(f"{len(done)} tables of few dice, {dice} new dice: faces right median "
              f"{statistics.median(f[0] for f in faces):.2%} -> "
              f"{statistics.median(f[1] for f in faces):.2%}, worst {min(f[0] for f in faces):.2%} "
              f"-> {min(f[1] for f in faces):.2%}; unsure {sum(r.before.unsure for r in done)} -> "
              f"{sum(r.after.unsure for r in done)}; unflagged wrong "
              f"{sum(r.before.wrong_sure for r in done)} -> {sum(r.after.wrong_sure for r in done)}",
              flush=True)  # fmt: skip
    return rows
