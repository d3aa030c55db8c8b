"""An oblique camera: the dice's size across the photo, fitted at calibration, sizes the
boxes and the cuts; the boxes take the shape the owner labels (foreshortened across the
tilt); a crowded table keeps all its dice; the finder's copies of dice seen obliquely keep
their near side toward the camera."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.errors import ConfigError
from vision.learning.detect_train import _augment, _mirrored_across
from vision.learning.die_size import BOX_DICE, SLOPE_DICE, box_shape, size_slopes
from vision.reading.detect import (
    FACE_DIE_PX,
    DetectorParams,
    detect,
    marks_contrast,
    perspective_size,
    whole_in_frame,
)
from vision.reading.die_shape import face_contrast
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


def test_a_slope_within_the_scatter_of_the_sizes_is_not_learned() -> None:
    """Dice of a camera straight down, their sizes scattered 8 % (as catan's are): the
    fit's slopes are noise, and none is learned; the same scatter on a real tilt is."""
    flat = {"size_slope_x": 0.0, "size_slope_y": 0.0}
    learned = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        where = rng.uniform(0.15, 0.85, (60, 2))
        sides = 0.05 * rng.normal(1, 0.08, 60)
        learned += size_slopes(where, sides) != flat
        tilted = sides * (1 + 0.6 * (where[:, 1] - 0.5))
        slopes = size_slopes(where, tilted)
        assert slopes["size_slope_y"] == pytest.approx(0.6, abs=0.2)
        assert slopes["size_slope_x"] in (0.0, pytest.approx(0.0, abs=0.2))
    assert learned <= 1  # 3 standard errors: about one fit in 200 per axis


def test_the_size_factor_is_one_at_the_centre_and_bounded() -> None:
    params = DetectorParams(size_slope_x=0.2, size_slope_y=0.6)
    assert perspective_size(params, 0.5, 0.5) == 1.0
    assert perspective_size(params, 0.5, 1.0) == pytest.approx(1.3)
    assert perspective_size(params, 0.0, 0.0) == pytest.approx(0.6)
    assert perspective_size(replace(params, size_slope_y=-4.0), 0.5, 1.0) == 0.5


def test_boxes_and_cuts_grow_toward_the_near_edge(model: FaceModel) -> None:
    scene = Renderer(seed=8).scene(count=4)
    flat = replace(model.detector.params, size_slope_x=0.0, size_slope_y=0.0)
    level = detect(scene.image, replace(model.detector, params=flat))
    tilted_params = replace(flat, size_slope_y=0.8)
    tilted = detect(scene.image, replace(model.detector, params=tilted_params))
    # the same to rounding (a process's first read may differ in the last bits: test_box_fit)
    assert len(tilted.detections) == len(level.detections)
    centres = np.array([d.center for d in level.detections])
    assert np.array([d.center for d in tilted.detections]) == pytest.approx(centres)
    h = scene.image.shape[0]
    for a, b in zip(level.detections, tilted.detections, strict=True):
        grown = 1 + 0.8 * (a.center[1] / h - 0.5)
        # the turn is read on the outline of a die of the side at its place: near the same
        turned = (b.rect[2] - a.rect[2]) % 90.0
        assert min(turned, 90.0 - turned) < 5.0
        assert b.box[2] / _turn(b.rect[2]) == pytest.approx(
            a.box[2] / _turn(a.rect[2]) * grown, rel=1e-6
        )
        assert b.rect[1][0] == pytest.approx(a.rect[1][0] * grown, rel=1e-6)


def _turn(degrees: float) -> float:
    """A box's side over its die's, for a die turned ``degrees``."""
    a = math.radians(degrees)
    return abs(math.cos(a)) + abs(math.sin(a))


def test_the_labeled_boxes_shape_is_measured_against_the_side_reading_gives() -> None:
    rng = np.random.default_rng(5)
    found = rng.uniform(0.04, 0.08, 60)
    # an oblique camera: labeled boxes 1.2 times as wide and 0.9 times as high
    labeled = np.column_stack([1.2 * found, 0.9 * found]) * rng.normal(1, 0.03, (60, 2))
    shape = box_shape(labeled, found)
    assert shape["box_aspect"] == pytest.approx(1.2 / 0.9, rel=0.03)
    assert shape["box_scale"] == pytest.approx(np.sqrt(1.2 * 0.9), rel=0.03)
    square = box_shape(np.column_stack([found, found]), found)
    assert square == {"box_scale": pytest.approx(1.0), "box_aspect": pytest.approx(1.0)}


def test_no_box_shape_from_few_dice_and_none_past_its_bounds() -> None:
    found = np.full(BOX_DICE - 1, 0.05)
    assert box_shape(np.column_stack([2 * found, found]), found) == {
        "box_scale": 1.0,
        "box_aspect": 1.0,
    }
    found = np.full(BOX_DICE, 0.05)
    wild = box_shape(np.column_stack([20 * found, found]), found)
    assert wild["box_aspect"] == 2.5 and wild["box_scale"] == 2.0


def test_boxes_take_the_learned_shape_about_the_same_centre(model: FaceModel) -> None:
    scene = Renderer(seed=8).scene(count=4)
    square = replace(model.detector.params, box_aspect=1.0)
    level = detect(scene.image, replace(model.detector, params=square))
    shaped_params = replace(square, box_aspect=1.44)
    shaped = detect(scene.image, replace(model.detector, params=shaped_params))
    assert level.detections
    for a, b in zip(level.detections, shaped.detections, strict=True):
        assert b.center == pytest.approx(a.center)
        assert b.box[2] == pytest.approx(a.box[2] * 1.2, rel=1e-6)
        assert b.box[3] == pytest.approx(a.box[3] / 1.2, rel=1e-6)
        assert b.box[0] + b.box[2] / 2 == pytest.approx(a.box[0] + a.box[2] / 2)
        assert b.rect == a.rect  # faces are cut as before


def test_a_box_shape_out_of_bounds_is_refused() -> None:
    with pytest.raises(ConfigError, match="box_aspect 9"):
        DetectorParams(box_aspect=9.0)


def _near_side_below(bal: Array, rng: np.random.Generator, tilt: tuple[float, float] | None) -> (
    list[float]
):  # fmt: skip
    """Where a die's bright near side lands in re-lit copies (its centroid's y minus the
    crop's centre)."""
    out = []
    for _ in range(60):
        crop = _augment(bal, 100.0, 100.0, rng, False, tilt).mean(axis=2)
        ys, _ = np.nonzero(crop > crop.max() * 0.8)
        out.append(float(ys.mean()) - crop.shape[0] / 2)
    return out


def test_copies_of_dice_seen_obliquely_keep_their_near_side_toward_the_camera() -> None:
    bal = np.full((200, 200, 3), 60.0, np.float32)
    bal[108:118, 92:108] = 250.0  # the side a die shows below its top face, seen from below
    rng = np.random.default_rng(2)
    oblique = _near_side_below(bal, rng, (0.0, 0.6))
    assert min(oblique) > 5  # turned a little, mirrored left-right: still below
    anyway = _near_side_below(bal, rng, None)
    assert min(anyway) < -5  # seen straight down, a copy may be turned any way


def test_the_mirror_runs_along_the_tilt() -> None:
    spot = np.array([70.0, 20.0, 1.0])  # right of and above the centre of a 96-pixel crop
    across_y = _mirrored_across((0.0, 0.6), 96) @ spot
    across_x = _mirrored_across((0.6, 0.0), 96) @ spot
    assert across_y == pytest.approx([26.0, 20.0])  # a tilt down the photo: mirrored left-right
    assert across_x == pytest.approx([70.0, 76.0])  # a tilt across it: mirrored up-down


def test_a_near_twos_pips_count_as_marks_at_its_place() -> None:
    """A two near an oblique camera is half as large again as a die at the centre: its
    pips lie outside the square of a die at the centre, and the contrast that decides
    whether a peak shows marks is measured over the die's side at its place."""
    side = 1.5 * FACE_DIE_PX
    face = np.full((400, 300, 3), 90, np.uint8)  # a grey table
    cx, cy = 150.0, 330.0
    half = side / 2
    face[int(cy - half) : int(cy + half), int(cx - half) : int(cx + half)] = 235  # a white die
    for dx, dy in ((-0.3, -0.3), (0.3, 0.3)):  # a two's pips, in opposite corners
        cv2.circle(
            face, (int(cx + dx * side), int(cy + dy * side)), int(0.09 * side), (20, 20, 20), -1
        )
    slope = (1.5 - 1.0) / (cy / 400 - 0.5)  # the slope that makes a die here 1.5 times larger
    tilted = replace(DetectorParams(), size_slope_y=slope)
    assert perspective_size(tilted, cx / 300, cy / 400) == pytest.approx(1.5)
    blank = face_contrast(face, cx, cy, FACE_DIE_PX)
    assert marks_contrast(face, cx, cy, tilted) > 3 * blank
    assert marks_contrast(face, cx, cy, DetectorParams()) == pytest.approx(blank)


def test_a_far_die_near_the_edge_is_whole_and_a_near_one_is_cut() -> None:
    # the far (top) edge sees dice at 0.6 of the centre's side, the near one at 1.4
    oblique = DetectorParams(work_die_px=24.0, size_slope_y=0.8)
    frame = (400.0, 300.0)
    # 7 px from the edge: 0.29 of a centre die's side, 0.47 of a die's side up there
    assert whole_in_frame(oblique, 200.0, 7.0, frame)
    assert not whole_in_frame(DetectorParams(work_die_px=24.0), 200.0, 7.0, frame)
    # 11 px from the near edge: 0.46 of a centre die's side, 0.33 of a near die's
    assert whole_in_frame(DetectorParams(work_die_px=24.0), 200.0, 289.0, frame)
    assert not whole_in_frame(oblique, 200.0, 289.0, frame)
    # across the tilt the rule is the straight-down camera's
    assert whole_in_frame(oblique, 10.0, 150.0, frame)
    assert not whole_in_frame(oblique, 9.0, 150.0, frame)
