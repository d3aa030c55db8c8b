"""Playing a script of actions through a mode: the library behind ``companion MODE replay``.

A script is ``{"players": [names, clockwise], "actions": [{"do": ...}, ...], "data": {...},
"rules_revision": N}`` (``data`` is optional and overrides the mode's data file;
``rules_revision``, optional, plays by an older revision of the mode's rules, as a journal
begun by it replays). Bad input (an unknown action,
player or field, a wrong type) raises DataError before anything is played, listing every
problem of the script at once; an action the rules forbid is listed in ``refused`` and
the replay goes on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from controller.companion.base import CompanionAction, JsonDict, RuleViolationError, read_action
from controller.companion.registry import get_mode
from controller.core.checked import Problems
from controller.core.errors import DataError
from controller.core.quoting import short_repr

SCRIPT_KEYS = {"players", "actions", "data", "rules_revision"}


def replay(mode_name: str, script: Mapping[str, Any], source: str = "script") -> JsonDict:
    """Play ``script`` in the mode ``mode_name``; the final state as JSON plus ``refused``.

    ``refused`` lists ``{"index", "do", "reason", "rule"}`` for every action the rules
    refused. ``source`` names the script in error messages (e.g. its path).

    Raises:
        UnknownNameError: no such mode.
        DataError: the script (or its ``data``) is malformed: every problem, each naming
            the script, the entry and the field.
    """
    mode = get_mode(mode_name)
    if not isinstance(script, Mapping):
        raise DataError.single(
            source, "", "", f"expected a JSON object, got {type(script).__name__}"
        )
    problems = Problems(source)
    problems.unknown_keys(script, SCRIPT_KEYS, "script")
    players = script.get("players")
    if not isinstance(players, list):
        problems.add("script", "players", f"expected a list of names, got {short_repr(players)}")
    actions = script.get("actions", [])
    if not isinstance(actions, list):
        problems.add("script", "actions", f"expected a list, got {short_repr(actions)}")
        actions = []
    state = None
    parsed: list[CompanionAction | None] = []
    if isinstance(players, list):
        try:
            state = mode.new_game(players, script.get("data"), source, script.get("rules_revision"))
        except DataError as exc:  # the players or the data: noted with the actions' problems
            problems.extend(exc.problems)
        parsed = [
            read_action(raw, mode.actions, players, problems, f"actions[{i}]")
            for i, raw in enumerate(actions)
        ]
    state = problems.checked(state)
    refused: list[JsonDict] = []
    for i, action in enumerate(problems.checked(a) for a in parsed):
        try:
            state = mode.apply(state, action)
        except RuleViolationError as exc:
            refused.append({"index": i, "do": action.DO, "reason": exc.reason, "rule": exc.rule})
    out = mode.to_json(state)
    out["refused"] = refused
    return out
