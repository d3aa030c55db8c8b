"""The companion modes by game kind (:class:`~controller.core.kinds.GameKind`).

Adding a mode: its module (a package of ``model`` and ``rules``, exposing ``MODE``),
its data file in ``data/``, its member of ``GameKind``, and its line here.
"""

from __future__ import annotations

from typing import Any

from controller.companion import challengers, dbs_tournament, dbz_tcg
from controller.companion.base import CompanionMode
from controller.core.errors import DataError, UnknownNameError
from controller.core.kinds import GameKind
from controller.core.quoting import short_repr

MODES: dict[GameKind, CompanionMode[Any, Any]] = {
    mode.kind: mode for mode in (dbs_tournament.MODE, dbz_tcg.MODE, challengers.MODE)
}


def get_mode(kind: GameKind | str) -> CompanionMode[Any, Any]:
    """The mode of ``kind`` (or of its name); UnknownNameError naming the known ones otherwise."""
    try:
        return MODES[GameKind(kind)]
    except (KeyError, ValueError):
        known = ", ".join(sorted(k.value for k in MODES))
        raise UnknownNameError(
            f"unknown companion mode {short_repr(str(kind))} (known: {known})"
        ) from None


def players_problem(kind: GameKind, count: int) -> str | None:
    """Why ``count`` players cannot play the companion mode ``kind`` (None: they can), as the
    mode's own new game says when the table starts one (the rules' player counts).

    Raises:
        UnknownNameError: no such companion mode.
    """
    try:
        get_mode(kind).new_game(tuple(f"Player {seat}" for seat in range(1, count + 1)))
    except DataError as exc:
        return "; ".join(p.message for p in exc.problems)
    return None
