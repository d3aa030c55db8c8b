"""The scoreboard's store: untrusted messages, dedupe and order, standings."""

from __future__ import annotations

import json
import logging
from typing import Any

import pytest

from controller.core.game_limits import MAX_EXTRA_ROUNDS
from controller.game.state import GameState, Length
from controller.publish.messages import encode, event_message, online_message, state_message
from controller.scoreboard.checks import MAX_MESSAGE_BYTES, MessageError, clean_state
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.standings import Ranking, standings
from controller.scoreboard.streams import EventLog
from tests.game.helpers import tied_game


def _state_bytes(state: GameState, table: str = "t1", seq: int = 9, **change: Any) -> bytes:
    m = state_message(state, table, seq=seq)
    m.update(change)
    return encode(m)


def test_a_good_state_is_copied_field_by_field(final: GameState) -> None:
    m = json.loads(_state_bytes(final))
    m["extra"] = "<script>"
    m["teams"][0]["warriors"][0]["evil"] = {"x": 1}
    clean = clean_state("t1", json.dumps(m).encode())
    assert "extra" not in clean and "evil" not in clean["teams"][0]["warriors"][0]
    assert clean["winners"] == m["winners"] and clean["seq"] == 9


def test_a_ties_extra_round_is_copied_and_a_state_without_it_still_loads() -> None:
    tie = tied_game()
    extra = next(s for s in tie.states if s.round == 6)
    clean = clean_state("t1", _state_bytes(extra))
    assert (clean["round"], clean["rounds"]) == (6, 5)
    assert clean["extra_round"] == {"number": 1, "of": MAX_EXTRA_ROUNDS}
    older = json.loads(_state_bytes(extra))
    del older["extra_round"]  # a table from before the field
    assert clean_state("t1", json.dumps(older).encode())["extra_round"] is None


def test_a_45_minute_games_extra_round_is_copied_with_no_rounds() -> None:
    # a tie when time ran out: the page said "Round 9", not the tie's extra round
    extra = next(s for s in tied_game(Length.MINUTES45).states if s.extra_rounds)
    clean = clean_state("t1", _state_bytes(extra))
    assert clean["rounds"] is None and clean["clock"]["time_up"]
    assert clean["extra_round"] == {"number": 1, "of": MAX_EXTRA_ROUNDS}


@pytest.mark.parametrize(
    ("payload", "why"),
    [
        (b"\xff\xfe", "not UTF-8 JSON"),
        (b"{not json", "not UTF-8 JSON"),
        (b"[]", "expected an object"),
        (b'{"schema": 2}', "schema"),
        (b" " * (MAX_MESSAGE_BYTES + 1), "bytes, more than"),
    ],
)
def test_malformed_states_are_refused(payload: bytes, why: str) -> None:
    with pytest.raises(MessageError, match=why):
        clean_state("t1", payload)


@pytest.mark.parametrize(
    "change",
    [
        {"table_id": "t2"},
        {"round": "3"},
        {"winners": [1]},
        {"teams": [{"player": "x" * 200}]},
        {"teams": "Ann"},
        {"seq": -1},
        {"turn": {"seat": True, "player": "Ann"}},
        {"extra_round": 1},
        {"extra_round": {"number": 4, "of": 3}},
        {"extra_round": {"number": 0, "of": 3}},
        {"extra_round": {"number": 1}},
        {"extra_round": {"number": 1, "of": 10**6}},
    ],
)
def test_bad_fields_are_refused(final: GameState, change: dict[str, Any]) -> None:
    with pytest.raises(MessageError):
        clean_state("t1", _state_bytes(final, **change))


def test_a_bad_message_is_dropped_with_a_warning_and_the_board_goes_on(
    final: GameState, caplog: pytest.LogCaptureFixture
) -> None:
    board = Scoreboard()
    board.handle("toptable/t1/state", _state_bytes(final))
    with caplog.at_level(logging.WARNING):
        board.handle("toptable/t1/state", b"{garbage")
        board.handle("toptable/t1/state", b"x" * (MAX_MESSAGE_BYTES + 10))
        board.handle("toptable/../state", b"{}")
        board.handle("toptable/t1/whatever", b"{}")
    assert "dropped a message from 't1'" in caplog.text
    t = board.table("t1")
    assert t is not None and t["seq"] == 9 and t["dropped"] >= 1
    board.handle("toptable/t1/state", _state_bytes(final, seq=10))
    assert board.table("t1")["seq"] == 10  # type: ignore[index]


def test_an_older_state_does_not_replace_a_newer_one(final: GameState) -> None:
    board = Scoreboard()
    board.handle("toptable/t1/state", _state_bytes(final, seq=20))
    board.handle("toptable/t1/state", _state_bytes(final, seq=12))
    assert board.table("t1")["seq"] == 20  # type: ignore[index]


def test_events_deduplicated_and_put_back_in_order() -> None:
    log = EventLog("g")
    got: list[int] = []
    for seq in (1, 2, 2, 4, 5, 3, 1, 6):
        got += log.receive(seq, "k")
    assert got == [1, 2, 3, 4, 5, 6]
    assert log.duplicates == 2 and log.reordered == 2 and log.missing() == []
    log.receive(9, "k")
    assert log.missing() == [7, 8]


def test_events_through_the_board(final: GameState) -> None:
    board = Scoreboard()
    board.keep_delivered = True
    board.handle("toptable/t1/state", _state_bytes(final, seq=0, game_id="g"))
    for seq in (1, 3, 2, 2):
        board.handle("toptable/t1/events", event_message("t1", "g", seq, "k", "{}", None))
    assert [s for _, _, s in board.delivered] == [1, 2, 3]
    ev = board.table("t1")["events"]  # type: ignore[index]
    assert ev["last_seq"] == 3 and ev["duplicates"] == 1 and ev["missing"] == []
    board.handle("toptable/t1/online", online_message("t1", False, "ab12"))
    assert board.table("t1")["online"] is False  # type: ignore[index]


def _game(
    table: str, gid: str, over: bool, winners: list[str], teams: list[tuple[str, int, int]]
) -> dict[str, Any]:
    return {
        "table_id": table, "game_id": gid, "over": over, "winners": winners,
        "teams": [{"player": p, "player_id": p.lower(), "warriors_left": w, "endurance_left": e}
                  for p, w, e in teams],
    }  # fmt: skip


def test_standings_order_won_then_warriors_then_endurance() -> None:
    (dice,) = standings(
        [
            _game("t1", "a", True, ["Ann"], [("Ann", 3, 20), ("Bob", 0, 0)]),
            _game("t2", "b", True, ["Cleo"], [("Cleo", 2, 9), ("Dev", 0, 0)]),
            _game("t3", "c", False, [], [("Eli", 5, 30), ("Fay", 5, 30)]),
            _game("t1", "d", False, ["Bob"], [("Ann", 1, 4), ("Bob", 2, 8)]),  # not over: no win
        ]
    )
    assert dice["group"] == "dice" and dice["dice"]
    rows = dice["rows"]
    assert [(r["rank"], r["player"]) for r in rows] == [
        (1, "Ann"), (2, "Cleo"), (3, "Eli"), (3, "Fay"), (5, "Bob"), (6, "Dev"),
    ]  # fmt: skip
    ann = rows[0]
    assert (ann["games"], ann["won"], ann["warriors_left"], ann["endurance_left"]) == (2, 1, 4, 24)
    assert ann["tables"] == ["t1"]


def test_a_flood_of_tables_is_capped(monkeypatch: pytest.MonkeyPatch, final: GameState) -> None:
    import controller.scoreboard.model as model

    monkeypatch.setattr(model, "MAX_TABLES", 2)
    board = Scoreboard()
    for i in range(5):
        board.handle(f"toptable/t{i}/state", _state_bytes(final, f"t{i}"))
    assert [t["table_id"] for t in board.tables()] == ["t0", "t1"]


def test_a_player_renamed_during_the_evening_shows_under_the_latest_name() -> None:
    """One person (one player_id) who changed their name is one row, named as in the newest game."""
    first = _game("t1", "a", True, ["Ann"], [("Ann", 3, 20), ("Bob", 0, 0)])
    later = _game("t2", "b", True, ["Annie"], [("Annie", 2, 9), ("Cleo", 0, 0)])
    later["teams"][0]["player_id"] = "ann"  # the organiser fixed the spelling at table t2
    (dice,) = standings([first, later])
    ann = next(r for r in dice["rows"] if r["player_id"] == "ann")
    assert (ann["player"], ann["games"], ann["won"]) == ("Annie", 2, 2)
    assert ann["tables"] == ["t1", "t2"]


def test_the_games_remembered_are_the_ones_told_last(
    monkeypatch: pytest.MonkeyPatch, final: GameState
) -> None:
    """Past the games kept for the standings, the one dropped is the one not heard of for
    longest: a long game still being played is never dropped for a short one begun later."""
    import controller.scoreboard.model as model

    monkeypatch.setattr(model, "MAX_GAMES", 2)
    board = Scoreboard()
    board.handle("toptable/t1/state", _state_bytes(final, "t1", seq=1, over=False))
    board.handle("toptable/t2/state", _state_bytes(final, "t2", seq=1))
    board.handle("toptable/t1/state", _state_bytes(final, "t1", seq=2, over=False))
    board.handle("toptable/t3/state", _state_bytes(final, "t3", seq=1))
    (dice,) = board.standings()
    assert {t for r in dice["rows"] for t in r["tables"]} == {"t1", "t3"}


def test_one_ranking_of_every_game_shows_dice_figures_when_a_dice_game_is_in_it() -> None:
    """``--rank all``: a ranking holding a dice game has warriors and endurance to show,
    whichever kind of game came last."""
    dice = _game("t1", "a", True, ["Ann"], [("Ann", 3, 20), ("Bob", 0, 0)])
    companion = {"table_id": "t2", "game_id": "b", "kind": "companion", "mode": "dbz-tcg",
                 "over": False, "winners": [],
                 "players": [{"player": "Cleo", "player_id": "cleo"}]}  # fmt: skip
    (everything,) = standings([dice, companion], Ranking.ALL)
    assert everything["group"] == "all" and everything["dice"] is True
