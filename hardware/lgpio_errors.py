"""lgpio's exception class, where lgpio is installed: what gpiozero 2.0.1 (the buttons,
LEDs and buzzer, under ``GPIOZERO_PIN_FACTORY=lgpio``) and rpi-lgpio 0.6 (an SPI screen's
DC and RESET pins) let through from it."""

from __future__ import annotations


def lgpio_error() -> type[Exception] | None:
    """lgpio's only exception class (lgpio 0.2.2.0: ``error``, a plain Exception, not an
    OSError), or None when lgpio is not installed."""
    try:
        import lgpio
    except ImportError:
        return None
    error: type[Exception] = lgpio.error
    return error
