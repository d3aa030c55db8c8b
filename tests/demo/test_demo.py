"""The demo end to end: the real pipeline on simulated hardware, and a kill with resume."""

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
from controller.game.state import Phase

GAME_KEYS = ("winners", "warriors_left", "rounds", "combats", "events", "throws")


@pytest.mark.slow
@pytest.mark.timeout(240)
def test_demo_plays_a_whole_game_through_every_part(tmp_path: Path) -> None:
    summary = run_demo(DemoOptions(seed=3, fast=True, out=tmp_path))
    assert summary.winners
    assert summary.rounds == 5
    assert summary.throws_read > 0 and summary.throws == summary.throws_read
    assert summary.silent_misreads == 0
    assert summary.handler_failures == 0
    assert summary.moves_from_board > 0
    assert summary.button_presses > 0
    assert Path(summary.gif).stat().st_size > 0
    assert "first player" in Path(summary.log).read_text(encoding="utf-8")
    assert summary.latency_ms["max"] > 0
    with TableGame.resume(summary.journal) as game:  # the journal replays to the end
        assert game.state.phase is Phase.OVER
        assert [game.state.players[w] for w in game.state.winners] == summary.winners


@pytest.mark.slow
@pytest.mark.timeout(420)
def test_a_demo_killed_with_sigkill_resumes_to_the_same_end(tmp_path: Path) -> None:
    reference = run_demo(DemoOptions(seed=4, fast=True, out=tmp_path / "ref")).to_json()
    journal = tmp_path / "kill" / "journal.sqlite"
    cmd = [sys.executable, "-m", "controller.cli.main", "demo", "--fast", "--json", "--seed", "4",
           "--out", str(tmp_path / "kill"), "--journal", str(journal)]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:  # kill once play has begun
        if journal.exists() and _events(journal) >= 30:
            break
        time.sleep(0.2)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = subprocess.run(
        [*cmd, "--resume"], capture_output=True, text=True, timeout=300, check=True
    )
    resumed = json.loads(done.stdout.strip().splitlines()[-1])
    assert resumed["resumed"] is True
    assert resumed["handler_failures"] == 0
    assert {k: resumed[k] for k in GAME_KEYS} == {k: reference[k] for k in GAME_KEYS}


def _events(path: Path) -> int:
    try:
        with Journal.open(path) as journal:
            return len(journal.events())
    except Exception:
        return 0
