"""What the checks drop: untrusted fields a table could not have sent."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controller.game.state import GameState
from controller.publish.messages import encode, event_message, online_message, state_message
from controller.scoreboard.checks import MessageError, clean_event, clean_online, clean_state
from controller.scoreboard.model import Scoreboard


def _state(final: GameState, table: str = "t1", seq: int = 9, **change: Any) -> bytes:
    m = state_message(final, table, seq=seq, game_id="g1")
    m.update(change)
    return encode(m)


@pytest.mark.parametrize("instance", ["ab 12", "ab/12", "<b>", "ab-12", "ab12\n"])
def test_an_instance_that_is_not_letters_and_digits_is_refused(instance: str) -> None:
    """A table's instance is a few hex digits; the page lists a duplicated table's instances,
    so any other text there is refused with its message."""
    with pytest.raises(MessageError, match="instance"):
        clean_event("t1", event_message("t1", "g1", 1, "k", "{}", None, instance))
    with pytest.raises(MessageError, match="instance"):
        clean_online("t1", online_message("t1", True, instance))
    assert clean_event("t1", event_message("t1", "g1", 1, "k", "{}", None, "Ab12")).instance


def test_an_event_numbered_0_is_dropped_not_counted_as_a_duplicate(final: GameState) -> None:
    """A journal's rows are numbered from 1: an event of row 0 is no row of any game."""
    board = Scoreboard()
    board.handle("toptable/t1/state", _state(final, seq=0))
    board.handle("toptable/t1/events", event_message("t1", "g1", 0, "k", "{}", None))
    t = board.table("t1") or {}
    assert t["dropped"] == 1 and t["events"] is None
    board.handle("toptable/t1/events", event_message("t1", "g1", 1, "k", "{}", None))
    t = board.table("t1") or {}
    assert t["events"]["last_seq"] == 1 and t["events"]["duplicates"] == 0


def test_a_last_combat_with_damage_of_more_than_two_warriors_is_refused(
    final: GameState,
) -> None:
    """A combat is between two warriors: damage named for three is no table's combat."""
    combat = {"attacker": "Goku", "defender": "Frieza", "round": 2, "eliminated": [],
              "damage": {"Goku": 1, "Frieza": 2}}  # fmt: skip
    clean = clean_state("t1", _state(final, last_combat=combat))
    assert clean["last_combat"]["damage"] == {"Goku": 1, "Frieza": 2}
    combat["damage"] = {"Goku": 1, "Frieza": 2, "Cell": 3}
    with pytest.raises(MessageError, match="more than two warriors"):
        clean_state("t1", _state(final, last_combat=combat))


def test_two_older_tables_ann_are_two_people(final: GameState) -> None:
    """A table too old to send player ids: its players are people of that table only, so two
    tables' "Ann" are never summed together in the standings."""
    board = Scoreboard()
    for table in ("t1", "t2"):
        m = json.loads(_state(final, table))
        for team in m["teams"]:
            del team["player_id"]
        board.handle(f"toptable/{table}/state", json.dumps(m).encode())
    (dice,) = board.standings()
    assert sorted(r["player_id"] for r in dice["rows"]) == ["t1/Ann", "t1/Bob", "t2/Ann", "t2/Bob"]
    assert all(r["games"] == 1 and len(r["tables"]) == 1 for r in dice["rows"])
