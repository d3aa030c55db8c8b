"""Helpers for the rules tests: the scenario data set and subset matching."""

from __future__ import annotations

import json
from typing import Any

from controller.gamedata.warriors import load_warriors
from controller.rules.warriors import Roster
from tests import paths

SCENARIOS = paths.SCENARIOS / "rules"


def scenario_roster() -> Roster:
    """The test warriors: the rulebook table completed by tests/data/scenarios/rules/warriors.toml."""
    return load_warriors(SCENARIOS / "warriors.toml").roster


def load_cases(name: str) -> list[dict[str, Any]]:
    """The cases of one scenario file."""
    data = json.loads((SCENARIOS / name).read_text(encoding="utf-8"))
    cases: list[dict[str, Any]] = data["cases"]
    return cases


def mismatch(expected: Any, actual: Any, path: str = "") -> str | None:
    """Where ``actual`` fails to contain ``expected`` (dicts: subset; lists: same length, in order)."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict):
            return f"{path or 'result'}: expected an object, got {actual!r}"
        for key, value in expected.items():
            if key not in actual:
                return f"{path}.{key}: missing"
            found = mismatch(value, actual[key], f"{path}.{key}")
            if found:
                return found
        return None
    if isinstance(expected, list):
        if not isinstance(actual, list) or len(actual) != len(expected):
            return f"{path}: expected {len(expected)} items, got {actual!r}"
        for i, (e, a) in enumerate(zip(expected, actual, strict=True)):
            found = mismatch(e, a, f"{path}[{i}]")
            if found:
                return found
        return None
    if expected != actual:
        return f"{path}: expected {expected!r}, got {actual!r}"
    return None
