"""Dice of different colours in one tray: a finder of their own for each colour group."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.errors import ModelError
from vision.learning.calibrate import calibrate
from vision.learning.colour_groups import MIN_GROUP_DICE, colour_groups
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import evaluate
from vision.learning.face_model import train
from vision.learning.report import CalibrationReport
from vision.reading.describe import DESCRIPTION_SIZE
from vision.reading.detect import Detector, DetectorParams
from vision.reading.finder_maps import CHANNELS, SPAN, WINDOW_SIZE, score_map
from vision.reading.model import load_model
from vision.synth.designs import DiceSet, MarkKind
from vision.synth.strangers import stranger, write_stranger


def _cluster(rng: np.random.Generator, centre: tuple[float, float, float], n: int) -> NDArray[Any]:
    out: NDArray[Any] = np.asarray(centre) + rng.normal(0.0, 3.0, (n, 3))
    return out


def test_dice_of_two_clear_colours_are_two_groups() -> None:
    rng = np.random.default_rng(1)
    brown, blue = (45.0, 20.0, 35.0), (60.0, -5.0, -40.0)
    colours = np.concatenate([_cluster(rng, brown, 12), _cluster(rng, blue, 9)])
    groups = colour_groups(colours)
    assert set(groups[:12]) != set(groups[12:])
    assert len(set(groups[:12])) == 1 and len(set(groups[12:])) == 1


def test_one_set_of_dice_is_one_group() -> None:
    rng = np.random.default_rng(2)
    # one colour, spread by light and shadow, and one die much lighter than the others
    colours = _cluster(rng, (50.0, 10.0, 10.0), 40)
    colours[0] += (12.0, 0.0, 0.0)
    assert not colour_groups(colours).any()


def test_one_set_lit_from_bright_to_dim_is_one_group() -> None:
    """Light and shade spread one set's colour far along its lightness, without a gap."""
    rng = np.random.default_rng(8)
    colours = np.stack(
        [rng.uniform(25.0, 80.0, 60), rng.normal(12.0, 1.5, 60), rng.normal(-20.0, 1.5, 60)], 1
    )
    assert not colour_groups(colours).any()


def test_three_sets_of_three_colours_are_three_groups() -> None:
    rng = np.random.default_rng(9)
    centres = [(45.0, 20.0, 35.0), (60.0, -5.0, -40.0), (85.0, 0.0, 0.0)]
    colours = np.concatenate([_cluster(rng, c, 10) for c in centres])
    groups = colour_groups(colours)
    assert [len(set(groups[k : k + 10])) for k in (0, 10, 20)] == [1, 1, 1]
    assert len(set(groups)) == 3


def test_a_colour_with_too_few_dice_to_learn_from_joins_the_others() -> None:
    rng = np.random.default_rng(3)
    colours = np.concatenate(
        [
            _cluster(rng, (45.0, 20.0, 35.0), 30),
            _cluster(rng, (60.0, -5.0, -40.0), MIN_GROUP_DICE - 1),
        ]
    )
    assert not colour_groups(colours).any()


def _detector(*finders: tuple[NDArray[Any], float]) -> Detector:
    return Detector(
        DetectorParams(), np.stack([w for w, _ in finders]), np.array([b for _, b in finders])
    )


def test_a_window_is_scored_by_its_best_finder() -> None:
    rng = np.random.default_rng(4)
    cells = rng.normal(size=(CHANNELS, 30, 34)).astype(np.float32)
    first = (rng.normal(size=WINDOW_SIZE).astype(np.float32), 0.5)
    second = (rng.normal(size=WINDOW_SIZE).astype(np.float32), -1.0)
    both = score_map(cells, _detector(first, second))
    alone = [score_map(cells, _detector(f)) for f in (first, second)]
    assert both.shape == (30 - SPAN, 34 - SPAN)
    np.testing.assert_allclose(both, np.maximum(*alone), rtol=1e-5, atol=1e-4)
    # each finder wins somewhere: the best of the two is neither one alone
    assert (alone[0] > alone[1]).any() and (alone[1] > alone[0]).any()


def test_a_model_of_two_finders_round_trips(tmp_path: Path) -> None:
    rng = np.random.default_rng(5)
    feats = rng.normal(size=(6, DESCRIPTION_SIZE)).astype(np.float32)
    detector = _detector(
        (rng.normal(size=WINDOW_SIZE).astype(np.float32), 0.25),
        (rng.normal(size=WINDOW_SIZE).astype(np.float32), -0.5),
    )
    model = train("toy", ["a", "b", "c"], feats, np.array([0, 0, 1, 1, 2, 2]), detector)
    back = load_model(model.save(tmp_path / "two.npz")).detector
    assert back.finders == 2
    np.testing.assert_array_equal(back.weights, detector.weights)
    np.testing.assert_array_equal(back.biases, detector.biases)


def test_a_model_with_one_finders_scalar_bias_still_loads(tmp_path: Path) -> None:
    """Models calibrated before the finders were grouped stored one bias, a scalar."""
    rng = np.random.default_rng(6)
    feats = rng.normal(size=(4, DESCRIPTION_SIZE)).astype(np.float32)
    model = train("toy", ["a", "b"], feats, np.array([0, 0, 1, 1]), DetectorParams())
    path = model.save(tmp_path / "one.npz")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["det_weights"] = rng.normal(size=WINDOW_SIZE).astype(np.float32)
    arrays["det_bias"] = np.float64(0.75)
    np.savez_compressed(path, **arrays)
    back = load_model(path).detector
    assert back.finders == 1 and back.biases.tolist() == [0.75]


def test_finder_weights_that_do_not_match_their_biases_are_named(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    feats = rng.normal(size=(4, DESCRIPTION_SIZE)).astype(np.float32)
    path = train("toy", ["a", "b"], feats, np.array([0, 0, 1, 1]), DetectorParams()).save(
        tmp_path / "bad.npz"
    )
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    arrays["det_bias"] = np.zeros(2)  # two biases, one finder's weights
    np.savez_compressed(path, **arrays)
    with pytest.raises(ModelError, match=r"bad\.npz: detector weights of size \d+ for 2 finder"):
        load_model(path)
    with pytest.raises(ValueError, match="finder"):
        Detector(DetectorParams(), np.zeros(WINDOW_SIZE + 1, np.float32))


def test_the_calibration_report_says_each_colour_has_a_finder() -> None:
    report = CalibrationReport(photos=20, dice=60, seconds=1.0, cv=None, folds=0, warnings=[])
    assert not any("finder" in line for line in report.lines())
    report.finders = 2
    assert "dice of 2 colours: each colour is found by a finder of its own" in report.lines()
    assert report.to_json()["finders"] == 2


@pytest.mark.slow
def test_a_tray_of_brown_pip_dice_and_blue_numeral_dice_finds_both(tmp_path: Path) -> None:
    base = stranger(11, tiny=True)
    pips = DiceSet(MarkKind.PIPS, body=(30, 70, 120), marks=(120, 220, 235))
    numerals = DiceSet(MarkKind.NUMERALS, body=(215, 150, 60), marks=(40, 30, 20))
    who = replace(base, sets=(pips, numerals), touching=0.3)
    write_stranger(tmp_path / "train", who, 14, 1, every_face=True)
    write_stranger(tmp_path / "test", who, 12, 2)
    model = calibrate(load_dataset(tmp_path / "train"))
    assert model.detector.finders == 2
    assert json.loads(model.report)["finders"] == 2
    result = evaluate(load_dataset(tmp_path / "test"), model)
    assert result.f1 >= 0.95
