"""The messages a table sends, built from a played game (pure: no broker)."""

from __future__ import annotations

import json
from typing import Any

from controller.core.game_limits import MAX_EXTRA_ROUNDS
from controller.core.kinds import GameKind
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from controller.publish.messages import (
    SCHEMA,
    CombatTracker,
    encode,
    event_message,
    events_topic,
    online_topic,
    state_message,
    state_topic,
)
from tests.game.helpers import tied_game


def _states(game_data: Any, seed: int = 2, kind: GameKind = GameKind.TOURNAMENT) -> list[GameState]:
    states: list[GameState] = []
    from controller.game import engine

    config = GameConfig(("Ann", "Bob"), Length.ROUNDS5, game_id="g1", kind=kind)
    state = engine.new_game(config, game_data)

    def submit(event: Any) -> GameState:
        nonlocal state
        state = engine.apply(state, event)
        states.append(state)
        return state

    play_game(config, game_data, seed, None, submit)
    return states


def test_a_story_game_publishes_itself_as_story_with_its_squares(game_data: Any) -> None:
    states = _states(game_data, kind=GameKind.STORY)
    squares = len(game_data.story.squares)
    for state in (states[0], states[-1]):
        m = state_message(state, "t1", seq=1, seconds_left=None)
        assert m["mode"] == "story"  # was "tournament"
        assert m["rounds"] == squares == 13  # was the Tournament's 10
        assert 1 <= m["round"] <= m["rounds"]
        assert m["extra_round"] is None  # its last square is no tie's extra round


def test_topics() -> None:
    assert state_topic("t1") == "toptable/t1/state"
    assert events_topic("t1") == "toptable/t1/events"
    assert online_topic("t1") == "toptable/t1/online"


def test_state_message_of_a_finished_game(game_data: Any) -> None:
    final = _states(game_data)[-1]
    m = state_message(final, "t1", seq=99, seconds_left=None, sent_at=1.5)
    assert json.loads(encode(m)) == m  # JSON-able as it is
    assert m["schema"] == SCHEMA and m["table_id"] == "t1" and m["game_id"] == "g1"
    assert m["seq"] == 99 and m["mode"] == "tournament" and m["length"] == "rounds5"
    assert m["over"] is True and m["phase"] == "over" and m["turn"] is None
    assert m["winners"] == [final.players[w] for w in final.winners]
    assert [t["player"] for t in m["teams"]] == ["Ann", "Bob"]
    for seat, team in enumerate(m["teams"]):
        assert team["seat"] == seat  # the page marks the turn's team by it (tests3 x00)
        assert team["warriors_left"] == final.count(seat)
        standing = [w for w in team["warriors"] if w["on_board"]]
        assert team["endurance_left"] == sum(w["endurance"] for w in standing)
        for w in team["warriors"]:
            assert 0 <= w["endurance"] <= w["max_endurance"]
            assert w["eliminated"] == final.pieces[w["name"]].eliminated
    names = {e["name"] for e in m["eliminated"]}
    assert names == {p.name for p in final.pieces.values() if p.eliminated}


def test_state_message_mid_game_has_a_turn(game_data: Any) -> None:
    states = _states(game_data)
    mid = next(s for s in states if s.round >= 2)
    m = state_message(mid, "t1", seq=10, seconds_left=125)
    assert m["turn"] == {"seat": mid.seat, "player": mid.players[mid.seat]}
    assert m["clock"] == {"seconds_left": 125, "time_up": False}
    assert m["round"] == mid.round and m["rounds"] == 5


def test_a_ties_extra_rounds_are_published_as_such() -> None:
    # a tie of three or more after round 5 plays on: the message said only round 6 of 5
    states = tied_game(Length.ROUNDS5, MAX_EXTRA_ROUNDS).states
    said = {(s.round, json.dumps(state_message(s, "t1", seq=1)["extra_round"])) for s in states}
    extra = {r: {"number": r - 5, "of": MAX_EXTRA_ROUNDS} if r > 5 else None for r in range(9)}
    assert said == {(r, json.dumps(e)) for r, e in extra.items()}
    last = state_message(states[-1], "t1", seq=1)
    assert (last["round"], last["rounds"], last["over"]) == (8, 5, True)


def test_a_45_minute_games_tie_when_time_ran_out_is_published_as_its_extra_round() -> None:
    # its extra round has no last round to count past: the message said only "round": 9
    timed = tied_game(Length.MINUTES45).states
    said = [state_message(s, "t1", seq=1) for s in timed]
    first = next(i for i, s in enumerate(timed) if s.extra_rounds)
    assert timed[first].time_up and said[first]["rounds"] is None
    assert said[first]["round"] == said[first - 1]["round"] + 1  # the round after time ran out
    assert all(m["extra_round"] is None for m in said[:first])
    before = timed[first - 1].round  # each round after it is the next extra round
    assert said[first]["extra_round"] == {"number": 1, "of": MAX_EXTRA_ROUNDS}
    assert all(
        m["extra_round"] == {"number": s.round - before, "of": MAX_EXTRA_ROUNDS}
        for s, m in zip(timed[first:], said[first:], strict=True)
    )
    assert said[-1]["over"] and said[-1]["clock"]["time_up"]


def test_warriors_not_placed_yet_are_no_endurance_left(game_data: Any) -> None:
    """Review tests3 p01: only the warriors on the board count (placing, some are not)."""
    placing = next(s for s in _states(game_data) if 0 < len(s.occ) < len(s.pieces))
    for team in state_message(placing, "t1", seq=1)["teams"]:
        standing = [w["endurance"] for w in team["warriors"] if w["on_board"]]
        assert team["endurance_left"] == sum(standing)
        assert len(standing) < len(team["warriors"]) or not team["warriors"]


def test_a_combat_summary_counts_that_combats_damage_alone(game_data: Any) -> None:
    """Review tests3 p02: the damage a warrior had taken before the combat was counted in
    it (the scoreboard's "last combat")."""
    tracker, start, checked = CombatTracker(), dict[str, int](), 0
    for state in _states(game_data):
        before = tracker.last
        summary = tracker.observe(state)
        if state.combat is not None and not start:
            start = {n: p.damage for n, p in state.pieces.items()}
        if summary is not None and summary is not before:
            for name, taken in summary.to_json()["damage"].items():
                assert taken == max(0, state.pieces[name].damage - start[name]), name
            checked += any(start[n] for n in (summary.attacker, summary.defender))
            start = {n: p.damage for n, p in state.pieces.items()} if state.combat else {}
    assert checked  # a warrior already hurt fought again


def test_the_combat_tracker_remembers_the_last_combat(game_data: Any) -> None:
    tracker = CombatTracker()
    summaries = [tracker.observe(s) for s in _states(game_data)]
    last = summaries[-1]
    assert last is not None
    j = last.to_json()
    assert set(j["damage"]) == {last.attacker, last.defender}
    assert all(v >= 0 for v in j["damage"].values())
    assert any(s is not None and s.eliminated for s in summaries)


def test_event_message_splices_the_stored_payload() -> None:
    payload = json.dumps({"kind": "dice", "dice": ["a", "b"]}, separators=(",", ":"))
    m = json.loads(event_message("t1", "g1", 7, "dice", payload, None, "ab12"))
    assert m == {"schema": SCHEMA, "table_id": "t1", "instance": "ab12", "game_id": "g1",
                 "seq": 7, "kind": "dice", "undoes": None,
                 "event": {"kind": "dice", "dice": ["a", "b"]}}  # fmt: skip
    undo = json.loads(event_message("t1", "g1", 8, "undo", "{}", 5))
    assert undo["undoes"] == 5 and undo["event"] == {}
