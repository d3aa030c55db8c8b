"""A die left without a label in a calibration photo is named, not learned as background."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest

from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.unlabeled import AWAY, _near, unlabeled_dice, unlabeled_warning
from vision.reading.box_fit import Box
from vision.reading.describe import cut_die, join, light_gains, quarter_turned
from vision.reading.detect import FACE_DIE_PX, detect
from vision.reading.model import BACKGROUND, FaceModel
from vision.reading.read import read_file
from vision.synth.scenes import Renderer, write_dataset


def _without_background(model: FaceModel) -> FaceModel:
    """The shipped model as calibration has it when it looks: no background samples."""
    face = model.labels != BACKGROUND
    out = FaceModel(model.face_set, model.names, model.samples[face], model.labels[face],
                    model.detector, model.threshold, model.novelty, mean=model.mean,
                    basis=model.basis)  # fmt: skip
    out.pair_thresholds = model.pair_thresholds
    out.ink = model.ink
    return out


def test_a_die_without_a_label_reads_sure_and_the_bare_tray_does_not(model: FaceModel) -> None:
    faces = _without_background(model)
    image = Renderer(seed=7).scene(count=3).image
    found = detect(image, model.detector)
    work = found.work
    gains = light_gains(work)
    dice = [d.rect for d in found.detections]
    assert len(dice) == 3
    h, w = work.shape[:2]
    corner = ((0.06 * w, 0.08 * h), (FACE_DIE_PX, FACE_DIE_PX), 0.0)  # bare tray
    (cx, cy), size, angle = dice[0]
    beside = ((cx + 0.5 * FACE_DIE_PX, cy), size, angle)  # half a die off a labelled die
    rects = [dice[1], dice[2], corner, beside]
    turns = [
        join(*quarter_turned(*cut_die(work, r, gains, faces.ink, faces.params.face_aspect)))
        for r in rects
    ]
    places = [(0, r[0][0], r[0][1]) for r in rects]
    labelled = [[_box(dice[0])]]  # the photo's one label: the first die
    missed = unlabeled_dice(faces, places, turns, labelled)
    assert [i for i, _ in missed] == [0, 1]  # the two dice; not the tray, not beside die 0
    reads = faces.classify(np.stack(turns[:2]))
    assert [d.face for _, d in missed] == [r.face for r in reads]
    # with every die labelled, nothing is missed
    everything = [[_box(r) for r in dice]]
    assert unlabeled_dice(faces, places, turns, everything) == []
    assert unlabeled_dice(faces, [], [], labelled) == []


def test_a_place_just_off_a_labelled_box_is_that_die_not_another() -> None:
    box = (100.0, 100.0, 50.0, 30.0)  # a top face boxed, foreshortened by an oblique camera
    assert _near(95.0, 135.0, box)  # its shadow's corner: within a quarter side of the box
    assert _near(125.0, 147.0, box)  # the side face below it: within 0.8 side of its centre
    assert not _near(125.0, 160.0, box)  # a die touching it from below: a side away
    assert not _near(175.0, 115.0, box)  # and from the right
    assert not _near(125.0 - AWAY * 50 - 1, 115.0, box)


def _box(rect: tuple[tuple[float, float], tuple[float, float], float]) -> Box:
    (cx, cy), (w, h), _ = rect
    return (cx - w / 2, cy - h / 2, w, h)


def test_warning_names_label_file_photo_place_and_face() -> None:
    text = unlabeled_warning("labels/a.txt", "a.jpg", (221.4, 1000.6), "4", 0.571)
    assert text == (
        "labels/a.txt: a die near (221, 1001) px in a.jpg has no label line, and reads as "
        "'4' (confidence 0.57); label it and calibrate again (this calibration learned "
        "nothing from it)"
    )


@pytest.mark.slow  # two calibrations
@pytest.mark.timeout(600)  # a hang guard: two calibrations on a loaded core
def test_calibration_names_the_die_left_unlabelled(tmp_path: Path) -> None:
    root = write_dataset(tmp_path / "ds", 6, seed=21, hard=False, per_image=4)
    intact = calibrate(load_dataset(root))
    assert '"unlabeled_dice": 0' in intact.report
    label = root / "labels" / "synth_0003.txt"
    lines = label.read_text(encoding="utf-8").splitlines()
    cls, cx, cy = lines[2].split()[:3]
    label.write_text("\n".join(lines[:2] + lines[3:]) + "\n", encoding="utf-8")
    model = calibrate(load_dataset(root))
    warned = [w for w in json.loads(model.report)["warnings"] if "has no label" in w]
    assert len(warned) == 1, warned
    assert warned[0].startswith("labels/synth_0003.txt: a die near (")
    x, y = (float(v) for v in warned[0].split("near (")[1].split(")")[0].split(","))
    assert abs(x - float(cx) * 1280) < 0.3 * 130 and abs(y - float(cy) * 960) < 0.3 * 130
    assert f"reads as {intact.names[int(cls)]!r}" in warned[0]
    # learned neither as background nor as the finder's negative: the reader still finds it
    read = read_file(root / "images" / "synth_0003.png", model)
    found = [d.center for d in read.dice]
    assert any(math.hypot(fx - x, fy - y) < 0.3 * 130 for fx, fy in found), (found, x, y)
