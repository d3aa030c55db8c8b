"""``toptable bench daemon``'s kill test: where the kills land and what its last line says."""

from __future__ import annotations

from controller.bench.resume import MODES, ModeResult, kill_rows, verdict
from controller.core.kinds import GameKind


def test_every_game_kind_is_killed_and_resumed() -> None:
    assert {m.name for m in MODES} == {k.value for k in GameKind}


def test_the_kills_are_spread_over_the_game_from_past_its_set_up_to_its_last_row_but_one() -> None:
    rows = kill_rows(10, 77, 20)
    assert len(rows) == 20 and rows == sorted(rows)
    assert rows[0] == 10 and rows[-1] == 76  # the game still runs at its last row but one
    assert kill_rows(1, 6, 3) == [1, 3, 5]
    assert kill_rows(10, 5, 2) == [10, 10]  # a game shorter than its set-up: killed at once


def test_the_last_line_passes_only_when_every_run_of_every_mode_reached_the_same_end() -> None:
    tournament, story = MODES[0], MODES[1]
    good = ModeResult(tournament, 20, 20, 0, ())
    assert verdict([good]) == "kill-and-resume: PASS (20/20 runs reach the same end: tournament)"
    ended_first = ModeResult(story, 20, 19, 1, ())  # one run ended before its kill
    assert verdict([good, ended_first]) == (
        "kill-and-resume: MISS (39/40 runs reach the same end; missed in story)"
    )
