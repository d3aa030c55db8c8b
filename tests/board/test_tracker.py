"""Move tracking from lifts and places to named token moves."""

from __future__ import annotations

import logging

import pytest

from controller.board.tracker import (
    IllegalPlacement,
    MoveQuestion,
    MoveTracker,
    TokenLifted,
    TokenMoved,
    TokenReturned,
    UnexpectedChange,
)
from controller.core.errors import IllegalActionError, UnknownNameError
from controller.gamedata.board import load_board

LEGAL = {(3, 4), (3, 5), (3, 9), (20, 9), (20, 21)}


def tracker(**kw: object) -> MoveTracker:
    return MoveTracker({"Goku": 3, "Vegeta": 20}, LEGAL, settle_s=0.4, **kw)  # type: ignore[arg-type]


def test_lift_and_place_become_a_named_move_once_settled() -> None:
    t = tracker()
    assert t.on_change(3, False, 0.0) == [TokenLifted("Goku", 3)]
    assert t.on_change(9, True, 0.5) == []
    assert t.tick(0.8) == []
    assert t.tick(0.9) == [TokenMoved("Goku", 3, 9)]
    assert str(TokenMoved("Goku", 3, 9)) == "Goku moves 3→9"
    assert t.positions() == {"Goku": 9, "Vegeta": 20}


def test_a_slide_across_spaces_is_one_move() -> None:
    t = tracker()
    t.on_change(3, False, 0.0)
    t.on_change(4, True, 0.1)  # passes over 4 ...
    t.on_change(4, False, 0.2)
    t.on_change(6, True, 0.3)  # ... and 6 (not legal: no complaint while sliding)
    t.on_change(6, False, 0.35)
    assert t.on_change(5, True, 0.4) == []
    assert t.tick(1.0) == [TokenMoved("Goku", 3, 5)]


def test_lifted_and_put_back_is_no_move() -> None:
    t = tracker()
    t.on_change(3, False, 0.0)
    assert t.on_change(3, True, 0.2) == [TokenReturned("Goku", 3)]
    assert t.tick(5.0) == []
    assert t.positions()["Goku"] == 3


def test_a_place_on_an_illegal_space_is_reported_with_the_legal_ones_then_corrected() -> None:
    t = tracker()
    t.on_change(3, False, 0.0)
    t.on_change(7, True, 0.1)
    out = t.tick(1.0)
    assert out == [IllegalPlacement("Goku", 3, 7, (4, 5, 9))]
    assert str(out[0]) == "Goku cannot move 3→7; legal: 4, 5, 9"
    assert t.tick(2.0) == []  # reported once
    t.on_change(7, False, 3.0)  # the player corrects it
    t.on_change(4, True, 3.1)
    assert t.tick(4.0) == [TokenMoved("Goku", 3, 4)]


def test_two_tokens_lifted_and_a_place_both_could_reach_asks() -> None:
    t = tracker()
    t.on_change(3, False, 0.0)
    t.on_change(20, False, 0.1)
    out = t.on_change(9, True, 0.2)
    assert out == [MoveQuestion(9, (TokenMoved("Goku", 3, 9), TokenMoved("Vegeta", 20, 9)))]
    assert "1) Goku moves 3→9; 2) Vegeta moves 20→9" in str(out[0])
    with pytest.raises(UnknownNameError, match=r"choice 5 is not one of 0\.\.1"):
        t.answer(5)
    assert t.answer(1) == [TokenMoved("Vegeta", 20, 9)]
    assert t.in_the_air() == {"Goku": 3}
    assert t.on_change(3, True, 1.0) == [TokenReturned("Goku", 3)]
    with pytest.raises(IllegalActionError, match="no question"):
        t.answer(0)


def test_two_tokens_lifted_and_only_one_may_go_there() -> None:
    t = tracker()
    t.on_change(3, False, 0.0)
    t.on_change(20, False, 0.1)
    t.on_change(21, True, 0.2)
    assert t.tick(1.0) == [TokenMoved("Vegeta", 20, 21)]
    assert t.in_the_air() == {"Goku": 3}


def test_unexplained_changes_are_reported_and_counted() -> None:
    t = tracker()
    out = t.on_change(30, True, 0.0)
    assert isinstance(out[0], UnexpectedChange) and "none was lifted" in out[0].message
    assert t.on_change(30, False, 0.1) == []  # the stray goes away again
    out = t.on_change(31, False, 0.2)
    assert isinstance(out[0], UnexpectedChange) and "none was known" in out[0].message
    assert t.unexpected == 2
    t.on_change(30, True, 0.3)
    t.assign("Vegeta", 30)
    assert t.positions()["Vegeta"] == 30
    with pytest.raises(UnknownNameError, match="no token named 'Frieza'"):
        t.assign("Frieza", 1)


def test_legal_moves_may_be_a_callable_asked_at_each_decision() -> None:
    legal: set[tuple[int, int]] = set()
    t = MoveTracker({"Goku": 3}, lambda: legal, settle_s=0.0)
    t.on_change(3, False, 0.0)
    legal.add((3, 8))
    t.on_change(8, True, 0.1)
    assert t.tick(0.1) == [TokenMoved("Goku", 3, 8)]


def test_sensor_beyond_the_layout_is_logged_and_ignored(demo_data, caplog) -> None:  # type: ignore[no-untyped-def]
    layout = load_board(demo_data / "board.toml")
    t = MoveTracker({"Goku": 3}, LEGAL, layout=layout)
    with caplog.at_level(logging.WARNING):
        assert t.on_sensor(100, True, 0.0) == []
    assert t.unknown_sensors == 1
    assert "sensor 100 changed" in caplog.text and "0..41" in caplog.text
    assert t.on_sensor(3, False, 0.1) == [TokenLifted("Goku", 3)]


def test_two_tokens_on_one_space_is_refused() -> None:
    with pytest.raises(IllegalActionError, match="both start on space 1"):
        MoveTracker({"A": 1, "B": 1}, set())


def test_a_pick_past_the_last_candidate_is_refused_by_name() -> None:
    """The screen's pick numbers the candidates; one past the last is no candidate."""
    t = tracker()
    t.on_change(3, False, 0.0)
    t.on_change(20, False, 0.1)
    t.on_change(9, True, 0.2)
    with pytest.raises(UnknownNameError, match=r"choice 2 is not one of 0\.\.1"):
        t.answer(2)
    assert t.answer(0) == [TokenMoved("Goku", 3, 9)]


def test_a_move_that_has_rested_is_finished_before_the_next_change_without_a_tick() -> None:
    """A change that comes before the loop's next tick does not take the rested move back."""
    t = tracker()
    t.on_change(3, False, 0.0)
    t.on_change(9, True, 0.1)
    assert t.on_change(20, False, 1.0) == [TokenMoved("Goku", 3, 9), TokenLifted("Vegeta", 20)]
    assert t.on_change(9, False, 1.1) == [TokenLifted("Goku", 9)]  # a new lift, not a slide
    assert t.in_the_air() == {"Vegeta": 20, "Goku": 9}


def test_a_token_assigned_to_a_strays_space_leaves_it_unexplained_once_moved_on() -> None:
    """Once the players said which token stood on a stray's space, the stray is gone: after
    that token moved on, a token leaving the space again is reported."""
    t = MoveTracker({"Goku": 3, "Vegeta": 20}, {*LEGAL, (30, 21)}, settle_s=0.4)
    out = t.on_change(30, True, 0.1)  # a lift the board missed: a token from nowhere ...
    assert isinstance(out[0], UnexpectedChange)
    t.assign("Vegeta", 30)  # ... which the players say is Vegeta
    assert t.on_change(30, False, 1.0) == [TokenLifted("Vegeta", 30)]
    t.on_change(21, True, 1.1)
    assert t.tick(2.0) == [TokenMoved("Vegeta", 30, 21)]
    out = t.on_change(30, False, 3.0)
    assert len(out) == 1 and isinstance(out[0], UnexpectedChange) and out[0].space == 30


def test_a_stray_that_came_and_went_leaves_nothing_behind() -> None:
    """A stray token taken away again is forgotten: a later change there is reported."""
    t = tracker()
    assert isinstance(t.on_change(30, True, 0.0)[0], UnexpectedChange)
    assert t.on_change(30, False, 0.1) == []  # the stray goes away again: nothing to say
    out = t.on_change(30, False, 0.2)  # a token leaving where none is: say so
    assert (
        len(out) == 1
        and isinstance(out[0], UnexpectedChange)
        and "none was known" in out[0].message
    )
    assert t.unexpected == 2
