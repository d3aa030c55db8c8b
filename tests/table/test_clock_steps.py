"""The 45-minute game clock under a Pi's wall clock: NTP steps it by hours mid-game (not
counted: the game's time runs on the monotonic clock), and a restart finds it behind (the
last saved time) or days ahead (a gap not counted). A replay of the journal agrees."""

from __future__ import annotations

import time
from typing import Any

from controller.game.events import ClockPaused, ClockResumed, ClockStarted, GameEvent
from controller.game.export import export_text
from controller.game.state import GameState, Phase
from controller.table.clock import GAME_SECONDS, ClockChange, GameClock
from tests.table.helpers import clock_state

_state = clock_state


class Pi:
    """A Pi's two clocks: the wall clock (stepped by NTP, set at boot) and the
    monotonic one (steady, from 0 at each boot)."""

    def __init__(self, wall: float = 1_700_000_000.0) -> None:
        self.wall_now, self.mono_now = wall, 50.0

    def wall(self) -> float:
        return self.wall_now

    def mono(self) -> float:
        return self.mono_now

    def play(self, seconds: float, clock: GameClock, state: GameState) -> None:
        """``seconds`` of play, the loop ticking the clock every 15 s."""
        for _ in range(int(seconds // 15)):
            self.wall_now += 15
            self.mono_now += 15
            clock.tick(state)

    def reboot(self, wall: float) -> None:
        self.wall_now, self.mono_now = wall, 12.0


def _clock(pi: Pi, journal: list[GameEvent]) -> GameClock:
    return GameClock(pi.wall, journal.append, monotonic=pi.mono)


def _restarted(pi: Pi, journal: list[GameEvent]) -> GameClock:
    again = _clock(pi, journal)
    again.restore(list(journal))
    return again


def test_a_step_forward_mid_game_does_not_end_it() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(600, clock, state)
    pi.wall_now += 3 * 3600  # NTP steps the clock 3 h forward
    assert clock.tick(state) is not ClockChange.TIME_UP
    assert clock.seconds_left(state) == GAME_SECONDS - 600
    pi.play(60, clock, state)
    assert clock.seconds_left(state) == GAME_SECONDS - 660
    # the journal does not count the step either: a restart at once has the same time
    assert _restarted(pi, journal).seconds_left(state) == GAME_SECONDS - 660


def test_a_step_back_mid_game_does_not_add_time() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(1200, clock, state)
    pi.wall_now -= 2 * 3600  # a clock that ran ahead is stepped back 2 h
    clock.tick(state)
    assert clock.seconds_left(state) == GAME_SECONDS - 1200
    pi.play(300, clock, state)
    assert clock.seconds_left(state) == GAME_SECONDS - 1500
    again = _restarted(pi, journal)
    again.tick(state)
    assert again.seconds_left(state) == GAME_SECONDS - 1500
    pi.play(GAME_SECONDS - 1500 - 15, clock, state)
    pi.wall_now += 15
    pi.mono_now += 15
    assert clock.tick(state) is ClockChange.TIME_UP  # the time still runs out, on time


def test_a_step_during_a_pause_changes_nothing() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(1200, clock, state)
    clock.pause()
    pi.wall_now += 7200 + 60  # NTP steps +2 h during a minute's pause
    pi.mono_now += 60
    clock.resume()
    clock.tick(state)
    assert clock.seconds_left(state) == GAME_SECONDS - 1200
    pi.wall_now -= 7200  # then back
    clock.tick(state)
    assert clock.seconds_left(state) == GAME_SECONDS - 1200
    assert _restarted(pi, journal).seconds_left(state) == GAME_SECONDS - 1200


def test_a_restart_with_the_clock_behind_gives_no_more_than_was_left() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(600, clock, state)  # a power cut after 10 minutes' play
    stopped = pi.wall_now
    pi.reboot(stopped - 3600)  # the last time saved, an hour before the cut
    again = _restarted(pi, journal)
    again.tick(state)
    assert again.seconds_left(state) == GAME_SECONDS - 600
    assert journal[-2:] == [ClockPaused(stopped), ClockResumed(stopped - 3600)]
    pi.play(120, again, state)
    pi.wall_now += 3600  # NTP steps the clock to the right time
    again.tick(state)
    assert again.seconds_left(state) == GAME_SECONDS - 720
    assert _restarted(pi, journal).seconds_left(state) == GAME_SECONDS - 720


def test_play_after_the_last_mark_is_given_back_at_most_once_a_mark() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(645, clock, state)  # the last mark at 10 min; the cut 45 s later
    pi.reboot(pi.wall_now - 3600)
    again = _restarted(pi, journal)
    again.tick(state)
    left = again.seconds_left(state)
    assert left is not None and GAME_SECONDS - 645 <= left <= GAME_SECONDS - 645 + 60


def test_the_time_the_table_was_down_counts() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(600, clock, state)
    pi.reboot(pi.wall_now + 120)  # two minutes down: the players went on
    again = _restarted(pi, journal)
    again.tick(state)
    assert again.seconds_left(state) == GAME_SECONDS - 720
    pi.play(60, again, state)
    assert _restarted(pi, journal).seconds_left(state) == GAME_SECONDS - 780


def test_a_gap_longer_than_a_game_is_the_clocks_error() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(600, clock, state)
    stopped = pi.wall_now
    pi.reboot(stopped + 3 * 86400)  # days ahead at boot, before NTP fixes it
    again = _restarted(pi, journal)
    assert again.tick(state) is not ClockChange.TIME_UP
    assert again.seconds_left(state) == GAME_SECONDS - 600
    assert journal[-2:] == [ClockPaused(stopped), ClockResumed(stopped + 3 * 86400)]
    pi.play(60, again, state)
    pi.wall_now -= 3 * 86400  # NTP steps it back
    again.tick(state)
    assert _restarted(pi, journal).seconds_left(state) == GAME_SECONDS - 660


def test_an_older_journal_without_marks_is_replayed_as_before() -> None:
    # the start only, then a restart 50 minutes later: the time ran out, as it did
    pi, state = Pi(5000.0 + 3000), _state()
    clock = _clock(pi, [])
    clock.restore([ClockStarted(5000.0)])
    assert clock.tick(state) is ClockChange.TIME_UP
    # a pause and a resume as the first release journalled them
    old = [ClockStarted(5000.0), ClockPaused(5100.0), ClockResumed(5600.0)]
    pi.reboot(5700.0)
    again = _clock(pi, [])
    again.restore(old)
    again.tick(state)
    assert (again.seconds_left(state), again.start) == (GAME_SECONDS - 200, 5500.0)
    pi.reboot(4000.0)  # the clock behind: nothing added
    behind = _clock(pi, [])
    behind.restore(old)
    behind.tick(state)
    assert behind.seconds_left(state) == GAME_SECONDS - 100


def test_the_time_running_out_is_marked_and_stays_out() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(GAME_SECONDS - 15, clock, state)
    pi.wall_now += 20
    pi.mono_now += 20
    assert clock.tick(state) is ClockChange.TIME_UP
    assert journal[-1] == ClockResumed(pi.wall_now)  # the last mark
    marks = len(journal)
    pi.play(600, clock, _state(time_up=True))
    assert len(journal) == marks  # no mark once the time is out
    pi.reboot(pi.wall_now + 2 * 86400)
    again = _restarted(pi, journal)
    again.tick(_state(time_up=True))
    assert again.seconds_left(state) == 0


def test_the_system_clocks_by_default_an_injected_wall_alone_for_both() -> None:
    assert GameClock().monotonic is time.monotonic
    assert GameClock().wall is time.time
    pi = Pi()
    assert GameClock(pi.wall).monotonic == pi.wall  # a test's or the demo's fast clock


def test_a_resume_with_the_clock_behind_adds_nothing_to_the_journals_time() -> None:
    # started at 5000, marked running at 5600; the Pi boots on a time saved an hour before
    journal: list[GameEvent] = [ClockStarted(5000.0), ClockResumed(5600.0)]
    clock = GameClock(lambda: 5600.0 - 3600, journal.append)
    clock.restore(list(journal))
    state = _state()
    clock.tick(state)
    assert clock.seconds_left(state) == GAME_SECONDS - 600


def test_time_run_out_while_the_table_was_down_never_comes_back() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(GAME_SECONDS - 30, clock, state)
    pi.reboot(pi.wall_now + 40)  # a crash, restarted 40 s later: the time ran out meanwhile
    again = _restarted(pi, journal)
    assert again.tick(state) is ClockChange.TIME_UP
    state = _state(time_up=True)
    pi.play(120, again, state)
    pi.wall_now += 3 * 3600  # then NTP steps the clock
    pi.play(60, again, state)
    later = _restarted(pi, journal)  # and the service restarts once more
    later.tick(state)
    assert later.seconds_left(state) == 0


def test_an_ended_game_journals_no_more_marks() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(600, clock, state)
    kept = list(journal)
    pi.play(1800, clock, _state(phase=Phase.OVER))  # the screens go on showing the result
    assert journal == kept


def test_a_restart_in_the_first_minute_with_the_clock_hours_ahead_keeps_the_game() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(45, clock, state)  # before the first minute's mark
    pi.reboot(pi.wall_now + 2 * 3600)  # a crash; the clock comes back 2 h ahead
    again = _restarted(pi, journal)
    assert again.tick(state) is not ClockChange.TIME_UP
    assert again.seconds_left(state) == GAME_SECONDS  # as at the last mark, the start's


def test_the_text_log_leaves_the_marks_out_and_keeps_pauses() -> None:
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(300, clock, state)
    clock.pause()
    pi.wall_now += 60
    clock.resume()
    pi.play(120, clock, state)
    assert sum(isinstance(e, ClockResumed) for e in journal) > 3  # marks, and the resume
    entries = [
        {"n": n, "round": 1, "player": "", "event": e.to_dict(), "changes": []}
        for n, e in enumerate(journal, 1)
    ]
    log: dict[str, Any] = {"game_id": "g", "players": ["A", "B"], "length": "minutes45"}
    log["variants"] = []
    log |= {"events": entries, "winners": [], "over": False, "warriors_left": 8, "combats": 0}
    lines = [line.split(maxsplit=2)[2] for line in export_text(log).splitlines()[1:-1]]
    assert [line.split()[0] for line in lines] == ["clock_started", "clock_paused", "clock_resumed"]


def test_a_restart_with_the_clock_a_little_behind_gives_no_time_back() -> None:
    """A Pi that saved its time shortly before a power cut boots seconds behind: the
    time left is what was left at the cut, not more."""
    pi, journal, state = Pi(), list[GameEvent](), _state()
    clock = _clock(pi, journal)
    clock.tick(state)
    pi.play(600, clock, state)  # the cut just after the 10-minute mark
    stopped = pi.wall_now
    pi.reboot(stopped - 30)  # the last time saved, 30 s before the cut
    again = _restarted(pi, journal)
    again.tick(state)
    assert again.seconds_left(state) == GAME_SECONDS - 600
    assert journal[-2:] == [ClockPaused(stopped), ClockResumed(stopped - 30)]
    assert _restarted(pi, journal).seconds_left(state) == GAME_SECONDS - 600


def test_an_older_journals_pause_after_a_step_back_counts_no_negative_time() -> None:
    """An older journal whose wall clock was stepped back between the start and a pause
    is replayed with no time given back for the step: the time ran for 0 s, not less."""
    pi, state = Pi(6000.0), _state()
    clock = _clock(pi, [])
    clock.restore([ClockStarted(5000.0), ClockPaused(4900.0)])  # stepped back 100 s
    assert clock.paused
    assert clock.seconds_left(state) == GAME_SECONDS
