"""A hand on gpiozero's mock pins: pressing a button wired to one."""

from __future__ import annotations

from gpiozero.pins.mock import MockPin


def press(pin: MockPin, *, pull_up: bool = True) -> None:
    """Press and release the button on ``pin`` (with a pull-up, pressed is low)."""
    if pull_up:
        pin.drive_low()
        pin.drive_high()
    else:
        pin.drive_high()
        pin.drive_low()
