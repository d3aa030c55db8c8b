"""Every view the table builds, written as a state file, loads in ``toptable screens``
(:func:`hardware.displays.view_json.load_view`) as the same view."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from controller.core.kinds import GameKind
from controller.game import engine
from controller.game.events import GameEvent
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from controller.table.view import Overlay, build_view
from hardware.displays.model import TableView
from hardware.displays.view_json import EXAMPLE_STATE, load_view, view_to_dict
from tests.game.helpers import demo_data, tied_game


def _views(config: GameConfig, seed: int) -> list[TableView]:
    """The view of every state of a whole bot game, as the table builds it."""
    data = demo_data()
    state = engine.new_game(config, data)
    views = [build_view(state)]

    def submit(event: GameEvent) -> GameState:
        nonlocal state
        state = engine.apply(state, event)
        views.append(build_view(state))
        return state

    play_game(config, data, seed, submit=submit)
    return views


def _written_and_loaded(view: TableView, path: Path) -> TableView:
    path.write_text(json.dumps(view_to_dict(view)), encoding="utf-8")
    return load_view(path)


def test_the_example_state_is_written_as_it_is_read(tmp_path: Path) -> None:
    view = load_view(EXAMPLE_STATE)
    assert _written_and_loaded(view, tmp_path / "state.json") == view


@pytest.mark.timeout(120)
@pytest.mark.parametrize(
    ("kind", "players"), [(GameKind.STORY, 2), (GameKind.STORY, 4), (GameKind.TOURNAMENT, 3)]
)
def test_every_view_of_a_game_loads_as_the_screens_read_it(
    tmp_path: Path, kind: GameKind, players: int
) -> None:
    # a Story seat has no team (warriors_total 0), nor a seat before the teams are drawn:
    # the screens draw them, and their loader refused them
    config = GameConfig(("Ann", "Bob", "Cid", "Dee")[:players], kind=kind)
    views = _views(config, seed=players)
    assert any(s.warriors_total == 0 for v in views for s in v.seats)
    path = tmp_path / "state.json"
    for view in dict.fromkeys(views):  # each distinct view once
        assert _written_and_loaded(view, path) == view


@pytest.mark.timeout(120)
def test_the_extra_rounds_of_a_tie_load_as_the_screens_read_them(tmp_path: Path) -> None:
    # a tie of three or more plays a round more (round 6 of 5): the loader refused it
    config = GameConfig(tuple(f"P{i + 1}" for i in range(6)), Length.ROUNDS5)
    for seed in range(40):  # the first games that tie (seed 0 does, in this engine)
        views = _views(config, seed)
        past = [v for v in views if v.clock.rounds and v.clock.round_no > v.clock.rounds]
        if past:
            break
    assert past, "no game of 40 tied three or more players"
    path = tmp_path / "state.json"
    for view in dict.fromkeys(past):
        assert view.clock.rounds is not None
        assert view.clock.extra_round == view.clock.round_no - view.clock.rounds
        assert _written_and_loaded(view, path) == view


@pytest.mark.timeout(120)
def test_a_45_minute_games_extra_round_loads_as_the_screens_read_it(tmp_path: Path) -> None:
    # a tie when time ran out plays a round more: its view said only round 9 at 0:00
    states = tied_game(Length.MINUTES45).states
    views = [build_view(s, Overlay(seconds_left=0 if s.time_up else 60)) for s in states]
    extra = [v for s, v in zip(states, views, strict=True) if s.extra_rounds]
    assert extra and {v.clock.rounds for v in extra} == {None}
    # extra round 1, then 2 (the first such game found needs two)
    most = max(s.extra_rounds for s in states)
    assert extra[0].clock.extra_round == 1
    assert {v.clock.extra_round for v in extra} == set(range(1, most + 1))
    assert all(v.clock.extra_round is None for v in views[: views.index(extra[0])])
    path = tmp_path / "state.json"
    for view in dict.fromkeys(extra):
        assert _written_and_loaded(view, path) == view
    older = view_to_dict(extra[0])
    del older["clock"]["extra_round"]  # a state file from before the field
    path.write_text(json.dumps(older), encoding="utf-8")
    assert load_view(path) == dataclasses.replace(
        extra[0], clock=dataclasses.replace(extra[0].clock, extra_round=None)
    )


def test_a_fusion_set_up_on_the_board_counts_two_of_its_teams_total() -> None:
    """A table started from a position with Kefla on the board: a fusion counts two
    warriors (A §11), and the seat's screen never says more are left than it had."""
    state = engine.arrange(
        GameConfig(("A", "B")),
        demo_data(),
        pieces=[("Kefla", 0, 16), ("Jiren", 0, 3), ("Hit", 1, 18)],
    )
    seats = build_view(state).seats
    assert [(s.warriors_left, s.warriors_total) for s in seats] == [(3, 3), (1, 1)]
