"""Faces of an oblique camera's dice cut stretched back to square: the camera squashes
a die's top face across its tilt, and a die turned a quarter on the table is squashed
along its other side; calibration stores every die in its four quarter turns, so the
patch is un-squashed before it is cut (``DetectorParams.face_aspect``)."""

from __future__ import annotations

import json
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

import vision.reading.first_look
from vision.errors import ConfigError
from vision.learning.dataset import load_dataset
from vision.learning.die_size import face_aspect
from vision.learning.report import CalibrationReport, calibrate_with_report
from vision.reading.describe import describe_dice
from vision.reading.detect import DetectorParams
from vision.reading.features import squashed_angle, unsquashed, unsquashed_angle, upright_cuts
from vision.reading.model import load_model
from vision.reading.read import read_file
from vision.synth.strangers import stranger, write_stranger

Array = NDArray[Any]
SIDE = 40.0


def _die(angle: float, size: int = 200) -> Array:
    """A light die face (three dark pips in an L: no turn looks like another) turned
    ``angle`` degrees as ``cv2.getRotationMatrix2D`` turns, at the centre of a dark tray."""
    face = np.full((size, size, 3), 40, np.uint8)
    c = size / 2
    cv2.rectangle(face, (int(c - SIDE / 2), int(c - SIDE / 2)), (int(c + SIDE / 2), int(c + SIDE / 2)), (230, 230, 230), -1)  # fmt: skip
    for dx, dy in ((-10, -10), (-10, 10), (10, 10)):
        cv2.circle(face, (int(c + dx), int(c + dy)), 4, (20, 20, 20), -1)
    m = cv2.getRotationMatrix2D((c, c), -angle, 1.0)
    return cv2.warpAffine(face, m, (size, size), flags=cv2.INTER_LINEAR, borderValue=(40, 40, 40))


def _seen(angle: float, aspect: float) -> tuple[Array, tuple[float, float], float]:
    """The die of :func:`_die` as a camera foreshortening it by ``aspect`` sees it (over 1:
    squashed down the photo, under 1: across it), its centre there and its rotation as
    measured on that view."""
    flat = _die(angle)
    h, w = flat.shape[:2]
    size = (w, round(h / aspect)) if aspect >= 1 else (round(w * aspect), h)
    seen = cv2.resize(flat, size, interpolation=cv2.INTER_AREA)
    centre = (size[0] / 2, size[1] / 2)
    return seen, centre, _squashed_angle(angle, aspect)


def _squashed_angle(angle: float, aspect: float) -> float:
    """A rotation of ``angle`` degrees as a camera squashing by ``aspect`` shows it."""
    turn = math.radians(angle)
    x, y = math.cos(turn), math.sin(turn)
    x, y = (x, y / aspect) if aspect >= 1 else (x * aspect, y)
    return math.degrees(math.atan2(y, x))


@pytest.mark.parametrize("aspect", [1.3, 1 / 1.3])
@pytest.mark.parametrize("angle", [0.0, 25.0, -35.0])
def test_a_squashed_face_is_cut_as_the_flat_one(aspect: float, angle: float) -> None:
    flat = upright_cuts(_die(angle), [((100.0, 100.0), (SIDE, SIDE), angle)])[0]
    seen, centre, measured = _seen(angle, aspect)
    rect = (centre, (SIDE, SIDE), measured)
    back = upright_cuts(seen, [rect], aspect)[0]
    as_seen = upright_cuts(seen, [rect])[0]
    restored = float(np.abs(back - flat).mean())
    left = float(np.abs(as_seen - flat).mean())
    assert restored < 12.0, f"un-squashed, the cut differs from the flat die's by {restored:.1f}"
    assert restored < 0.5 * left, "cut as seen, the squashed die looks less like itself"


@pytest.mark.parametrize("aspect", [1.4, 1.0, 0.75])
def test_a_rotation_measured_on_the_squashed_view_is_turned_back(aspect: float) -> None:
    for angle in np.linspace(-89.0, 89.0, 37):
        measured = _squashed_angle(angle, aspect)
        assert unsquashed_angle(measured, aspect) == pytest.approx(angle, abs=1e-9)
        assert squashed_angle(angle, aspect) == pytest.approx(measured, abs=1e-9)


def test_the_stretch_keeps_the_die_centre_where_it_is() -> None:
    for aspect in (1.3, 0.8):
        m = unsquashed(aspect, 37.0, 81.0)
        assert m @ np.array([37.0, 81.0, 1.0]) == pytest.approx([37.0, 81.0, 1.0])
    assert unsquashed(1.0, 5.0, 6.0) == pytest.approx(np.eye(3))


def test_an_aspect_of_one_cuts_exactly_as_before() -> None:
    image = _die(20.0)
    rect = ((101.3, 98.7), (SIDE, SIDE), 20.0)
    assert np.array_equal(upright_cuts(image, [rect], 1.0), upright_cuts(image, [rect]))


def test_the_face_aspect_is_learned_only_from_a_tilt() -> None:
    tilted = DetectorParams(size_slope_y=0.4)
    assert face_aspect(tilted, 1.27) == 1.27
    assert face_aspect(DetectorParams(size_slope_x=-0.3), 0.8) == 0.8
    # a camera straight down: boxes a little off square are the owner's drawing
    assert face_aspect(DetectorParams(), 1.12) == 1.0
    # boxes taller than wide on a tilt down the photo (the near side boxed too, as on
    # catan's webcam): not the top face's foreshortening
    assert face_aspect(tilted, 0.97) == 1.0
    assert face_aspect(DetectorParams(size_slope_x=0.3, size_slope_y=0.1), 1.2) == 1.0


def test_a_model_file_from_before_cuts_faces_as_seen_and_bounds_are_checked() -> None:
    older = DetectorParams().to_dict()
    del older["face_aspect"]
    assert DetectorParams.from_dict(older).face_aspect == 1.0
    with pytest.raises(ConfigError, match="face_aspect 9"):
        DetectorParams(face_aspect=9.0)


def test_calibration_of_an_oblique_camera_cuts_and_reads_its_faces_back_to_square(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    who = replace(stranger(5, tiny=True), tilt=35.0, glare=0.0)
    train = load_dataset(write_stranger(tmp_path / "train", who, 12, 1, every_face=True))
    model, said = calibrate_with_report(train, folds=0)
    params = model.params
    assert params.size_slope_y > 0.2, "a tilt down the photo learned"
    assert params.face_aspect == params.box_aspect > 1.15, "its top faces seen squashed"
    assert json.loads(model.report)["face_aspect"] == round(params.face_aspect, 3)
    assert said.face_aspect == round(params.face_aspect, 3)
    assert any(line.startswith("an oblique camera: ") for line in said.lines())
    assert not any(w.startswith("too few photos") for w in said.warnings), "not asked to measure"
    loaded = load_model(model.save(tmp_path / "m.npz"))
    assert loaded.params.face_aspect == params.face_aspect
    cut_with: list[float] = []

    def spy(*args: Any) -> Array:
        cut_with.append(args[4])
        out: Array = describe_dice(*args)
        return out

    monkeypatch.setattr(vision.reading.first_look, "describe_dice", spy)
    test = load_dataset(write_stranger(tmp_path / "test", who, 2, 2))
    for item in test.items:
        assert read_file(item.image, loaded).dice
    assert cut_with and set(cut_with) == {params.face_aspect}


def test_the_calibration_report_tells_the_owner_of_the_squash() -> None:
    def said(aspect: float) -> list[str]:
        report = CalibrationReport(14, 40, 12.0, None, 0, [], face_aspect=aspect)
        assert report.to_json()["face_aspect"] == round(aspect, 3)
        return [line for line in report.lines() if line.startswith("an oblique camera")]

    assert said(1.0) == []
    (down,) = said(1.3148)
    assert "1.31 times as wide as tall (squashed down the photo)" in down
    (across,) = said(0.8)
    assert "1.25 times as tall as wide (squashed across the photo)" in across
