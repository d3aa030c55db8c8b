"""Every scenario in tests/data/companion/<mode>/*.json, played through the replay.

A scenario file holds ``"rule"`` (what it checks), ``"script"`` (the replay's input) and
either ``"expect"`` (fields of the output) or ``"error"`` (a piece of the error
that bad input must raise). In ``expect``, ``players`` maps a name to some of its numbers
and each ``refused`` item gives some of its keys (``rule`` and ``reason`` as substrings);
any other key must equal the output's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from controller.companion.replay import replay
from controller.core.errors import TopTableError

SCENARIOS = Path(__file__).resolve().parent.parent / "data" / "companion"
FILES = sorted(SCENARIOS.glob("*/*.json"))


def check(out: dict[str, Any], expect: dict[str, Any]) -> None:
    for key, want in expect.items():
        if key == "players":
            got = {p["name"]: p for p in out["players"]}
            for name, numbers in want.items():
                for field, value in numbers.items():
                    assert got[name][field] == value, f"{name}.{field}"
        elif key == "refused":
            got_refused = out["refused"]
            assert len(got_refused) == len(want), f"refused: {got_refused}"
            for got_item, want_item in zip(got_refused, want, strict=True):
                for field, value in want_item.items():
                    if field in ("rule", "reason"):
                        assert value in got_item[field], f"refused {got_item}"
                    else:
                        assert got_item[field] == value, f"refused {got_item}"
        else:
            assert key in out, f"no {key!r} in the output"
            assert out[key] == want, key


def test_there_are_scenarios_for_every_mode() -> None:
    modes = {f.parent.name for f in FILES}
    assert modes == {"dbs-tournament", "dbz-tcg", "challengers"}


@pytest.mark.parametrize("path", FILES, ids=[f"{f.parent.name}/{f.stem}" for f in FILES])
def test_scenario(path: Path) -> None:
    case = json.loads(path.read_text(encoding="utf-8"))
    assert set(case) <= {"rule", "script", "expect", "error"}, path
    assert "rule" in case
    mode = path.parent.name
    if "error" in case:
        with pytest.raises(TopTableError) as info:
            replay(mode, case["script"], source=path.name)
        message = str(info.value)
        assert case["error"] in message
        assert "\n" not in message
        return
    out = replay(mode, case["script"], source=path.name)
    json.dumps(out)  # the output is JSON
    check(out, case["expect"])
