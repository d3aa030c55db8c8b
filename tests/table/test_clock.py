"""The 45-minute game clock: starts on round 1, kept across restarts, paused, runs out."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from controller.game.state import GameState, Length, Phase
from controller.table.clock import GAME_SECONDS, ClockChange, GameClock


@dataclass
class _Config:
    length: Length


@dataclass
class _State:
    """The few fields of a game state the clock reads."""

    config: _Config
    round: int = 1
    time_up: bool = False
    phase: Phase = Phase.MOVE


def _state(**kw: Any) -> GameState:
    length = kw.pop("length", Length.MINUTES45)
    return cast(GameState, _State(_Config(length), **kw))


class Wall:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


def test_an_untimed_game_or_round_zero_has_no_clock() -> None:
    clock = GameClock(Wall())
    assert clock.tick(_state(length=Length.ROUNDS5)) is ClockChange.NONE
    assert clock.tick(_state(round=0)) is ClockChange.NONE
    assert clock.start is None
    assert clock.seconds_left(_state()) is None


def test_the_clock_starts_on_round_one_and_is_kept_for_a_restart(tmp_path: Path) -> None:
    wall, file = Wall(), tmp_path / "j.clock"
    clock = GameClock(wall, file)
    state = _state()
    assert clock.tick(state) is ClockChange.SHOWN
    assert clock.seconds_left(state) == GAME_SECONDS
    assert float(file.read_text()) == 5000.0
    assert clock.tick(state) is ClockChange.NONE  # same second: nothing to redraw
    wall.now += 61
    assert clock.tick(state) is ClockChange.SHOWN
    again = GameClock(wall, file)  # the table restarted
    again.tick(state)
    assert again.seconds_left(state) == GAME_SECONDS - 61


def test_a_pause_does_not_count_and_the_time_runs_out(tmp_path: Path) -> None:
    wall, file = Wall(), tmp_path / "j.clock"
    clock = GameClock(wall, file)
    state = _state()
    clock.tick(state)
    wall.now += 100
    clock.pause()
    assert clock.paused
    wall.now += 500  # paused: the clock stands
    assert clock.tick(state) is ClockChange.NONE
    clock.resume()
    clock.resume()  # idempotent
    assert float(file.read_text()) == 5500.0
    clock.tick(state)
    assert clock.seconds_left(state) == GAME_SECONDS - 100
    wall.now += GAME_SECONDS
    assert clock.tick(state) is ClockChange.TIME_UP
    assert clock.tick(_state(time_up=True)) is not ClockChange.TIME_UP  # once only
    assert clock.tick(_state(phase=Phase.OVER)) is not ClockChange.TIME_UP
