"""The drawing helpers every screen shares (``hardware.displays.draw``): bars, dice rows,
wrapping and squeezing, at their edges."""

from __future__ import annotations

import pytest
from PIL import Image, ImageDraw

from controller.core.symbols import Symbol
from hardware.displays.draw import DIE_BOX, bar, squeeze, wrap
from hardware.displays.font import SMALL
from hardware.displays.model import Clock, Prompt, PromptKind, TableView
from hardware.displays.screens import render

pytestmark = pytest.mark.timeout(30)


def _canvas(w: int = 40, h: int = 10) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    image = Image.new("1", (w, h))
    return image, ImageDraw.Draw(image)


def test_a_three_pixel_bar_shows_its_fill() -> None:
    """The thinnest bar with an inside (one row between its outlines) still shows how full
    it is: a full bar and an empty one must not look alike."""
    full, d = _canvas()
    bar(d, (0, 0, 30, 2), 10, 10)
    empty, d = _canvas()
    bar(d, (0, 0, 30, 2), 0, 10)
    assert full.getpixel((15, 1)) == 1 and empty.getpixel((15, 1)) == 0
    assert full.tobytes() != empty.tobytes()


def test_a_bar_with_no_maximum_is_an_empty_outline() -> None:
    """A maximum of 0 (nothing to measure) draws the outline, empty, and does not fail."""
    image, d = _canvas()
    bar(d, (0, 0, 30, 5), 3, 0)
    assert image.getpixel((0, 0)) == 1 and image.getpixel((15, 2)) == 0


def test_every_doubted_die_of_a_read_is_shown_inverted() -> None:
    """A read with three doubted dice marks all three (``die_index`` and ``marked``), not
    the first alone: the player checks each of them."""
    dice = (Symbol.KICK, Symbol.PUNCH, Symbol.SPHERE, Symbol.STAR, Symbol.TELEPORT)
    prompt = Prompt(PromptKind.CONFIRM_READ, "check", ("NO", "OK"), 1, dice, 0, marked=(2, 3))
    view = TableView(turn=1, seat=0, player="Ann", clock=Clock(1, 5), phase="roll", prompt=prompt)
    image = render(view, "prompt", (128, 64))
    y = 10 + 2  # under the title bar
    inverted = [image.getpixel((1 + i * (DIE_BOX + 1) + 1, y + 1)) for i in range(len(dice))]
    assert inverted == [1, 0, 1, 1, 0]


def test_a_line_that_fills_its_width_exactly_is_not_broken() -> None:
    """Words that fit to the last pixel stay on one line (one line less on a small screen)."""
    assert wrap("ab cd", SMALL.width("AB CD")) == ["ab cd"]
    assert len(wrap("ab cd", SMALL.width("AB CD") - 1)) == 2


def test_a_squeezed_line_keeps_half_its_width_for_its_first_words() -> None:
    """Cut between its first and last words, a line keeps its number at the end but at
    least half the line for the words it starts with (two words of the end only when they
    fit in half): "GO TO T. 12", not "G. ROCK 12"."""
    assert squeeze("go to the red rock 12", 60) == "GO TO T. 12"
