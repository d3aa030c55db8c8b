"""Calibration's budget: a set past it is learned from a seeded choice of its photos that
shows every face; a set within it, or of 20 photos or fewer, is learned whole; the report
says which."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from vision.learning import photo_budget
from vision.learning.calibrate import calibrate, calibration_steps
from vision.learning.dataset import Dataset, LabeledDie, LabeledImage, load_dataset
from vision.learning.evaluate import evaluate
from vision.learning.photo_budget import within_budget
from vision.learning.report import CalibrationReport, calibrate_with_report
from vision.synth.scenes import write_dataset


def _set(faces_per_photo: list[list[int]], side: float = 0.04) -> Dataset:
    """A dataset (never decoded) whose photo ``k`` shows the faces ``faces_per_photo[k]``,
    dice ``side`` of the photo wide."""
    items = tuple(
        LabeledImage(
            Path(f"/set/images/p{k:03d}.jpg"),
            Path(f"/set/labels/p{k:03d}.txt"),
            tuple(LabeledDie(c, 0.1 + 0.05 * i, 0.5, side, side) for i, c in enumerate(faces)),
        )
        for k, faces in enumerate(faces_per_photo)
    )
    return Dataset(Path("/set"), tuple(str(n) for n in range(1, 7)), items)


def _shown(dataset: Dataset) -> set[int]:
    return {die.cls for item in dataset.items for die in item.dice}


def test_a_set_within_the_budget_is_learned_whole() -> None:
    given = _set([[k % 6, (k + 1) % 6] for k in range(photo_budget.MAX_PHOTOS)])
    learned = within_budget(given)
    assert learned.dataset is given and not learned.chosen
    assert learned.to_json()["photos"] == learned.to_json()["of_photos"] == len(given.items)


def test_past_the_photo_budget_a_seeded_choice_shows_every_face(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(photo_budget, "ALWAYS_PHOTOS", 0)
    monkeypatch.setattr(photo_budget, "MAX_PHOTOS", 5)
    # faces 1-5 on every photo; the 6 on only two photos, one of them crowded
    faces = [[0, 1, 2, 3, 4] for _ in range(40)]
    faces[17] = [0, 1, 5]
    faces[31] = [5] + [0] * 30
    given = _set(faces)
    learned = within_budget(given, seed=3)
    assert learned.chosen and len(learned.dataset.items) == 5
    assert _shown(learned.dataset) == set(range(6))
    assert given.items[17] in learned.dataset.items  # the 6 from the photo of fewer dice
    positions = [given.items.index(item) for item in learned.dataset.items]
    assert positions == sorted(positions)  # the set's own order kept
    assert within_budget(given, seed=3).dataset == learned.dataset  # seeded: the same again
    others = {within_budget(given, seed=s).dataset.items for s in range(6)}
    assert len(others) > 1  # another seed, another choice
    assert learned.to_json() == {
        "photos": 5,
        "of_photos": 40,
        "dice": learned.dataset.dice_count,
        "of_dice": given.dice_count,
        "max_photos": 5,
        "max_dice": photo_budget.MAX_DICE,
        "max_die_areas": photo_budget.MAX_DIE_AREAS,
    }


def test_past_the_dice_budget_photos_are_taken_while_their_dice_fit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(photo_budget, "ALWAYS_PHOTOS", 0)
    monkeypatch.setattr(photo_budget, "MAX_DICE", 50)
    faces = [[k % 6] * (3 + k % 9) for k in range(30)]  # 3 to 11 dice a photo, 206 in all
    given = _set(faces)
    learned = within_budget(given)
    assert learned.chosen and learned.dataset.dice_count <= 50
    assert _shown(learned.dataset) == set(range(6))
    left = [item for item in given.items if item not in learned.dataset.items]
    # every photo left out would have passed the budget
    assert all(learned.dataset.dice_count + len(item.dice) > 50 for item in left)
    counts = Counter(die.cls for item in learned.dataset.items for die in item.dice)
    assert sum(counts.values()) == learned.dataset.dice_count


def test_past_the_area_budget_photos_of_small_dice_are_fewer() -> None:
    # dice 1 % of the photo wide: 10,000 dice's area a photo; the budget holds 6 of them
    faces = [[k % 6, (k + 1) % 6] for k in range(30)]
    assert photo_budget.die_areas(_set(faces, side=0.01)) == [pytest.approx(1e4)] * 30
    small = within_budget(_set(faces[:6], side=0.01))
    assert not small.chosen  # 60,000: within it
    many = within_budget(_set(faces, side=0.01))
    assert len(many.dataset.items) == photo_budget.ALWAYS_PHOTOS  # the 20 asked for, always
    assert _shown(many.dataset) == set(range(6))
    whole = _set([[k % 6] * 60 for k in range(20)])  # 1,200 dice on the 20 photos asked for
    assert not within_budget(whole).chosen


def test_a_photo_without_dice_counts_the_sets_typical_area() -> None:
    given = _set([[0, 1], [], [2, 3]], side=0.05)
    assert photo_budget.die_areas(given) == [pytest.approx(400.0)] * 3


def test_the_report_says_how_many_photos_were_learned_from() -> None:
    report = CalibrationReport(
        photos=200, dice=5310, seconds=1.0, cv=None, folds=0, warnings=[],
        learned_from=(38, 998, 60, 1000, 60000),
    )  # fmt: skip
    assert report.lines()[1].startswith(
        "learned from 38 of the 200 photos (998 of 5310 dice): past 60 photos, 1000 dice or "
        "photos the size of 60000 dice, calibration learns from a seeded choice that shows "
        "every face"
    )
    assert report.to_json()["learned_from"] == [38, 998, 60, 1000, 60000]
    whole = CalibrationReport(photos=20, dice=60, seconds=1.0, cv=None, folds=0, warnings=[])
    assert whole.to_json()["learned_from"] is None
    assert not any(line.startswith("learned from") for line in whole.lines())


@pytest.fixture
def two_photos_at_most(monkeypatch: pytest.MonkeyPatch) -> None:
    """A budget of two photos, none always learned: three photos are past it."""
    monkeypatch.setattr(photo_budget, "ALWAYS_PHOTOS", 0)
    monkeypatch.setattr(photo_budget, "MAX_PHOTOS", 2)


@pytest.mark.timeout(240)  # a hang guard: a calibration on a loaded core
@pytest.mark.usefixtures("two_photos_at_most")
def test_a_calibration_past_its_budget_learns_from_the_chosen_photos(tmp_path: Path) -> None:
    train = load_dataset(write_dataset(tmp_path / "train", 3, seed=1))
    test = load_dataset(write_dataset(tmp_path / "test", 2, seed=2))
    seen: list[tuple[int, int]] = []
    model = calibrate(train, face_set="budget", progress=lambda d, t, _: seen.append((d, t)))
    steps = calibration_steps(2)  # the progress counts the photos learned from
    assert seen == [(k, steps) for k in range(1, steps + 1)]
    report = json.loads(model.report)
    chosen = within_budget(train).dataset
    assert report["photos"] == 2
    assert report["learned_from"]["photos"] == 2 and report["learned_from"]["of_photos"] == 3
    assert report["learned_from"]["dice"] == chosen.dice_count < train.dice_count
    result = evaluate(test, model)
    assert result.f1 >= 0.9 and result.wrong_sure == 0


@pytest.mark.slow  # four calibrations (of two photos each)
@pytest.mark.timeout(600)
@pytest.mark.usefixtures("two_photos_at_most")
def test_the_check_reads_every_photo_with_folds_learned_within_the_budget(tmp_path: Path) -> None:
    given = load_dataset(write_dataset(tmp_path / "train", 6, seed=1))
    seen: list[tuple[int, int]] = []
    model, report = calibrate_with_report(
        given, face_set="budget", progress=lambda d, t, _: seen.append((d, t))
    )
    total = 4 * calibration_steps(2)  # each fold's four photos learned from two as well
    assert {t for _, t in seen} == {total} and seen[-1] == (total, total)
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert report.photos == 6 and report.learned_from is not None
    assert report.learned_from[:1] == (2,) and report.learned_from[2] == 2
    assert report.cv is not None and report.cv.dice == given.dice_count  # every photo read
    assert any(line.startswith("learned from 2 of the 6 photos (") for line in report.lines())
    assert json.loads(model.report)["calibration"]["learned_from"] == list(report.learned_from)


def test_past_the_budget_the_owners_own_photos_are_learned_before_the_tables() -> None:
    owner = _set([[k % 6, (k + 1) % 6] for k in range(20)])
    table = _set([[k % 6] for k in range(300)])  # a long evening's played throws
    both = Dataset(owner.root, owner.names, owner.items + table.items, first=len(owner.items))
    learned = within_budget(both, seed=5)
    assert learned.chosen and len(learned.dataset.items) == photo_budget.MAX_PHOTOS
    assert set(owner.items) <= set(learned.dataset.items)  # every one of the owner's 20
    assert learned.dataset.first == len(owner.items)  # still first in the photos learned
    # the same photos as one set of no owner: a seeded choice takes about a fifth of them
    mixed = within_budget(Dataset(owner.root, owner.names, both.items), seed=5)
    assert len(set(owner.items) & set(mixed.dataset.items)) < len(owner.items)


def test_a_subset_keeps_the_owners_photos_counted_first() -> None:
    both = Dataset(Path("/set"), ("1",), _set([[0]] * 5).items, first=3)
    assert both.subset([0, 2, 4]).first == 2
    assert both.subset([3, 4]).first == 0
    assert both.subset([]).first == 0


def test_a_set_of_exactly_the_dice_budget_is_learned_whole() -> None:
    given = _set([[k % 6] * 40 for k in range(photo_budget.MAX_DICE // 40)])
    assert given.dice_count == photo_budget.MAX_DICE
    assert within_budget(given).dataset is given
