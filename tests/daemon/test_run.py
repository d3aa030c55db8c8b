"""``toptable run`` as systemd runs it: READY/STATUS/WATCHDOG/STOPPING over a real
datagram socket, SIGTERM shuts it down cleanly, and bad starts exit 2 with one line."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

import pytest

from controller.bench.kill import toptable
from controller.game.journal import Journal
from tests.daemon.helpers import messages, run_under_systemd, simulated_config


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_run_under_a_notify_socket_starts_pings_and_stops_on_sigterm(tmp_path: Path) -> None:
    config = simulated_config(tmp_path)
    with run_under_systemd(config, tmp_path) as (proc, sock):
        ready = messages(sock, "READY=1", 60)
        assert any("READY=1" in m for m in ready), ready
        assert any("STATUS=round 1/10, Player 1: first player" in m for m in ready), ready
        pings = messages(sock, "WATCHDOG=1", 5)
        assert any("WATCHDOG=1" in m for m in pings), pings
        proc.send_signal(signal.SIGTERM)
        stopping = messages(sock, "STOPPING=1", 30)
        assert any("STOPPING=1" in m for m in stopping), stopping
        assert proc.wait(timeout=30) == 0
    err = proc.stderr.read() if proc.stderr else ""
    assert "<6>" in err  # journald priority prefixes, no timestamps, under systemd
    with Journal.open(tmp_path / "journal.sqlite") as journal:  # closed cleanly, readable
        assert journal.game_id


@pytest.mark.timeout(60)
def test_a_config_with_a_typo_exits_2_naming_section_and_option(tmp_path: Path) -> None:
    config = simulated_config(tmp_path)
    config.write_text(
        config.read_text(encoding="utf-8").replace("players = 2", "playres = 2"), encoding="utf-8"
    )
    done = subprocess.run(
        toptable("run", "--config", str(config)), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "Option 'playres' in section 'table'" in done.stderr
    assert not (tmp_path / "journal.sqlite").exists()


@pytest.mark.timeout(120)
def test_a_journal_of_another_table_setup_is_refused_untouched(tmp_path: Path) -> None:
    config = simulated_config(tmp_path, players=2)
    journal = tmp_path / "journal.sqlite"
    made = subprocess.run(
        toptable("game", "play", str(journal), "--players", "3", "--seed", "1"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert made.returncode == 0, made.stderr
    before = journal.read_bytes()
    done = subprocess.run(
        toptable("run", "--config", str(config)), capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2
    assert "3 players" in done.stderr and "2 players" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert journal.read_bytes() == before
