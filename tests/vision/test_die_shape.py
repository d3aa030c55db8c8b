"""A die's outline: a hard shadow joined to a dark die does not make it look cocked; a
die leaning (two faces of its own hue) still does. A die's turn is read from its outline,
whatever its marks and body."""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.reading.detect import FACE_DIE_PX
from vision.reading.die_shape import _central_outline, orientation, outline_aspect
from vision.reading.features import stretch, unsquashed_angle
from vision.synth import strangers
from vision.synth.strangers import StrangerCamera, stranger

SIDE = round(FACE_DIE_PX)  # a die at the face scale, in pixels
GREEN_FELT = (70, 150, 60)  # BGR
WHITE_PIP = (235, 235, 235)


def _table(colour: tuple[int, int, int]) -> NDArray[np.uint8]:
    rng = np.random.default_rng(5)
    image = np.full((200, 200, 3), colour, np.float32) + rng.normal(0, 3, (200, 200, 3))
    return np.clip(image, 0, 255).astype(np.uint8)


def _square(image: NDArray[np.uint8], x0: int, y0: int, w: int, h: int,
            colour: tuple[int, int, int]) -> None:  # fmt: skip
    cv2.rectangle(image, (x0, y0), (x0 + w - 1, y0 + h - 1), colour, -1)


def _shadowed_die(die: tuple[int, int, int], shadow: float) -> NDArray[np.uint8]:
    """A flat die at (100, 100) on green felt, its hard shadow cast 0.6 of a side to the
    right, 0.45 of a side out (the felt darkened, its hue kept)."""
    image = _table(GREEN_FELT)
    x0, y0 = 100 - SIDE // 2, 100 - SIDE // 2
    cast = (slice(y0, y0 + SIDE), slice(x0 + 16, x0 + SIDE + 18))
    image[cast] = (image[cast].astype(np.float32) * (1 - shadow)).astype(np.uint8)
    _square(image, x0, y0, SIDE, SIDE, die)
    for px, py in ((-10, -10), (10, 10), (0, 0)):
        cv2.circle(image, (100 + px, 100 + py), 3, WHITE_PIP, -1)
    return image


def _gray_only(image: NDArray[np.uint8]) -> float:
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found = _central_outline(gray, 100.0, 100.0, SIDE, 2.2, 0.5, 2.2)
    assert found is not None
    return found[1]


@pytest.mark.parametrize("die", [(40, 20, 30), (90, 40, 70), (20, 20, 20)])
def test_a_hard_shadow_joined_to_a_dark_die_is_left_out(die: tuple[int, int, int]) -> None:
    image = _shadowed_die(die, 0.6)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert _gray_only(image) > 1.33, "the shadow joins the die's outline by brightness alone"
    assert outline_aspect(image, gray, 100.0, 100.0, SIDE) < 1.15


def test_a_leaning_die_of_its_own_hue_stays_long() -> None:
    """A dark purple die leaning: its top face and its side, the side in shade; both the
    die's hue, neither the felt's."""
    image = _table(GREEN_FELT)
    x0, y0 = 100 - SIDE // 2, 100 - SIDE // 2
    _square(image, x0, y0 - 8, SIDE, SIDE, (100, 45, 80))
    _square(image, x0, y0 + SIDE - 8, SIDE, 24, (60, 27, 48))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    aspect = outline_aspect(image, gray, 100.0, 100.0, SIDE)
    assert aspect > 1.5
    assert aspect == pytest.approx(_gray_only(image))


def test_a_die_of_the_table_hue_is_measured_by_brightness_alone() -> None:
    """A dark green die on green felt: its hue does not stand apart from the table's, so
    nothing is taken for a shadow (its outline is the one measured by brightness)."""
    image = _shadowed_die((25, 60, 20), 0.6)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert outline_aspect(image, gray, 100.0, 100.0, SIDE) == pytest.approx(_gray_only(image))


def test_a_gray_frame_is_measured_by_brightness_alone() -> None:
    image = _shadowed_die((40, 20, 30), 0.6)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    assert outline_aspect(gray, gray, 100.0, 100.0, SIDE) == pytest.approx(_gray_only(image))


def test_a_strangers_flat_dice_in_hard_shadows_are_not_cocked() -> None:
    """Dark pip dice and translucent ones on paper under a hard light (stranger 2913): by
    brightness alone a few flat dice merge with their shadows into long outlines; without
    the shadow none is longer than the floor of the cocked limit."""
    who = stranger(2913)
    camera = StrangerCamera(who, 2)
    scale = SIDE / who.die_px
    by_brightness = with_hue = dice = 0
    for _ in range(15):
        photo, labels = camera.photo()
        face = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
        for _, (x, y, w, h) in labels:
            cx, cy = (x + w / 2) * scale, (y + h / 2) * scale
            found = _central_outline(gray, cx, cy, SIDE, 2.2, 0.5, 2.2)
            by_brightness += found is not None and found[1] > 1.33
            with_hue += outline_aspect(face, gray, cx, cy, SIDE) > 1.33
            dice += 1
    assert dice > 300
    assert by_brightness >= 4
    assert with_hue == 0


def _four_fold(edges: list[NDArray[Any]]) -> float:
    """The mean direction (degrees, 0..90) of a square's edges, each a quarter turn apart."""
    four = [4.0 * math.atan2(e[1], e[0]) for e in edges]
    return math.degrees(math.atan2(sum(map(math.sin, four)), sum(map(math.cos, four))) / 4.0) % 90


def _turns_read(seed: int, photos: int, monkeypatch: pytest.MonkeyPatch) -> NDArray[np.float64]:
    """How far (degrees, 0..45) :func:`orientation` reads each die of a stranger's photos
    from the turn of its top face as the renderer projected it, at the face scale, at the
    die's own side there, both stretched back to square by the table's foreshortening (the
    spread of the top faces' corners across over along the image, as calibration's
    ``face_aspect`` measures it from the boxes)."""
    tops: list[NDArray[Any]] = []
    paste = StrangerCamera._paste

    def recorded(self: StrangerCamera, image: Any, die: Any, project: Any, *rest: Any) -> Any:
        tops.append(project(self._corners(die, 1.0)))
        return paste(self, image, die, project, *rest)

    monkeypatch.setattr(strangers.StrangerCamera, "_paste", recorded)
    who = stranger(seed)
    camera = StrangerCamera(who, 1)
    scale = SIDE / who.die_px
    shots = []
    for _ in range(photos):
        start = len(tops)
        photo, _ = camera.photo()
        face = cv2.resize(photo, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        shots.append((cv2.cvtColor(face, cv2.COLOR_BGR2GRAY), tops[start:]))
    aspect = float(np.median([np.sqrt(np.var(t[:, 0]) / np.var(t[:, 1])) for t in tops]))
    sx, sy = stretch(aspect)
    off: list[float] = []
    for gray, faces in shots:
        for top in faces:
            square = top * np.array([sx, sy])
            turn = _four_fold([square[1] - square[0], square[2] - square[1]])
            side = scale * math.sqrt(abs(cv2.contourArea(top.astype(np.float32))))
            cx, cy = top.mean(0) * scale
            read = unsquashed_angle(orientation(gray, cx, cy, side, aspect), aspect)
            d = (read - turn) % 90.0
            off.append(min(d, 90.0 - d))
    return np.array(off)


@pytest.mark.parametrize("seed", [2808, 2802, 2816])
def test_a_dies_turn_is_read_from_its_outline_not_its_marks(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Marbled pip dice on felt (2808), dark pip dice on felt (2802) and engraved pips on
    carpet seen 35 degrees off straight down (2816): read from every edge near the die,
    the pips' round edges, the marbling and the carpet turned a sixth to two thirds of the
    dice 20 degrees or more; on the outline's ring few are."""
    off = _turns_read(seed, 16, monkeypatch)
    assert len(off) > 60
    assert np.median(off) < 4.0
    assert np.mean(off > 20.0) < 0.08
