"""lgpio's exception class, where lgpio is installed: what gpiozero 2.0.1 (the buttons,
LEDs and buzzer, under ``GPIOZERO_PIN_FACTORY=lgpio``) and rpi-lgpio 0.6 (an SPI screen's
DC and RESET pins) let through from it."""

from __future__ import annotations


def lgpio_error() -> type[Exception] | None:
    """lgpio's only exception class (lgpio 0.2.2.0: ``error``, a plain Exception, not an
    OSError), or None when lgpio is not installed or cannot start (importing it makes its
    notification pipe, ``lgpio.py`` ``_callback_thread``: in a working folder the user may
    not write, an OSError; see :func:`pipe_problem`)."""
    try:
        import lgpio
    except (ImportError, OSError):
        return None
    error: type[Exception] = lgpio.error
    return error


def pipe_problem(exc: BaseException) -> str | None:
    """What to do when ``exc`` is lgpio failing to make its notification pipe
    (``.lgd-nfy<N>``, in ``LG_WD`` else the working folder), None for another error."""
    if not isinstance(exc, OSError) or ".lgd-nfy" not in str(exc.filename or ""):
        return None
    return (
        f"lgpio cannot make its notification pipe ({exc.strerror}: {exc.filename}): start from "
        "a folder this user may write, or set LG_WD to one (the service sets /run/toptable)"
    )
