"""Playing a script of actions through a mode: the library behind ``companion MODE replay``.

A script is ``{"players": [names, clockwise], "actions": [{"do": ...}, ...], "data": {...}}``
(``data`` is optional and overrides the mode's data file). Bad input (an unknown action,
player or field, a wrong type) raises DataError before anything is played; an action the
rules forbid is listed in ``refused`` and the replay goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.companion.base import JsonDict, RuleViolationError, parse_action
from controller.companion.datafile import check_keys
from controller.companion.registry import get_mode
from controller.core.errors import DataError

SCRIPT_KEYS = {"players", "actions", "data"}


def replay(mode_name: str, script: Mapping[str, Any], source: str = "script") -> JsonDict:
    """Play ``script`` in the mode ``mode_name``; the final state as JSON plus ``refused``.

    ``refused`` lists ``{"index", "do", "reason", "rule"}`` for every action the rules
    refused. ``source`` names the script in error messages (e.g. its path).

    Raises:
        UnknownNameError: no such mode.
        DataError: the script (or its ``data``) is malformed: one line naming it.
    """
    mode = get_mode(mode_name)
    if not isinstance(script, Mapping):
        raise DataError.single(
            source, "", "", f"expected a JSON object, got {type(script).__name__}"
        )
    check_keys(script, SCRIPT_KEYS, source, "script")
    players = script.get("players")
    if not isinstance(players, list):
        raise DataError.single(
            source, "script", "players", f"expected a list of names, got {players!r}"
        )
    actions = script.get("actions", [])
    if not isinstance(actions, list):
        raise DataError.single(source, "script", "actions", f"expected a list, got {actions!r}")
    state = mode.new_game(players, script.get("data"), source)
    parsed = [
        parse_action(raw, mode.actions, players, source, f"actions[{i}]")
        for i, raw in enumerate(actions)
    ]
    refused: list[JsonDict] = []
    for i, action in enumerate(parsed):
        try:
            state = mode.apply(state, action)
        except RuleViolationError as exc:
            refused.append({"index": i, "do": action.DO, "reason": exc.reason, "rule": exc.rule})
    out = mode.to_json(state)
    out["refused"] = refused
    return out
