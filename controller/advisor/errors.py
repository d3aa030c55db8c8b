"""Errors of the reroll advisor: one root, leaves that also derive from a builtin."""

from __future__ import annotations

from controller.core.errors import TopTableError


class AdvisorError(TopTableError):
    """Root of the errors the advisor raises on purpose."""


class CardDefenceSpecError(AdvisorError, ValueError):
    """A card-defence assumption that is neither ``none`` nor ``p=X`` with 0 <= X <= 1."""
