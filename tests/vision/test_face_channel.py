"""The colour faces are read in: each die's own widest spread, or one calibration chose."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from tests.vision.conftest import made_once
from vision.errors import ModelError
from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import evaluate
from vision.learning.face_channel import EACH_DIES_OWN, NEIGHBOURS, _votes, choose_channel, unit
from vision.learning.report import CalibrationReport
from vision.reading.describe import light_gains
from vision.reading.detect import FACE_DIE_PX
from vision.reading.die_shape import orientation
from vision.reading.features import Rect, contrast_channels
from vision.reading.model import FaceModel, load_model
from vision.synth.designs import DiceSet, MarkKind
from vision.synth.strangers import Stranger, StrangerCamera, stranger, write_stranger

# numerals in a colour of their own on a body marbled with a second colour far from it:
# the marble, not the numerals, spreads the dice's colours most
MARBLED = DiceSet(  # pink numerals, a dark purple body swirled with grey-green
    kind=MarkKind.NUMERALS, body=(30, 10, 40), marks=(190, 100, 150), body2=(120, 125, 100)
)
MARBLED_NAVY = DiceSet(  # yellow numerals, a navy body swirled with grey
    kind=MarkKind.NUMERALS, body=(50, 30, 30), marks=(60, 200, 230), body2=(140, 150, 150)
)
PLAIN = DiceSet(kind=MarkKind.PIPS, body=(215, 230, 235), marks=(30, 30, 30))


def _stranger(dice: DiceSet) -> Stranger:
    return replace(stranger(5, tiny=True), sets=(dice,), tilt=0.0, glare=0.0, die_px=40.0)


def _labeled_dice(
    who: Stranger, photos: int
) -> tuple[list[Any], list[Any], list[tuple[int, Rect, int]]]:
    """``photos`` photos of ``who`` at the face scale, their gains and their dice."""
    camera = StrangerCamera(who, seed=3)
    faces, gains, dice = [], [], []
    for k in range(photos):
        image, labels = camera.photo(count=3, faces=[(0, (3 * k + i) % 6) for i in range(3)])
        scale = FACE_DIE_PX / who.die_px
        face = cv2.resize(image, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        for name, (x, y, w, h) in labels:
            cx, cy = (x + w / 2) * scale, (y + h / 2) * scale
            angle = orientation(gray, cx, cy, FACE_DIE_PX)
            rect = ((cx, cy), (float(FACE_DIE_PX), float(FACE_DIE_PX)), angle)
            dice.append((k, rect, who.names.index(name)))
        faces.append(face)
        gains.append(light_gains(face))
    return faces, gains, dice


@pytest.mark.parametrize("dice_set", [MARBLED, MARBLED_NAVY], ids=["pink", "yellow"])
def test_marbled_numerals_are_read_in_a_colour_of_their_own(dice_set: DiceSet) -> None:
    faces, gains, dice = _labeled_dice(_stranger(dice_set), 16)
    choice = choose_channel(faces, gains, dice, np.random.default_rng(0))
    assert choice.ink is not None, choice.held_out
    assert choice.name != EACH_DIES_OWN
    assert abs(float(np.linalg.norm(choice.ink)) - 1.0) < 1e-5
    own = choice.held_out[EACH_DIES_OWN]
    assert choice.held_out[choice.name] >= own + 0.25, choice.held_out
    assert choice.to_json()["chosen"] == choice.name


def test_plain_dice_keep_their_own_colours() -> None:
    faces, gains, dice = _labeled_dice(_stranger(PLAIN), 16)
    choice = choose_channel(faces, gains, dice, np.random.default_rng(0))
    assert choice.ink is None and choice.name == EACH_DIES_OWN, choice.held_out
    assert choice.held_out[EACH_DIES_OWN] >= 0.9, "pips on ivory read right either way"


def test_one_photo_or_gray_photos_keep_each_dies_own() -> None:
    faces, gains, dice = _labeled_dice(_stranger(MARBLED), 2)
    alone = [(0, rect, c) for k, rect, c in dice if k == 0]
    assert choose_channel(faces, gains, alone, np.random.default_rng(0)).ink is None
    gray = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) for f in faces]
    assert choose_channel(gray, [None, None], dice, np.random.default_rng(0)).ink is None


def test_each_die_is_voted_on_by_its_nearest_dice_of_other_photos() -> None:
    assert NEIGHBOURS == 3
    # dice 0-1 in photo 0, dice 2-5 in photo 1; faces 0, 0, 0, 1, 0, 1
    photo = np.array([0, 0, 1, 1, 1, 1])
    cls = np.array([0, 0, 0, 1, 0, 1])
    near = np.array(
        [
            [1.0, 0.99, 0.7, 0.9, 0.6, 0.8],  # its own photo's twin does not vote
            [0.99, 1.0, 0.5, 0.4, 0.6, 0.3],
            [0.7, 0.5, 1.0, 0.9, 0.9, 0.9],
            [0.2, 0.1, 0.9, 1.0, 0.9, 0.9],  # photo 1: only two dice of another photo vote
            [0.6, 0.6, 0.9, 0.9, 1.0, 0.9],
            [0.1, 0.1, 0.9, 0.9, 0.9, 1.0],
        ]
    )
    votes = _votes(near, cls, photo[:, None] == photo[None, :])
    # die 0: nearest of photo 1 are 3 (face 1), 5 (face 1), 2 (face 0) -> one vote
    # die 1: 4, 2 (face 0), 3 (face 1) -> two; dice 2 and 4: 0, 1 -> two; 3 and 5: none
    assert votes.tolist() == [1, 2, 2, 0, 2, 0]


def test_a_fixed_colour_keeps_the_body_bright_and_the_marks_dark() -> None:
    patch = np.full((1, 20, 20, 3), (60.0, 30.0, 200.0), np.float32)  # a red body
    patch[0, 8:12, 8:12] = (200.0, 40.0, 40.0)  # a blue mark
    for ink in (unit((1, 0, -1)), unit((-1, 0, 1)), unit((1, 1, 1))):
        c = contrast_channels(patch, ink)[0]
        assert c[10, 10] < c[2, 2], f"along {ink} the mark is darker than the body"
    own = contrast_channels(patch)[0]
    assert own[10, 10] < own[2, 2]


def _marbled_model(tmp: Path) -> FaceModel:
    who = _stranger(MARBLED)
    return calibrate(load_dataset(write_stranger(tmp / "train", who, 14, 1, every_face=True)))


@pytest.fixture(scope="module")
def marbled_model(tmp_path_factory: pytest.TempPathFactory, worker_id: str) -> FaceModel:
    """A model calibrated on 14 photos of the marbled numerals (made once per run)."""
    tmp = tmp_path_factory.mktemp("marbled")
    return made_once(tmp_path_factory, worker_id, "marbled-model", lambda: _marbled_model(tmp))


def test_calibration_keeps_the_chosen_colour_in_the_model(
    marbled_model: FaceModel, tmp_path: Path
) -> None:
    report = json.loads(marbled_model.report)["face_channel"]
    assert marbled_model.ink is not None and report["chosen"] != EACH_DIES_OWN
    loaded = load_model(marbled_model.save(tmp_path / "m.npz"))
    assert loaded.ink is not None and np.allclose(loaded.ink, marbled_model.ink)


def test_the_chosen_colour_reads_new_photos(marbled_model: FaceModel, tmp_path: Path) -> None:
    who = _stranger(MARBLED)
    test = load_dataset(write_stranger(tmp_path / "test", who, 8, 2))
    read = evaluate(test, marbled_model)
    # the same samples, the new dice read along each die's own colours: the reader must
    # read along the model's colour to match them
    blind = evaluate(test, replace(marbled_model, ink=None))
    assert read.accuracy >= 0.9, read
    assert read.accuracy > blind.accuracy + 0.1, (read, blind)


def test_a_damaged_face_ink_is_named(marbled_model: FaceModel, tmp_path: Path) -> None:
    path = marbled_model.save(tmp_path / "m.npz")
    with np.load(path) as data:
        arrays = {k: data[k] for k in data.files}
    for bad in (np.array([1.0, 0.0], np.float32), np.array([3.0, 0.0, 0.0], np.float32),
                np.array([np.nan, 0.0, 1.0], np.float32)):  # fmt: skip
        np.savez_compressed(tmp_path / "bad.npz", **{**arrays, "face_ink": bad})
        with pytest.raises(ModelError, match=r"bad\.npz: face_ink .*expected 3 finite values"):
            load_model(tmp_path / "bad.npz")
    del arrays["face_ink"]
    np.savez_compressed(tmp_path / "old.npz", **arrays)
    assert load_model(tmp_path / "old.npz").ink is None, "a file without it reads each die's own"


def test_the_calibration_report_names_a_chosen_colour() -> None:
    chosen = CalibrationReport(14, 40, 12.0, None, 0, [], colour="magenta against green")
    assert any(line.startswith("faces read in magenta against green: ") for line in chosen.lines())
    assert chosen.to_json()["faces_read_in"] == "magenta against green"
    own = CalibrationReport(14, 40, 12.0, None, 0, [])
    assert not any(line.startswith("faces read in") for line in own.lines())
    assert own.to_json()["faces_read_in"] == EACH_DIES_OWN
