"""The companion modes by name (the names the command line and the table use)."""

from __future__ import annotations

from typing import Any

from controller.companion import challengers, dbs_tournament, dbz_tcg
from controller.companion.base import CompanionMode
from controller.core.errors import UnknownNameError

MODES: dict[str, CompanionMode[Any, Any]] = {
    dbs_tournament.MODE.name: dbs_tournament.MODE,
    dbz_tcg.MODE.name: dbz_tcg.MODE,
    challengers.MODE.name: challengers.MODE,
}


def get_mode(name: str) -> CompanionMode[Any, Any]:
    """The mode called ``name``; UnknownNameError naming the known ones otherwise."""
    try:
        return MODES[name]
    except KeyError:
        known = ", ".join(sorted(MODES))
        raise UnknownNameError(f"unknown companion mode {name!r} (known: {known})") from None
