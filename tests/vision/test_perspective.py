"""An oblique camera: the dice's size across the photo, fitted at calibration, sizes the
boxes and the cuts; a crowded table keeps all its dice."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from vision.learning.die_size import SLOPE_DICE, size_slopes
from vision.reading.detect import DetectorParams, detect, perspective_size
from vision.reading.model import FaceModel
from vision.synth.scenes import Renderer

Array = NDArray[Any]


def _dice_on_a_slope(n: int, slope_y: float, rng: np.random.Generator) -> tuple[
    Array, Array
]:  # fmt: skip
    where = rng.uniform(0.05, 0.95, (n, 2))
    sides = 0.05 * (1 + slope_y * (where[:, 1] - 0.5)) * rng.normal(1, 0.02, n)
    return where, sides


def test_the_growth_of_the_dice_down_the_photo_is_fitted() -> None:
    rng = np.random.default_rng(3)
    slopes = size_slopes(*_dice_on_a_slope(200, 0.6, rng))
    assert slopes["size_slope_y"] == pytest.approx(0.6, abs=0.05)
    assert slopes["size_slope_x"] == pytest.approx(0.0, abs=0.05)
    level = size_slopes(*_dice_on_a_slope(200, 0.0, rng))
    assert abs(level["size_slope_y"]) < 0.05


def test_no_growth_from_few_dice_or_dice_in_one_corner() -> None:
    rng = np.random.default_rng(4)
    flat = {"size_slope_x": 0.0, "size_slope_y": 0.0}
    assert size_slopes(*_dice_on_a_slope(SLOPE_DICE - 1, 0.6, rng)) == flat
    where, sides = _dice_on_a_slope(100, 0.6, rng)
    assert size_slopes(where * 0.2, sides) == flat  # all within a fifth of the photo


def test_the_size_factor_is_one_at_the_centre_and_bounded() -> None:
    params = DetectorParams(size_slope_x=0.2, size_slope_y=0.6)
    assert perspective_size(params, 0.5, 0.5) == 1.0
    assert perspective_size(params, 0.5, 1.0) == pytest.approx(1.3)
    assert perspective_size(params, 0.0, 0.0) == pytest.approx(0.6)
    assert perspective_size(replace(params, size_slope_y=-4.0), 0.5, 1.0) == 0.5


def test_boxes_and_cuts_grow_toward_the_near_edge(model: FaceModel) -> None:
    scene = Renderer(seed=8).scene(count=4)
    level = detect(scene.image, model.detector)
    tilted_params = replace(model.detector.params, size_slope_y=0.8)
    tilted = detect(scene.image, replace(model.detector, params=tilted_params))
    assert [d.center for d in tilted.detections] == [d.center for d in level.detections]
    h = scene.image.shape[0]
    for a, b in zip(level.detections, tilted.detections, strict=True):
        grown = 1 + 0.8 * (a.center[1] / h - 0.5)
        assert b.box[2] == pytest.approx(a.box[2] * grown, rel=1e-6)
        assert b.rect[1][0] == pytest.approx(a.rect[1][0] * grown, rel=1e-6)
