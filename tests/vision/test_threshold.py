"""The face threshold learned from calibration's own dice, each read without its copies."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.learning.face_model import train
from vision.learning.report import CalibrationReport
from vision.learning.threshold import (
    CERTIFIED_DICE,
    FEW_DICE_CAP,
    MAX_THRESHOLD,
    NEW_PHOTO_MARGIN,
    TOLERATED,
    HeldOutReads,
    few_dice_floor,
    held_out_reads,
    learned_threshold,
    pair_thresholds,
    pair_warning,
    threshold_warning,
    tolerated_mistakes,
)
from vision.reading.detect import DetectorParams
from vision.reading.model import DEFAULT_THRESHOLD, FaceModel

DIMS = 8

Array = NDArray[Any]


def _dice(centres: Array, faces: list[int], rng: np.random.Generator) -> tuple[
    Array, Array, Array
]:  # fmt: skip
    """Three copies of each die (a die: its face's centre plus its own offset)."""
    feats, labels, groups = [], [], []
    for die, face in enumerate(faces):
        own = centres[face] + rng.normal(0, 0.2, DIMS)
        for _ in range(3):
            feats.append(own + rng.normal(0, 0.01, DIMS))
            labels.append(face)
            groups.append(die)
    return np.array(feats, np.float32), np.array(labels), np.array(groups)


def test_a_die_is_read_without_its_own_copies_nor_the_left_out() -> None:
    rng = np.random.default_rng(1)
    centres = np.eye(DIMS)[:2] * 5
    feats, labels, groups = _dice(centres, [0, 0, 1, 1, 1], rng)
    # the last die is labeled 1 but looks like a 0: with its copies it reads as its label
    feats[12:] = centres[0] + rng.normal(0, 0.01, (3, DIMS))
    model = train("toy", ["a", "b"], feats, labels, DetectorParams())
    assert model.classify(feats[12:13])[0].face == 1  # its own copy is nearest
    rows = np.array([0, 3, 6, 9, 12])
    guess, conf, second = held_out_reads(model, rows, groups)
    assert guess[4] == 0 and conf[4] > 0.5  # alone among the others it is clearly a 0
    assert guess[0] == 1 or guess[1] == 1  # and it pulls a true 0 its way
    assert second[4] == 1  # its own label the runner-up
    guess, conf, _ = held_out_reads(model, rows, groups, leave_out=[4])
    assert guess.tolist() == [0, 0, 1, 1, 0]
    assert (conf[:4] > 0.5).all()


def test_the_threshold_rises_over_the_surest_wrong_read() -> None:
    truth = np.array([0, 1, 2, 0, 1])
    guess = np.array([0, 1, 2, 1, 1])
    conf = np.array([0.9, 0.8, 0.7, 0.2, 0.6])
    expected = NEW_PHOTO_MARGIN * 0.2
    assert learned_threshold(guess, conf, truth, DEFAULT_THRESHOLD) == pytest.approx(expected)
    # a die named as a likely label mistake does not count
    assert learned_threshold(guess, conf, truth, DEFAULT_THRESHOLD, ignore=[3]) == (
        DEFAULT_THRESHOLD
    )


def test_the_threshold_stays_at_its_floor_and_under_its_ceiling() -> None:
    truth = np.array([0, 1, 2])
    assert learned_threshold(truth, np.array([0.9, 0.1, 0.5]), truth, 0.12) == 0.12
    wrong = np.array([1, 1, 2])
    assert learned_threshold(wrong, np.array([0.05, 0.1, 0.5]), truth, 0.12) == 0.12
    assert learned_threshold(wrong, np.array([0.95, 0.1, 0.5]), truth, 0.12) == MAX_THRESHOLD


def test_many_dice_tolerate_a_few_sure_mistakes() -> None:
    n = 2000  # TOLERATED of them may stay wrong and sure: the next surest sets the bar
    truth = np.zeros(n, np.int64)
    guess = truth.copy()
    conf = np.full(n, 0.9)
    allowed = int(TOLERATED * n)
    guess[: allowed + 5] = 1  # past the tolerated, the surest sets it, not the least sure
    conf[: allowed + 5] = np.linspace(0.4, 0.1, allowed + 5)
    expected = NEW_PHOTO_MARGIN * conf[allowed]
    assert learned_threshold(guess, conf, truth, 0.12) == pytest.approx(expected)
    forgiven = tolerated_mistakes(guess, conf, truth)
    assert sorted(forgiven.tolist()) == list(range(allowed)), "the surest, tolerated"
    # nor do they raise their pair: the next surest does
    second = np.full(n, 2, np.int64)
    reads = HeldOutReads(guess, conf, np.where(guess == 1, 0, second))
    assert pair_thresholds(reads, truth, 3)[0, 1] == pytest.approx(
        min(NEW_PHOTO_MARGIN * conf[0], MAX_THRESHOLD)
    )
    assert pair_thresholds(reads, truth, 3, forgiven)[0, 1] == pytest.approx(expected)


def test_each_pair_of_faces_confused_gets_its_own_threshold() -> None:
    truth = np.array([0, 1, 2, 3, 2, 3, 0])
    reads = HeldOutReads(
        guess=np.array([0, 1, 3, 2, 3, 3, 0]),  # a 2 read as 3 twice, a 3 as 2 once
        conf=np.array([0.9, 0.8, 0.1, 0.2, 0.05, 0.7, 0.6]),
        second=np.array([1, 0, 2, 3, 1, 2, 2]),  # the last 2-as-3 had 1 as its runner-up
    )
    pairs = pair_thresholds(reads, truth, 4)
    assert pairs[2, 3] == pairs[3, 2] == pytest.approx(NEW_PHOTO_MARGIN * 0.2)
    assert pairs[3, 1] == pairs[1, 3] == pytest.approx(NEW_PHOTO_MARGIN * 0.05)
    assert pairs[0, 1] == pairs[0, 2] == 0.0  # read right, whatever their runner-up
    sure = HeldOutReads(reads.guess, np.full(7, 0.9), reads.second)
    assert pair_thresholds(sure, truth, 4)[2, 3] == pytest.approx(MAX_THRESHOLD)
    warning = pair_warning(pairs, 0.12, ["1", "2", "3", "4"])
    assert warning is not None and warning.startswith(
        "faces that look alike: '3' and '4' (under 0.32)"
    )
    assert "'2'" not in warning, "a pair under the threshold itself is not named"
    assert pair_warning(pairs, 0.4, ["1", "2", "3", "4"]) is None
    # a pair raised by a die named as a likely label mistake (and counted) says so
    mistake = pair_thresholds(reads, truth, 4, ignore=[3]) < pairs
    assert mistake[2, 3] and not mistake[1, 3]
    marked = pair_warning(pairs, 0.12, ["1", "2", "3", "4"], mistake)
    assert marked is not None and "'3' and '4' (under 0.32; raised by a die named above" in marked


def test_too_few_held_out_dice_raise_the_floor_by_the_rule_of_three() -> None:
    # 600 dice all read right vouch for the default (3/600 = the 0.5 % goal); fewer do not
    assert few_dice_floor(0.12, CERTIFIED_DICE) == 0.12
    assert few_dice_floor(0.12, 5000) == 0.12
    assert few_dice_floor(0.12, 200) == pytest.approx(0.12 * 3 ** (1 / 3))
    floors = [few_dice_floor(0.12, n) for n in (599, 400, 200, 100, 60, 40)]
    assert floors == sorted(floors) and floors[0] > 0.12, "fewer dice, a higher floor"
    assert few_dice_floor(0.12, 10) == few_dice_floor(0.12, 0) == FEW_DICE_CAP
    assert few_dice_floor(0.4, 10) == 0.4, "a floor set above the cap is kept"


def test_the_warning_says_why_calibration_asks_more() -> None:
    assert threshold_warning(0.12, 0.12, 0.12, 0, 900) is None
    looks = threshold_warning(0.32, 0.2, 0.12, 3, 200)
    assert looks is not None and looks.startswith("faces look alike: 3 of 200")
    assert "under 0.32 (not 0.12)" in looks
    few = threshold_warning(0.296, 0.296, 0.12, 0, 40)
    assert few is not None and few.startswith("40 labeled dice are too few")
    assert "under 0.30 (not 0.12)" in few and str(CERTIFIED_DICE) in few


def test_a_calibration_of_few_dice_asks_more_and_says_why(
    stress_calibration: tuple[FaceModel, CalibrationReport],
) -> None:
    model, report = stress_calibration
    stored = json.loads(model.report)
    counted = stored["dice"] - stored["label_mistakes"]
    assert counted < CERTIFIED_DICE  # three photos
    floor = few_dice_floor(DEFAULT_THRESHOLD, counted)
    assert floor > DEFAULT_THRESHOLD and model.threshold >= floor
    assert stored["face_threshold"] == round(model.threshold, 3)
    said = [w for w in report.warnings if w.startswith(f"{counted} labeled dice are too few")]
    assert said or any(w.startswith("faces look alike") for w in report.warnings)
