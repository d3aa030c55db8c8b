"""``toptable demo --story``: Story mode through the real pipeline, repeatable per seed,
and killed with SIGKILL then resumed to the same end."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.bench.kill import journal_differs, kill_at, run_json, same, toptable
from controller.core.kinds import GameKind
from controller.demo.runner import DemoOptions, run_demo
from controller.game.session import TableGame

STORY_KEYS = ("winners", "victory_points", "points", "squares", "events", "throws", "mode")


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_story_demo_killed_with_sigkill_resumes_to_the_same_end(tmp_path: Path) -> None:
    reference = run_demo(DemoOptions(seed=6, fast=True, kind=GameKind.STORY, out=tmp_path / "ref"))
    ref = reference.to_json()
    assert ref["mode"] == "story" and ref["squares"] == 13 and ref["winners"]
    assert sum(ref["victory_points"].values()) == sum(ref["points"].values()) > 0
    assert reference.handler_failures == 0 and reference.silent_misreads == 0
    assert reference.throws == reference.throws_read > 0
    with TableGame.resume(reference.journal) as game:
        assert game.state.over and game.state.story is not None
    journal = tmp_path / "kill" / "journal.sqlite"
    cmd = toptable("demo", "--story", "--fast", "--json", "--seed", "6",
                   "--out", str(tmp_path / "kill"), "--journal", str(journal))  # fmt: skip
    kill = kill_at(cmd, journal, 37, timeout_s=300)  # in the middle of a square
    assert kill.mid_game, kill
    with TableGame.resume(journal) as game:
        assert not game.state.over
    resumed = run_json([*cmd, "--resume"], timeout_s=600)
    assert resumed["resumed"] is True and resumed["handler_failures"] == 0
    assert same(resumed, ref, STORY_KEYS) == []
    assert journal_differs(journal, Path(reference.journal)) is None  # the same game
