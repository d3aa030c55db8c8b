"""The reader knows when it is out of its depth: what a model learned from, and warnings
for frames outside it (another photo shape, too few pixels, dice smaller or larger, another
camera angle)."""

from __future__ import annotations

import queue
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from controller.core.events import Event
from vision.events import BackInDepth, OutOfDepth, ThrowSettled
from vision.learning.dataset import load_dataset
from vision.learning.report import CalibrationReport
from vision.reading.domain import (
    Domain,
    DomainIssue,
    camera_fit,
    dice_warnings,
    learned_domain,
    photo_warnings,
)
from vision.reading.model import FaceModel, load_model
from vision.reading.read import TOUCHING, _touching, read_frame
from vision.reading.reader import DiceReader
from vision.synth.scenes import Renderer, stress_settings

# a hang guard, not a speed limit: the stress calibration (shared) is a CPU-minute
pytestmark = pytest.mark.timeout(600)

DOMAIN = Domain(((1280, 960),), (100.0, 110.0, 120.0), (0.9, 1.0), (1.0, 1.05))
FRAC = 110.0 / (1280 * 960) ** 0.5  # dice of 110 px at 1280x960


def kinds(warnings: object) -> list[DomainIssue]:
    return [w.kind for w in warnings]  # type: ignore[attr-defined]


def test_photo_shape_and_pixels() -> None:
    assert photo_warnings(DOMAIN, 1280, 960, FRAC) == []
    assert photo_warnings(DOMAIN, 960, 1280, FRAC) == []  # a quarter turn: the same camera
    assert photo_warnings(DOMAIN, 640, 480, FRAC) == []  # dice of 55 px: enough pixels
    (shape,) = photo_warnings(DOMAIN, 1920, 1080, FRAC)
    assert shape.kind is DomainIssue.PHOTO_SHAPE
    assert shape.text.startswith("a 1920x1080 photo, but the model learned from 1280x960 photos")
    assert kinds(photo_warnings(DOMAIN, 320, 240, FRAC)) == [DomainIssue.FEW_PIXELS]
    assert "dice about 28 px" in photo_warnings(DOMAIN, 320, 240, FRAC)[0].text


def test_photos_exported_square_are_of_the_camera_in_either_shape() -> None:
    """A set exported stretched (or fitted) to 640x640 from 16:9 frames: the camera's own
    1920x1080 frames are its photos too, a 4:3 one not."""
    square = Domain(((640, 640),), DOMAIN.die_px, DOMAIN.size, DOMAIN.aspect)
    native = [(640, 360)]
    assert photo_warnings(square, 640, 640, FRAC, native=native) == []
    assert photo_warnings(square, 1920, 1080, FRAC, native=native) == []
    assert photo_warnings(square, 1080, 1920, FRAC, oblique=True, native=native)[0].kind is (
        DomainIssue.PHOTO_TURNED
    )
    assert kinds(photo_warnings(square, 1920, 1080, FRAC)) == [DomainIssue.PHOTO_SHAPE]
    assert kinds(photo_warnings(square, 1280, 960, FRAC, native=native)) == [
        DomainIssue.PHOTO_SHAPE
    ]
    assert camera_fit(square, FRAC, 1920, 1080, native=native).endswith(": fine")


def test_a_quarter_turn_warns_only_a_model_of_an_oblique_camera() -> None:
    """Turned, an oblique camera's near (larger) dice lie along the other axis."""
    (turned,) = photo_warnings(DOMAIN, 960, 1280, FRAC, oblique=True)
    assert turned.kind is DomainIssue.PHOTO_TURNED and not turned.kind.from_dice
    assert turned.text.startswith("a 960x1280 photo, but the model learned from 1280x960")
    assert photo_warnings(DOMAIN, 1280, 960, FRAC, oblique=True) == []
    assert photo_warnings(DOMAIN, 640, 480, FRAC, oblique=True) == []  # smaller, same way
    square = Domain(((1000, 1000),), DOMAIN.die_px, DOMAIN.size, DOMAIN.aspect)
    assert kinds(photo_warnings(square, 1000, 1000, FRAC, oblique=True)) == []
    both = Domain(((1280, 960), (960, 1280)), DOMAIN.die_px, DOMAIN.size, DOMAIN.aspect)
    assert photo_warnings(both, 960, 1280, FRAC, oblique=True) == []  # learned both ways
    assert "turned a quarter" in camera_fit(DOMAIN, FRAC, 960, 1280, oblique=True)
    assert camera_fit(DOMAIN, FRAC, 960, 1280).endswith(": fine")


def test_dice_size_and_view() -> None:
    ok = [0.95, 1.0, 0.5]
    assert dice_warnings(DOMAIN, ok, [1.0, 1.02, 1.4]) == []  # medians inside
    assert kinds(dice_warnings(DOMAIN, [0.6, 0.65], [1.0, 1.0])) == [DomainIssue.DICE_SMALLER]
    assert kinds(dice_warnings(DOMAIN, [1.5, 1.45], [1.0, 1.0])) == [DomainIssue.DICE_LARGER]
    assert dice_warnings(DOMAIN, [1.5], [1.0]) == []  # one die says little of the camera
    # two dice pressed together make one long outline (1.4 sides, twice as long as wide),
    # a die's dark mark a small one: neither says the camera moved
    assert dice_warnings(DOMAIN, [0.96, 1.36, 1.37], [1.0, 1.55, 1.56]) == []
    assert dice_warnings(DOMAIN, [1.37, 0.46, 0.97], [1.64, 1.1, 1.0]) == []
    assert kinds(dice_warnings(DOMAIN, [0.6, 0.62, 1.0], [1.0, 1.0, 1.0])) == [
        DomainIssue.DICE_SMALLER
    ]  # two thirds of the dice
    assert kinds(dice_warnings(DOMAIN, ok, [1.3, 1.25, 1.0])) == [DomainIssue.MORE_OBLIQUE]
    assert dice_warnings(DOMAIN, [1.0], [1.3]) == []  # one die says little of the camera
    # outlines of two dice pressed together (or of a mark) say nothing of the view
    assert dice_warnings(DOMAIN, [1.0, 1.4, 1.4, 0.5], [1.0, 2.0, 2.0, 1.8]) == []
    oblique = replace(DOMAIN, aspect=(1.25, 1.35))
    (straight,) = dice_warnings(oblique, [1.0, 0.95], [1.0, 1.02])
    assert straight.kind is DomainIssue.MORE_STRAIGHT
    assert "more straight down than in calibration" in straight.text
    assert "1.25-1.35" in straight.text


def test_learned_domain_and_its_json() -> None:
    sizes = [(1280, 960)] * 3 + [(640, 480)]
    domain = learned_domain(sizes, [100, 110, 120], [0.8, 1.0, 1.0, 1.2], [1.0, 1.1])
    assert domain.sizes == ((1280, 960), (640, 480))  # most common first
    assert domain.die_px[1] == pytest.approx(110.0)
    assert domain.size == pytest.approx((0.95, 1.05))
    again = Domain.from_json(domain.to_json())
    assert again.sizes == domain.sizes
    assert again.die_px == pytest.approx(domain.die_px, abs=0.01)
    with pytest.raises(ValueError, match="calibration domain"):
        Domain.from_json('{"sizes": []}')


def test_camera_fit_lines() -> None:
    assert camera_fit(DOMAIN, FRAC, 1280, 960) == (
        "face model: at 1280x960 dice about 110 px; it learned from 1280x960 photos, dice "
        "100-120 px: fine"
    )
    assert camera_fit(DOMAIN, FRAC, 1920, 1080).startswith(
        "face model: warning: a 1920x1080 photo, but the model learned from 1280x960 photos"
    )
    assert "does not record the photos" in camera_fit(None, FRAC, 1280, 960)


@pytest.fixture(scope="module")
def calibrated(stress_calibration: tuple[FaceModel, CalibrationReport]) -> FaceModel:
    return stress_calibration[0]


def test_calibration_records_its_domain_in_the_file(calibrated: FaceModel, tmp_path: Path) -> None:
    domain = calibrated.domain
    assert domain is not None
    assert domain.sizes == ((1280, 960),)
    expected_px = calibrated.params.die_frac * (1280 * 960) ** 0.5
    assert domain.die_px[1] == pytest.approx(expected_px, rel=0.1)
    assert 0.6 < domain.size[0] <= domain.size[1] < 1.3
    assert 1.0 <= domain.aspect[0] <= domain.aspect[1] < 1.2
    loaded = load_model(calibrated.save(tmp_path / "m.npz"))
    assert loaded.domain is not None and loaded.domain.sizes == domain.sizes
    older = load_model(replace(calibrated, domain=None).save(tmp_path / "old.npz"))
    assert older.domain is None  # a file without it reads as before
    assert read_frame(np.zeros((960, 1280, 3), np.uint8), older).warnings == ()


def _frame(settings_scale: float = 1.0, seed: int = 2, count: int = 6) -> NDArray[Any]:
    settings = stress_settings(3)  # the table the stress calibration learned
    settings = replace(settings, die_frac=settings.die_frac * settings_scale)
    image: NDArray[Any] = Renderer(settings, seed=seed).scene(count=count).image
    return image


def test_frames_outside_the_domain_warn(calibrated: FaceModel) -> None:
    frame = _frame()
    assert read_frame(frame, calibrated).warnings == ()
    assert read_frame(cv2.resize(frame, (640, 480), interpolation=cv2.INTER_AREA),
                      calibrated).warnings == ()  # fmt: skip
    squashed = read_frame(cv2.resize(frame, (1280, 720)), calibrated)
    assert DomainIssue.PHOTO_SHAPE in kinds(squashed.warnings)
    tiny = read_frame(cv2.resize(frame, (160, 120), interpolation=cv2.INTER_AREA), calibrated)
    assert kinds(tiny.warnings) == [DomainIssue.FEW_PIXELS]
    assert kinds(read_frame(_frame(1.7, seed=3, count=4), calibrated).warnings) == [
        DomainIssue.DICE_LARGER
    ]
    assert kinds(read_frame(_frame(0.6, seed=4), calibrated).warnings) == [DomainIssue.DICE_SMALLER]
    assert read_frame(frame, calibrated).to_json()["warnings"] == []
    turned = np.ascontiguousarray(np.rot90(frame))
    assert not calibrated.params.oblique  # a stress table is seen straight down
    assert DomainIssue.PHOTO_TURNED not in kinds(read_frame(turned, calibrated).warnings)
    tilted = replace(calibrated.params, size_slope_y=0.5)
    oblique = replace(calibrated, detector=replace(calibrated.detector, params=tilted))
    assert DomainIssue.PHOTO_TURNED in kinds(read_frame(turned, oblique).warnings)
    assert squashed.to_json()["warnings"] == [w.text for w in squashed.warnings]


def test_the_reader_posts_out_of_depth_when_a_warning_comes(calibrated: FaceModel) -> None:
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(calibrated, q)
    wide = np.full((720, 1280, 3), 128, np.uint8)
    blank = np.full((960, 1280, 3), 128, np.uint8)
    squashed = cv2.resize(_frame(seed=4), (1280, 720))  # another shape (and the dice with it)
    frames = [wide, squashed, wide, squashed, blank, _frame(seed=6), wide, squashed]
    for n, frame in enumerate(frames):
        for k in range(6):  # motion, then the tray still long enough to settle
            reader.feed(frame, n * 10.0 + k)
    events = []
    while not q.empty():
        events.append(q.get_nowait())
    # the same warnings again are not repeated; a frame inside the domain clears them
    assert [type(e) for e in events] == [
        OutOfDepth, ThrowSettled, ThrowSettled, BackInDepth, ThrowSettled, OutOfDepth, ThrowSettled
    ]  # fmt: skip
    first = events[0]
    assert isinstance(first, OutOfDepth)
    assert first.timestamp < 10  # at the first frame, where no die lies (review depth f01)
    assert any(w.startswith("a 1280x720 photo") for w in first.warnings)
    assert "photo size not the calibrated one" in first.lines
    assert len(first.lines) == len(first.warnings)
    assert reader.warned == events[5].warnings  # type: ignore[attr-defined]


def test_one_throw_of_dice_unlike_calibration_is_not_yet_a_warning(
    calibrated: FaceModel,
) -> None:
    """The dice's measures vary from throw to throw: the reader says the dice are smaller
    once two throws in a row show it, not after one."""
    small = _frame(0.6, seed=4)
    assert kinds(read_frame(small, calibrated).warnings) == [DomainIssue.DICE_SMALLER]
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(calibrated, q)
    blank = np.full((960, 1280, 3), 128, np.uint8)  # an empty tray between throws
    frames = [_frame(seed=5), blank, small, blank, _frame(seed=6), blank, small, blank, small]
    for n, frame in enumerate(frames):
        for k in range(6):
            reader.feed(frame, n * 10.0 + k)
    events = []
    while not q.empty():
        events.append(q.get_nowait())
    assert [type(e) for e in events] == [ThrowSettled] * 4 + [OutOfDepth, ThrowSettled]
    assert events[4].lines == ("dice smaller than calibrated",)  # type: ignore[attr-defined]


def test_dice_read_prints_the_warnings(
    calibrated: FaceModel, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from controller.cli.main import main

    model = calibrated.save(tmp_path / "m.npz")
    photo = tmp_path / "wide.png"
    cv2.imwrite(str(photo), cv2.resize(_frame(), (1280, 720)))
    assert main(["dice", "read", str(photo), "--model", str(model)]) == 0
    out = capsys.readouterr().out
    assert "warning: a 1280x720 photo, but the model learned from 1280x960 photos" in out


def test_an_evaluation_counts_the_photos_that_warned(calibrated: FaceModel) -> None:
    from vision.learning.evaluate import score_read

    frame = _frame()
    result = score_read(read_frame(frame, calibrated), [], calibrated.names)
    assert result.warned == 0
    squashed = read_frame(cv2.resize(frame, (1280, 720)), calibrated)
    result.add(score_read(squashed, [], calibrated.names))
    assert result.to_json()["warned_images"] == 1 and result.images == 2


def test_the_stress_photos_themselves_do_not_warn(
    calibrated: FaceModel, stress_photos: tuple[Path, Path]
) -> None:
    for item in load_dataset(stress_photos[1]).items:
        image = cv2.imread(str(item.image))
        assert read_frame(image, calibrated).warnings == ()


def test_a_die_pressed_against_another_is_not_measured_for_the_size() -> None:
    """Two dice pressed together make one outline, and the region nearest a die's area is
    then a mark on a die (a stress photo of two such pairs warned "dice smaller"): a die
    whose neighbour's centre lies nearer than TOUCHING sides is left out of the size."""
    side = 40.0
    centres = np.array([[100.0, 100.0], [100.0 + 1.05 * side, 100.0], [400.0, 300.0]])
    assert _touching(centres, 0, side) and _touching(centres, 1, side)
    assert not _touching(centres, 2, side)
    apart = np.array([[100.0, 100.0], [100.0 + (TOUCHING + 0.1) * side, 100.0]])
    assert not _touching(apart, 0, side)
    assert not _touching(centres[:1], 0, side)  # a lone die


def test_every_issue_has_a_screen_line() -> None:
    lines = [issue.line for issue in DomainIssue]
    assert len(set(lines)) == len(lines)
    assert all(len(line) <= 40 for line in lines)  # a fault line of a 128-px screen


def test_the_shipped_model_warns_like_a_calibrated_one(model: FaceModel) -> None:
    """The shipped synthetic model carries the domain its calibration recorded: the demo's
    own frames warn nothing, a camera of another shape warns, and config check can say how
    a camera fits it."""
    domain = model.domain
    assert domain is not None and domain.sizes == ((1280, 960),)
    expected_px = model.params.die_frac * (1280 * 960) ** 0.5
    assert domain.die_px[1] == pytest.approx(expected_px, rel=0.1)
    assert camera_fit(domain, model.params.die_frac, 1280, 960).endswith(": fine")
    frames = [Renderer(seed=seed).scene(count=1 + seed).image for seed in range(6)]
    assert [read_frame(frame, model).warnings for frame in frames] == [()] * len(frames)
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(model, q)
    for k in range(6):
        reader.feed(cv2.resize(frames[3], (1280, 720)), float(k))
    first = q.get_nowait()
    assert isinstance(first, OutOfDepth)
    assert first.lines == ("photo size not the calibrated one",)
    assert isinstance(q.get_nowait(), ThrowSettled)


def test_dice_thrown_twice_and_none_found_say_the_camera_moved(calibrated: FaceModel) -> None:
    """Review depth f01: a camera moved away made every die too small to be found; each
    throw read as an empty tray, and nothing was said while the table waited. Not said
    (review diff17 f01): an empty tray once (the dice taken up to throw again), a lamp or
    a hand resting over the tray (all of it changes), a throw nobody awaits (the roll
    over)."""
    empty = _frame(seed=9, count=0)

    def tiny(seed: int) -> NDArray[Any]:  # six dice seen from afar: too small to be found
        frame = empty.copy()
        for x, y in np.random.default_rng(seed).integers(200, 700, (6, 2)):
            frame[y : y + 14, x : x + 14] = (235, 235, 235)
            frame[y + 5 : y + 9, x + 5 : x + 9] = 20
        return frame

    far, farther, farthest = tiny(1), tiny(2), tiny(3)
    assert not any(read_frame(f, calibrated).dice for f in (far, farther, farthest))
    q: queue.Queue[Event] = queue.Queue()

    hand = empty.copy()
    hand[100:900, 300:1000] = 60  # the hand that throws (moving: one frame)

    def feed(reader: DiceReader, frames: list[NDArray[Any]]) -> list[type]:
        for n, frame in enumerate(frames):
            for k, shown in enumerate([hand] + [frame] * 6):  # the throw, then still
                reader.feed(shown, n * 10.0 + k)
        return [type(q.get_nowait()) for _ in range(q.qsize())]

    reader = DiceReader(calibrated, q, expect=6)
    assert feed(reader, [_frame(seed=2), empty, far]) == [ThrowSettled]  # once: taken up?
    assert feed(reader, [farther]) == [OutOfDepth]
    assert reader.warned[0].startswith("no die found in the tray after two throws where 6")
    assert feed(reader, [farthest]) == []  # said once
    assert feed(reader, [_frame(seed=2)]) == [BackInDepth, ThrowSettled]
    lamp = (empty * 0.7).astype(np.uint8)
    calm = DiceReader(calibrated, q, expect=6)
    assert feed(calm, [empty, far, lamp, farther, lamp]) == []
    shadow = empty.copy()
    shadow[:300, :400] = (shadow[:300, :400] * 0.6).astype(np.uint8)  # an arm's, in a corner
    thrown, source = empty.copy(), _frame(seed=2)  # six dice read on this very tray
    for die in read_frame(source, calibrated).dice:
        x, y, w, h = (int(v) for v in die.box)
        thrown[y : y + h, x : x + w] = source[y : y + h, x : x + w]
    picked = DiceReader(calibrated, q, expect=6)  # dice taken up, then a shadow (diff18 f01)
    assert feed(picked, [thrown, empty, shadow, empty]) == [ThrowSettled]  # and gone (diff19)
    unseen = DiceReader(calibrated, q, expect=6)  # thrown, taken up, thrown again: unseen
    assert feed(unseen, [empty, far, empty, farther]) == [OutOfDepth]
    over = DiceReader(calibrated, q, expect=6)
    over.roll_over()  # the table awaits no throw
    assert feed(over, [empty, far, farther, farthest]) == []
    over.new_attack(6)
    assert feed(over, [far, farther]) == [OutOfDepth]
