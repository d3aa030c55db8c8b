"""The real pipeline on synthetic frames: find dice, read faces, flag what is doubtful."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

import vision.reading.read
from controller.core.symbols import ALL_SYMBOLS, Symbol
from vision.errors import ConfigError, ImageReadError
from vision.images import jpeg_size
from vision.learning.evaluate import match
from vision.reading.describe import describe_again
from vision.reading.detect import DetectorParams, DetectResult, detect
from vision.reading.domain import DomainIssue
from vision.reading.model import NOT_A_DIE, FaceModel
from vision.reading.read import (
    SECOND_LOOK_UNDER,
    annotate,
    read_detections,
    read_file,
    read_frame,
    reduction,
)
from vision.reading.scaling import image_length
from vision.synth.die import draw_face
from vision.synth.scenes import Renderer, Settings


def _truth_vs_read(scene_dice: list, read_dice: tuple) -> list[tuple[Symbol, str | None]]:  # type: ignore[type-arg]
    pairs = match([d.box() for d in scene_dice], [d.box for d in read_dice])
    return [(scene_dice[i].symbol, read_dice[j].face) for i, j in pairs]


def test_face_drawings_are_distinct() -> None:
    faces = [draw_face(s, 48).astype(np.float32) for s in ALL_SYMBOLS]
    for i in range(6):
        for j in range(i + 1, 6):
            assert np.abs(faces[i] - faces[j]).mean() > 8, (ALL_SYMBOLS[i], ALL_SYMBOLS[j])


@pytest.mark.timeout(60)
def test_hard_frames_read_right(model: FaceModel) -> None:
    renderer = Renderer(Settings(hard=True), seed=77)
    right = total = 0
    for _ in range(8):
        scene = renderer.scene(count=6)
        read = read_frame(scene.image, model, expect=6)
        assert len(read.dice) == 6
        assert not read.count_mismatch
        pairs = _truth_vs_read(scene.dice, read.dice)
        assert len(pairs) == 6
        for (truth, face), die in zip(pairs, read.dice, strict=True):
            total += 1
            right += int(truth.value == face)
            assert face == truth.value or die.unsure, "a wrong face must be flagged unsure"
        assert read.ms > 0
    assert right / total >= 0.97


def test_touching_dice_are_separated(model: FaceModel) -> None:
    renderer = Renderer(Settings(touching=1.0), seed=5)
    scene = renderer.scene([Symbol.KICK, Symbol.STAR, Symbol.SPHERE, Symbol.PUNCH])
    read = read_frame(scene.image, model)
    assert len(read.dice) == 4
    assert sorted(f or "" for f in read.faces) == ["kick", "punch", "sphere", "star"]


def test_unsure_dice_get_a_second_look(model: FaceModel, monkeypatch: pytest.MonkeyPatch) -> None:
    scene = Renderer(Settings(touching=0.0), seed=21).scene(count=5)
    sure = read_frame(scene.image, model)
    looked: list[int] = []

    def spy(
        image: np.ndarray,  # type: ignore[type-arg]
        rects: list,  # type: ignore[type-arg]
        gains: np.ndarray | None = None,  # type: ignore[type-arg]
        first: np.ndarray | None = None,  # type: ignore[type-arg]
        ink: np.ndarray | None = None,  # type: ignore[type-arg]
        aspect: float = 1.0,
    ) -> np.ndarray:  # type: ignore[type-arg]
        assert first is not None and len(first) == len(rects), "the first look is reused"
        assert aspect == model.params.face_aspect, "cut as the model's faces were"
        looked.append(len(rects))
        return describe_again(image, rects, gains, first, ink, aspect)

    monkeypatch.setattr(vision.reading.read, "describe_again", spy)
    assert read_frame(scene.image, model).faces == sure.faces
    assert looked == [], "no second look while every die is sure"
    doubting = replace(model, threshold=1.0)  # every die under the bar
    again = read_frame(scene.image, doubting)
    assert looked == [5], "each unsure die looked at again, in one batch"
    assert len(again.dice) == 5 and all(d.unsure for d in again.dice)
    assert again.faces == sure.faces, "the second look reads the same faces"
    assert [t.value for t, _ in _truth_vs_read(scene.dice, again.dice)] == [
        f for _, f in _truth_vs_read(scene.dice, again.dice)
    ]


def test_dice_read_sure_by_little_get_a_second_look(
    model: FaceModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    scene = Renderer(Settings(touching=0.0), seed=21).scene(count=5)
    first = [d.confidence for d in read_frame(scene.image, replace(model, threshold=0.0)).dice]
    looked: list[int] = []

    def spy(*args: Any) -> Any:
        looked.append(len(args[1]))
        return describe_again(*args)

    monkeypatch.setattr(vision.reading.read, "describe_again", spy)
    far = replace(model, threshold=min(first) / (SECOND_LOOK_UNDER + 0.1))
    once = read_frame(scene.image, far)
    assert len(once.dice) == 5 and not any(d.unsure for d in once.dice)
    assert looked == [], "every die surer than the bar times SECOND_LOOK_UNDER"
    bar = min(first) / (SECOND_LOOK_UNDER - 0.1)  # sure, the least sure near the bar
    read = read_frame(scene.image, replace(model, threshold=bar))
    assert looked == [sum(c < SECOND_LOOK_UNDER * bar for c in first)] and looked[0] >= 1
    assert read.faces == once.faces, "the second look reads the same faces"


def test_a_die_is_read_where_its_cut_looks_most_like_the_owners_dice(model: FaceModel) -> None:
    scene = Renderer(Settings(touching=0.0), seed=21).scene(count=5)
    found = detect(scene.image, model.detector)
    right = [d.face for d in read_detections(found, model)]
    assert sorted(f or "" for f in right) == sorted(d.symbol.value for d in scene.dice)

    def off_centre(centre_second: bool) -> DetectResult:
        """Each die's peak a fifth of a side off its face; its box's centre on it (or
        the other way round)."""
        moved = []
        for d in found.detections:
            (cx, cy), size, angle = d.rect
            off = (cx + size[0] / 5, cy - size[1] / 5)
            peak, fit = (off, (cx, cy)) if centre_second else ((cx, cy), off)
            moved.append(replace(d, rect=(peak, size, angle), fit_center=fit))
        return replace(found, detections=moved)

    peaks_only = [replace(d, fit_center=None) for d in off_centre(True).detections]
    assert [d.face for d in read_detections(replace(found, detections=peaks_only), model)] != (
        right
    ), "cut a fifth of a side off, some faces read wrong"
    assert [d.face for d in read_detections(off_centre(True), model)] == right
    assert [d.face for d in read_detections(off_centre(False), model)] == right


def test_cocked_die_flagged_and_not_read(model: FaceModel) -> None:
    renderer = Renderer(Settings(touching=0.0), seed=11)
    scene = renderer.scene([Symbol.KICK, Symbol.STAR, Symbol.TELEPORT], cocked=1)
    read = read_frame(scene.image, model, expect=3)
    pairs = match([d.box() for d in scene.dice], [d.box for d in read.dice])
    assert len(pairs) == 3
    for i, j in pairs:
        assert read.dice[j].cocked == scene.dice[i].cocked
    cocked = [d for d in read.dice if d.cocked]
    assert len(cocked) == 1 and cocked[0].face is None
    assert "cocked" in read.flags and not read.trustworthy


def test_count_mismatch_flagged(model: FaceModel) -> None:
    scene = Renderer(seed=2).scene(count=4)
    read = read_frame(scene.image, model, expect=5)
    assert len(read.dice) == 4
    assert read.count_mismatch and "count_mismatch" in read.flags
    assert read.to_json()["flags"] == ["count_mismatch"]


def test_empty_tray_and_hand(model: FaceModel) -> None:
    renderer = Renderer(seed=3)
    empty = read_frame(renderer.render([]), model)
    assert empty.dice == () and not empty.obstructed
    dice = renderer.place([Symbol.STAR, Symbol.KICK])
    hand = read_frame(renderer.render(dice, hand=True), model)
    assert hand.obstructed and "obstructed" in hand.flags


def test_annotate_draws_boxes(model: FaceModel) -> None:
    scene = Renderer(seed=4).scene(count=2)
    read = read_frame(scene.image, model)
    drawn = annotate(scene.image, read)
    assert drawn.shape == scene.image.shape
    x, y, w, _ = (round(v) for v in read.dice[0].box)
    assert not np.array_equal(drawn[y, x : x + w], scene.image[y, x : x + w])


def test_detector_settings_checked() -> None:
    with pytest.raises(ConfigError, match="cocked_aspect"):
        DetectorParams(cocked_aspect=0.5)
    with pytest.raises(ConfigError, match="die_frac"):
        DetectorParams(die_frac=2.0)


def test_detect_without_tray_mask(model: FaceModel) -> None:
    scene = Renderer(seed=8).scene(count=3)
    found = detect(scene.image, model.detector)
    assert len(found.detections) == 3


def test_jpeg_header_and_odd_files(tmp_path: Path, model: FaceModel) -> None:
    scene = Renderer(seed=14).scene(count=2)
    jpg = tmp_path / "a.jpg"
    cv2.imwrite(str(jpg), scene.image)
    assert jpeg_size(jpg.read_bytes()) == (1280, 960)
    assert jpeg_size(b"\x89PNG....") is None
    png_named_jpg = tmp_path / "b.jpg"
    _, buf = cv2.imencode(".png", scene.image)
    png_named_jpg.write_bytes(buf.tobytes())
    assert len(read_file(png_named_jpg, model).dice) == 2
    cut = tmp_path / "cut.jpg"
    cut.write_bytes(jpg.read_bytes()[:600])
    with pytest.raises(ImageReadError, match=r"cut\.jpg"):
        read_file(cut, model)


def test_renderer_is_deterministic() -> None:
    a = Renderer(Settings(hard=True), seed=123).scene(count=6)
    b = Renderer(Settings(hard=True), seed=123).scene(count=6)
    assert np.array_equal(a.image, b.image)
    assert a.dice == b.dice
    c = Renderer(Settings(hard=True), seed=124).scene(count=6)
    assert not np.array_equal(a.image, c.image)


def test_whether_a_detection_is_a_die_is_the_first_looks_not_the_second(
    model: FaceModel,
) -> None:
    """A second look (at a die in doubt) reads its face again: it neither drops a die the
    first look found nor makes a die of what the first look took for no die."""
    scene = Renderer(Settings(touching=0.0), seed=21).scene(count=5)
    # the sphere's first look lies 0.16 from the owner's spheres, its second 0.24 (averaged over
    # cuts about it); the other dice's first looks lie 0.29 or more from any face: with dice
    # farther than 0.2 no die (NOT_A_DIE of the novelty distance), only the sphere is a die
    doubting = replace(model, threshold=1.0, novelty=0.2 / NOT_A_DIE)
    read = read_frame(scene.image, doubting)
    assert [(d.face, d.unsure) for d in read.dice] == [("sphere", True)]


def test_more_dice_than_expected_is_a_count_mismatch(model: FaceModel) -> None:
    """A die too many (one left in the tray, a neighbour's) is flagged as one too few is."""
    scene = Renderer(seed=2).scene(count=4)
    read = read_frame(scene.image, model, expect=3)
    assert len(read.dice) == 4
    assert read.count_mismatch and "count_mismatch" in read.flags and not read.trustworthy


def test_a_large_photo_is_decoded_reduced_and_read_in_its_own_pixels(
    tmp_path: Path, model: FaceModel
) -> None:
    """A photo four times the learned size is decoded at 1/4 (the most that keeps a die twice
    the face scale: 1/8 would not), and its size and boxes are its own pixels."""
    scene = Renderer(seed=14).scene(count=3)
    big = cv2.resize(scene.image, None, fx=4, fy=4, interpolation=cv2.INTER_CUBIC)
    jpg = tmp_path / "big.jpg"
    cv2.imwrite(str(jpg), big)
    assert reduction(jpg, model) == 4
    read = read_file(jpg, model, expect=3)
    assert read.size == (5120, 3840) and read.warnings == ()
    truth = [(4 * x, 4 * y, 4 * w, 4 * h) for x, y, w, h in (d.box() for d in scene.dice)]
    assert len(match(truth, [d.box for d in read.dice])) == 3
    assert sorted(f or "" for f in read.faces) == sorted(d.symbol.value for d in scene.dice)


def test_dice_read_at_under_a_third_of_the_learned_side_have_too_few_pixels(
    model: FaceModel,
) -> None:
    """The pixels a die has are judged at the size its dice are read at: a frame of the
    learned size whose dice are 0.3 of the learned side (39 px) is warned about."""
    tray = Renderer(seed=3).render([])
    assert read_frame(tray, model).warnings == ()
    read = read_frame(tray, model, die_scale=0.3)
    assert [w.kind for w in read.warnings] == [DomainIssue.FEW_PIXELS]
    assert read.warnings[0].text.startswith("dice about 39 px wide in a 1280x960 photo")


def test_a_frame_read_unstretched_has_its_dice_centres_in_its_own_pixels(
    model: FaceModel,
) -> None:
    """A model of photos a labelling service stretched twice as wide reads a frame of their
    shape unstretched: each die's centre (what roll tracking follows) is put back in the
    frame's pixels, as its box is."""
    stretched = replace(
        model,
        detector=replace(model.detector, params=replace(model.params, pixel_aspect=2.0)),
        domain=replace(model.domain, sizes=((2560, 960),)) if model.domain else None,
    )
    scene = Renderer(seed=14).scene(count=3)
    wide = cv2.resize(scene.image, (2560, 960), interpolation=cv2.INTER_LINEAR)
    read = read_frame(wide, stretched, expect=3)
    assert len(read.dice) == 3 and read.warnings == ()
    for die in read.dice:
        x, y, w, h = die.box
        assert die.center == pytest.approx((x + w / 2, y + h / 2), abs=w / 10)


def test_a_camera_turned_a_quarter_turn_sees_dice_of_the_size_learned(model: FaceModel) -> None:
    """Die sizes are measured against sqrt(width * height), which a quarter turn keeps: the
    dice of a frame turned upright are sought at the size they have, and read."""
    assert image_length(1280, 960) == image_length(960, 1280) == pytest.approx(1108.51, abs=0.01)
    scene = Renderer(seed=14).scene(count=3)
    upright = cv2.rotate(scene.image, cv2.ROTATE_90_CLOCKWISE)
    read = read_frame(upright, model, expect=3)
    assert sorted(f or "" for f in read.faces) == sorted(d.symbol.value for d in scene.dice)
