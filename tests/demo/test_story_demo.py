"""``toptable demo --story``: Story mode through the real pipeline, repeatable per seed,
and killed with SIGKILL then resumed to the same end."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from controller.demo.runner import DemoOptions, run_demo
from controller.game.journal import Journal
from controller.game.session import TableGame

STORY_KEYS = ("winners", "victory_points", "points", "squares", "events", "throws", "mode")


def _events(path: Path) -> int:
    try:
        with Journal.open(path) as journal:
            return len(journal.events())
    except Exception:
        return 0


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_story_demo_killed_with_sigkill_resumes_to_the_same_end(tmp_path: Path) -> None:
    reference = run_demo(DemoOptions(seed=6, fast=True, story=True, out=tmp_path / "ref"))
    ref = reference.to_json()
    assert ref["mode"] == "story" and ref["squares"] == 13 and ref["winners"]
    assert sum(ref["victory_points"].values()) == sum(ref["points"].values()) > 0
    assert reference.handler_failures == 0 and reference.silent_misreads == 0
    assert reference.throws == reference.throws_read > 0
    with TableGame.resume(reference.journal) as game:
        assert game.state.over and game.state.story is not None
    journal = tmp_path / "kill" / "journal.sqlite"
    cmd = [sys.executable, "-m", "controller.cli.main", "demo", "--story", "--fast", "--json",
           "--seed", "6", "--out", str(tmp_path / "kill"), "--journal", str(journal)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and proc.poll() is None:  # kill in the middle of a square
        if journal.exists() and _events(journal) >= 37:
            break
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = subprocess.run(
        [*cmd, "--resume"], capture_output=True, text=True, timeout=600, check=True
    )
    resumed = json.loads(done.stdout.strip().splitlines()[-1])
    assert resumed["resumed"] is True and resumed["handler_failures"] == 0
    assert {k: resumed[k] for k in STORY_KEYS} == {k: ref[k] for k in STORY_KEYS}
