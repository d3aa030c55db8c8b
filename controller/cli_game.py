"""Subcommands of this area (being built; see the issue that owns it)."""

from __future__ import annotations

from typing import Any


def register(sub: Any) -> None:
    """Add this area's subcommands (none yet)."""
