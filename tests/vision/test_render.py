"""vision/synth/scenes.Renderer draws a frame piece by piece (a band of rows at a time, the
dice in flight on a layer the size of their reach) to keep the demo's memory down: the
pieces must add up to the whole-frame picture, with no seam where they meet."""

from __future__ import annotations

import copy

import cv2
import numpy as np
import pytest

from controller.core.symbols import Symbol
from vision.synth.die import PlacedDie, paste_die
from vision.synth.scenes import Renderer, Settings

PLAIN = {
    "gain": 1.0, "grad": 0.0, "grad_angle": 0.0, "cast_b": 1.0, "cast_r": 1.0,
    "blur": 0.0, "noise": 0.0, "shadow": 0.3, "shadow_dx": 4.0, "shadow_dy": 4.0, "jpeg": 0.0,
}  # fmt: skip
"""A look that leaves the drawn frame as it is (no light, cast, blur or noise)."""


def _renderer() -> Renderer:
    return Renderer(Settings(width=640, height=480), seed=5)


@pytest.mark.parametrize("sigma", [0.7, 1.6])
def test_the_blur_band_by_band_is_the_whole_frame_blurred(sigma: float) -> None:
    renderer = _renderer()
    dice = renderer.place(list(renderer.random_faces(8)))
    drawn = renderer.render(dice, look=PLAIN)
    blurred = renderer.render(dice, look=PLAIN | {"blur": sigma})
    whole = cv2.GaussianBlur(drawn.astype(np.float32), (0, 0), sigma)
    expected = np.clip(whole, 0, 255).astype(np.uint8)
    assert np.array_equal(blurred, expected)
    assert not np.array_equal(blurred, drawn)


@pytest.mark.parametrize(
    "centres",
    [
        [(320.0, 240.0)],
        [(100.0, 90.0), (540.0, 400.0)],  # far apart: the layer spans most of the frame
        [(8.0, 470.0)],  # at the frame's corner: the layer is cut by the frame
    ],
)
def test_dice_in_flight_blend_as_on_a_whole_frame_layer(
    centres: list[tuple[float, float]],
) -> None:
    renderer = _renderer()
    still = renderer.place([Symbol.STAR, Symbol.SPHERE])
    moving = [PlacedDie(Symbol.KICK, centre, 30.0, renderer.side) for centre in centres]
    look = PLAIN
    axis_draw = copy.deepcopy(renderer.rng)  # the renderer's draw of the blur's direction
    frame = renderer.render(still, moving=moving, look=look)

    canvas = renderer.render(still, look=look)  # the still dice alone
    layer = canvas.copy()
    off = (round(look["shadow_dy"]), round(look["shadow_dx"]))
    for die in moving:
        paste_die(layer, die, look["shadow"] * 0.5, off)
    k = max(3, int(renderer.side * 0.35)) | 1
    layer = cv2.blur(layer, (k, 1) if axis_draw.random() < 0.5 else (1, k))
    mask = np.zeros(canvas.shape[:2], np.uint8)
    for die in moving:
        centre = (round(die.center[0]), round(die.center[1]))
        cv2.circle(mask, centre, int(die.side * 0.75) + k, (255,), -1)
    alpha = cv2.blur(mask, (15, 15)).astype(np.float32)[..., None] / 255.0
    expected = (canvas * (1.0 - alpha) + layer * alpha).astype(np.uint8)

    assert np.array_equal(frame, expected)
    assert not np.array_equal(frame, canvas)
