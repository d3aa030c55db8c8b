"""Errors of the controls package; the root derives from TopTableError."""

from __future__ import annotations

from controller.core.errors import TopTableError


class ControlsError(TopTableError):
    """Root of the errors the controls package raises on purpose."""


class ControlUnavailableError(ControlsError, OSError):
    """A button, encoder, LED or buzzer could not be set up; the message names it and its pin."""
