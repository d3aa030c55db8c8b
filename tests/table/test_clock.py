"""The 45-minute game clock: starts on round 1, journalled (start, pauses, resumes) so a
restart has it back, paused, runs out; an old journal's .clock file is read once."""

from __future__ import annotations

from pathlib import Path

from controller.game.events import ClockPaused, ClockResumed, ClockStarted, GameEvent, Shuffled
from controller.game.state import Length, Phase
from controller.gamedata.cards import Deck
from controller.table.clock import GAME_SECONDS, ClockChange, GameClock
from tests.table.helpers import clock_state

_state = clock_state


class Journal(list[GameEvent]):
    """The clock's events, as the table journals them."""


class Wall:
    def __init__(self) -> None:
        self.now = 5000.0

    def __call__(self) -> float:
        return self.now


def test_an_untimed_game_or_round_zero_has_no_clock() -> None:
    clock = GameClock(Wall())
    assert clock.tick(_state(length=Length.ROUNDS5)) is ClockChange.NONE
    assert clock.tick(_state(round=0)) is ClockChange.NONE
    # a Story game is its 13 squares (B l.231): given 45 minutes, it runs no clock
    assert clock.tick(_state(story=True)) is ClockChange.NONE
    assert clock.start is None
    assert clock.seconds_left(_state()) is None


def test_the_clock_starts_on_round_one_and_is_journalled(tmp_path: Path) -> None:
    wall, journal = Wall(), Journal()
    clock = GameClock(wall, journal.append)
    state = _state()
    assert clock.tick(state) is ClockChange.SHOWN
    assert clock.seconds_left(state) == GAME_SECONDS
    assert journal == [ClockStarted(5000.0), ClockResumed(5000.0)]  # started, and a mark
    assert clock.tick(state) is ClockChange.NONE  # same second: nothing to redraw
    wall.now += 61
    assert clock.tick(state) is ClockChange.SHOWN
    again = GameClock(wall, journal.append)  # the table restarted
    again.restore(journal)
    again.tick(state)
    assert again.seconds_left(state) == GAME_SECONDS - 61
    # started once; a mark a minute on, and one at the restart's first reading
    assert journal == [ClockStarted(5000.0), *map(ClockResumed, (5000.0, 5061.0, 5061.0))]
    assert not list(tmp_path.iterdir())  # no side file


def test_a_pause_does_not_count_and_the_time_runs_out() -> None:
    wall, journal = Wall(), Journal()
    clock = GameClock(wall, journal.append)
    state = _state()
    clock.tick(state)
    wall.now += 100
    clock.pause()
    clock.pause()  # idempotent
    assert clock.paused
    wall.now += 500  # paused: the clock stands
    assert clock.tick(state) is ClockChange.NONE
    assert clock.seconds_left(state) == GAME_SECONDS - 100
    clock.resume()
    clock.resume()  # idempotent
    assert journal == [
        ClockStarted(5000.0),
        ClockResumed(5000.0),
        ClockPaused(5100.0),
        ClockResumed(5600.0),
    ]
    assert clock.start == 5500.0
    clock.tick(state)
    assert clock.seconds_left(state) == GAME_SECONDS - 100
    wall.now += GAME_SECONDS
    assert clock.tick(state) is ClockChange.TIME_UP
    assert clock.tick(_state(time_up=True)) is not ClockChange.TIME_UP  # once only
    assert clock.tick(_state(phase=Phase.OVER)) is not ClockChange.TIME_UP


def test_a_pause_standing_when_the_table_stopped_is_restored() -> None:
    wall, journal = Wall(), Journal()
    clock = GameClock(wall, journal.append)
    state = _state()
    clock.tick(state)
    wall.now += 300
    clock.pause()
    wall.now += 3600  # the table is off for an hour, paused
    again = GameClock(wall, journal.append)
    again.restore([Shuffled(Deck.ATTACK, ()), *journal])  # other events are passed over
    assert again.paused and again.tick(state) is ClockChange.NONE
    assert again.seconds_left(state) == GAME_SECONDS - 300
    wall.now += 60
    again.resume()
    again.tick(state)
    assert again.seconds_left(state) == GAME_SECONDS - 300
    assert journal[-1] == ClockResumed(5000.0 + 300 + 3600 + 60)


def test_an_old_journals_clock_file_is_read_once_and_journalled(tmp_path: Path) -> None:
    wall, journal = Wall(), Journal()
    file = tmp_path / "j.clock"
    file.write_text("4000.0\n", encoding="utf-8")
    clock = GameClock(wall, journal.append)
    clock.restore(journal)
    assert clock.adopt_file(file)
    assert journal == [ClockStarted(4000.0)]
    clock.tick(_state())
    assert clock.seconds_left(_state()) == GAME_SECONDS - 1000
    again = GameClock(wall, journal.append)
    again.restore(journal)
    assert not again.adopt_file(file)  # the journal has it now
    assert not GameClock(wall, journal.append).adopt_file(tmp_path / "none.clock")
    assert journal == [ClockStarted(4000.0), ClockResumed(5000.0)]  # and the first reading's mark


def test_time_is_up_when_the_45_minutes_are_and_not_a_second_before() -> None:
    """B l.249, A l.17: "after 45 minutes". The whole seconds left were counted down by
    truncation: "time up" came with up to a second still to play."""
    wall = Wall()
    clock = GameClock(wall)
    state = _state()
    clock.tick(state)
    wall.now += 0.4
    assert clock.tick(state) is ClockChange.NONE and clock.seconds_left(state) == GAME_SECONDS
    wall.now += GAME_SECONDS - 1.4  # 2699.0 s gone
    assert clock.tick(state) is ClockChange.SHOWN and clock.seconds_left(state) == 1
    wall.now += 0.99
    assert clock.tick(state) is ClockChange.NONE and clock.seconds_left(state) == 1
    wall.now += 0.01
    assert clock.tick(state) is ClockChange.TIME_UP and clock.seconds_left(state) == 0
