"""Errors of the board link."""

from __future__ import annotations

from controller.core.errors import TopTableError


class BoardError(TopTableError):
    """Root of the board link's errors."""


class ProtocolMismatchError(BoardError, ValueError):
    """The board speaks another protocol version than this host."""


class BoardPortError(BoardError, OSError):
    """The board's serial port cannot be opened or used; the message names the port."""


class SimulatorError(BoardError, RuntimeError):
    """The board simulator was used wrongly (closed, unplugged, bad sensor...)."""
