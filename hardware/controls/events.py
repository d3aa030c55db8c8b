"""The events the controls post on the table's queue (frozen dataclasses)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from controller.core.events import Event


class ButtonName(StrEnum):
    """The table's buttons. Suggested use: confirm a read (long: end the turn), next
    choice / correct a die (hold to repeat), undo, menu (long: settings)."""

    CONFIRM = "confirm"
    NEXT = "next"
    UNDO = "undo"
    MENU = "menu"


@dataclass(frozen=True)
class ButtonPressed(Event):
    """A button was pressed: ``long`` if it was held past the long-press time."""

    button: ButtonName
    long: bool = False


@dataclass(frozen=True)
class ButtonRepeated(Event):
    """A repeating button is still held: the ``count``-th repeat since it went down."""

    button: ButtonName
    count: int


@dataclass(frozen=True)
class EncoderTurned(Event):
    """The rotary encoder moved one detent: ``steps`` is +1 clockwise, -1 counter-clockwise."""

    steps: int
