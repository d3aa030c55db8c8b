"""The companion modes by game kind (:class:`~controller.core.kinds.GameKind`).

Adding a mode: its module (a package of ``model`` and ``rules``, exposing ``MODE``),
its data file in ``data/``, its member of ``GameKind``, and its line here.
"""

from __future__ import annotations

from typing import Any

from controller.companion import challengers, dbs_tournament, dbz_tcg
from controller.companion.base import CompanionMode
from controller.core.errors import UnknownNameError
from controller.core.kinds import GameKind

MODES: dict[GameKind, CompanionMode[Any, Any]] = {
    mode.kind: mode for mode in (dbs_tournament.MODE, dbz_tcg.MODE, challengers.MODE)
}


def get_mode(kind: GameKind | str) -> CompanionMode[Any, Any]:
    """The mode of ``kind`` (or of its name); UnknownNameError naming the known ones otherwise."""
    try:
        return MODES[GameKind(kind)]
    except (KeyError, ValueError):
        known = ", ".join(sorted(k.value for k in MODES))
        raise UnknownNameError(f"unknown companion mode {str(kind)!r} (known: {known})") from None
