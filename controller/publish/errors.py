"""The root of the publisher's and the scoreboard's errors (its own module: every other
module of the package may raise one)."""

from __future__ import annotations

from controller.core.errors import TopTableError


class PublishError(TopTableError):
    """Root of the publisher's and scoreboard's errors."""


class LinkError(PublishError):
    """A table that must reach its broker (the demo) was refused or could not reach it."""
