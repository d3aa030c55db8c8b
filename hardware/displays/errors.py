"""Errors of the displays package; the root derives from TopTableError."""

from __future__ import annotations

from controller.core.errors import TopTableError


class DisplayError(TopTableError):
    """Root of the errors the displays package raises on purpose."""


class UnknownScreenError(DisplayError, KeyError):
    """A screen name that no screen has."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class DisplayUnavailableError(DisplayError, OSError):
    """A display could not be opened or written: not on the bus, no permission, pin in use.

    The message names the display, its bus and address (or SPI port and pins).
    """


class DisplayConfigError(DisplayError, ValueError):
    """Display settings this package cannot use (an unknown driver or interface)."""
