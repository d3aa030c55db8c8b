"""A refused action at a companion table goes back to whoever entered it, on that action."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.table.companion import CompanionTable
from hardware.controls.events import ButtonName

pytestmark = pytest.mark.timeout(60)


def test_a_refusal_goes_back_to_the_player_who_entered_it_not_the_turn_player(
    tmp_path: Path,
) -> None:
    with CompanionTable.new("dbs-tournament", ("Ann", "Bob"), tmp_path / "c.sqlite") as t:
        t.submit("Ann", {"do": "roll", "values": {"Ann": 6, "Bob": 2}})
        t.submit("Ann", {"do": "choose_first", "player": "Ann"})
        for _ in range(2):
            t.submit(None, {"do": "end_turn"})
        assert t.mode.whose_turn(t.state) == "Ann"
        t.press(ButtonName.MENU)  # Bob, out of turn, has something to enter
        assert t.view().player == "Bob"
        refusal = t.submit(
            "Bob", {"do": "counter_order", "kind": "play", "by": "Bob", "target": "Ann"}
        )
        assert refusal is not None and refusal.rule == "Skill Rules: Counter Windows"
        v = t.view()
        assert v.player == "Bob" and v.options[v.selected] == "counter_order"
