"""The screens: pure functions that draw a :class:`TableView` on a 1-bit canvas.

Each screen is ``draw(canvas, view, size)``: it reads only its arguments and
draws only on the canvas, so the same code feeds a luma device
(:func:`show`), a PNG (:func:`render`) and the change-only pusher. Every screen
has a 128x64 layout and a compact one for 128x32 (any height under 64). All text
uses our bitmap font (8 px capitals; the clock 16 px).
"""

from __future__ import annotations

from typing import Any

from PIL import Image, ImageDraw

from hardware.displays.draw import Screen, Size
from hardware.displays.errors import UnknownScreenError
from hardware.displays.model import TableView
from hardware.displays.renderers import (
    combat_screen,
    errors_screen,
    options_screen,
    prompt_screen,
    seat_screen,
    teams_screen,
    turn_screen,
)

SCREENS: dict[str, Screen] = {
    "turn": turn_screen,
    "combat": combat_screen,
    "options": options_screen,
    "teams": teams_screen,
    "prompt": prompt_screen,
    "errors": errors_screen,
}
"""The screens by name; ``seat:N`` (see :func:`screen_by_name`) adds one per seat."""


def screen_by_name(name: str) -> Screen:
    """The screen called ``name``: one of :data:`SCREENS` or ``seat:N``.

    Raises:
        UnknownScreenError: no such screen; the message lists the names.
    """
    if name in SCREENS:
        return SCREENS[name]
    prefix, _, num = name.partition(":")
    if prefix == "seat" and num.isdigit():
        return seat_screen(int(num))
    raise UnknownScreenError(
        f"unknown screen {name!r}: expected one of {', '.join(SCREENS)}, seat:N"
    )


def screen_names(view: TableView) -> list[str]:
    """Every screen name for ``view``: the fixed ones, then ``seat:N`` for each seat."""
    return [*SCREENS, *(f"seat:{i}" for i in range(len(view.seats)))]


def pick_screen(view: TableView, preferred: str, alerts: bool = True) -> str:
    """What a display set to ``preferred`` shows now.

    With ``alerts``, an open prompt takes the display, then active faults (they stay
    until cleared); a combat screen with no combat falls back to ``turn``. The prompt
    comes first: the buttons answer it, and entering by hand is what a lost camera or
    board leaves (the prompt screen marks that a fault is on, and says it where there
    is room).
    """
    if alerts and view.prompt is not None:
        return "prompt"
    if alerts and view.faults:
        return "errors"
    if preferred in ("combat", "options") and view.combat is None:
        return "turn"
    return preferred


def render(view: TableView, name: str, size: Size = (128, 64)) -> Image.Image:
    """Draw screen ``name`` into a new 1-bit image of ``size``.

    Raises:
        UnknownScreenError: no such screen.
    """
    screen = screen_by_name(name)
    image = Image.new("1", size)
    screen(ImageDraw.Draw(image), view, size)
    return image


def show(device: Any, view: TableView, name: str) -> None:
    """Draw screen ``name`` on a luma ``device`` through ``luma.core.render.canvas``.

    Raises:
        UnknownScreenError: no such screen.
    """
    from luma.core.render import canvas

    screen = screen_by_name(name)
    with canvas(device) as draw:
        screen(draw, view, device.size)
