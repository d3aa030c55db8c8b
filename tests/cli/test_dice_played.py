"""``toptable bench dice --played N``: new photos read before and after learning the throws
played at the table."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from controller.bench import dice as bench
from controller.bench.dice_played import FEW_DICE, few_dice_strangers, play_throws
from vision.images import header_size
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import match
from vision.learning.table_photos import write_table_photos
from vision.reading.evidence import read_boxes
from vision.synth.strangers import stranger

FIGURES = r"F1 ([\d.]+), faces ([\d.]+)%, unsure (\d+) \([\d.]+%\), unflagged wrong (\d+)"
ROW = re.compile(
    rf"  stranger (\d+): (\d+) dice: {FIGURES} -> {FIGURES}; kept (\d+) of (\d+) throws "
    r"\((\d+) dice answered, (\d+) let stand wrong\); calibration (\d+) s \((.+)\)"
)


def test_the_tables_of_few_dice_are_chosen_by_their_trays() -> None:
    seeds = few_dice_strangers(3)
    assert len(seeds) == 3 and seeds == sorted(seeds) and seeds[0] >= bench.STRANGER_SEED
    assert all(stranger(s).dice[1] <= FEW_DICE for s in seeds)
    skipped = set(range(seeds[0], seeds[-1])) - set(seeds)
    assert all(stranger(s).dice[1] > FEW_DICE for s in skipped)


@pytest.mark.slow  # three calibrations (tiny ones)
@pytest.mark.timeout(600)
def test_a_tiny_table_learns_its_played_throws(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert bench.main(["--quick", "--played", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    rows = [m.groups() for line in out if (m := ROW.fullmatch(line))]
    assert len(rows) == 1, out
    row = rows[0]
    assert int(row[0]) == few_dice_strangers(1, tiny=True)[0]
    assert int(row[11]) == 4 and 0 < int(row[10]) <= 4  # throws played, kept
    assert out[-1].startswith("1 tables of few dice, ")


@pytest.mark.slow  # a calibration (a tiny one)
@pytest.mark.timeout(600)
def test_played_throws_keep_their_boxes_and_settled_faces(tmp_path: Path) -> None:
    from vision.learning.calibrate import calibrate
    from vision.synth.strangers import write_stranger

    who = stranger(few_dice_strangers(1, tiny=True)[0], tiny=True)
    train = load_dataset(write_stranger(tmp_path / "train", who, 4, 1, every_face=True))
    played = load_dataset(write_stranger(tmp_path / "played", who, 3, 2))
    model = calibrate(train)
    throws, answered, kept_wrong, by_hand = play_throws(played, model, tmp_path / "ev")
    assert len(throws) + by_hand == 3
    item_of = {t.frame: played.items[int(t.frame.stem.split("_")[1]) - 1] for t in throws}
    missing = 0
    for throw in throws:
        item = item_of[throw.frame]
        kept = read_boxes(throw.frame)
        # the boxes in the kept frame's own pixels, one per face settled on
        assert kept.size == header_size(throw.frame)
        assert len(kept.boxes) == len(throw.faces) == len(item.dice)
        truth = Counter(played.names[d.cls] for d in item.dice)
        missing += (truth - Counter(throw.faces)).total()
    assert missing <= kept_wrong  # a face not the true one is only a sure read let stand
    assert answered + kept_wrong <= sum(len(t.faces) for t in throws)
    report = write_table_photos(throws, played.names, tmp_path / "table")
    assert report.photos + len(report.left_out) == len(throws)
    learned = load_dataset(tmp_path / "table")
    for photo in learned.items:
        item = next(i for f, i in item_of.items() if f.stem == photo.image.stem)
        w, h = header_size(photo.image) or (0, 0)
        labelled = [d.box_px(w, h) for d in item.dice]
        # each label lies on a die the photo really shows
        assert len(match(labelled, [d.box_px(w, h) for d in photo.dice])) == len(item.dice)
