"""A companion mode runs on the daemon's own loop and devices: the buttons' events reach
the table through the loop, the displays draw its view, a journal of another game is
refused untouched, and ``toptable run`` says READY/STATUS/WATCHDOG/STOPPING as for the dice."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import pytest

from controller.config import Config
from controller.core.kinds import GameKind
from controller.daemon.events import Barrier
from controller.daemon.hardware import TableDevices
from controller.daemon.journals import (
    StartError,
    companion_journal,
    open_companion_table,
    resume_or_start,
)
from controller.daemon.loop import TableLoop
from controller.daemon.tables import CompanionGame, open_table, start_timers
from controller.table.companion import CompanionTable
from controller.table.settings import TableConfig
from hardware.controls.settings import ControlsBackend, ControlsConfig
from hardware.displays.settings import DisplaysConfig, ScreenConfig, ScreenDriver, ScreenRole
from tests.daemon.helpers import messages, run_under_systemd

pytestmark = pytest.mark.timeout(60)

SCREENS = DisplaysConfig(
    screens=(
        ScreenConfig(role=ScreenRole.TURN, driver=ScreenDriver.DUMMY),
        ScreenConfig(role=ScreenRole.COMBAT, driver=ScreenDriver.DUMMY, height=32),
    )
)


def _config(folder: Path) -> Config:
    return Config(
        table=TableConfig(mode=GameKind.DBZ_TCG, players=2, journal=folder / "journal.sqlite"),
        displays=SCREENS,
        controls=ControlsConfig(
            backend=ControlsBackend.MOCK, bounce_ms=0, encoder_a=None, encoder_b=None
        ),
    )


def _handled(loop: TableLoop) -> None:
    barrier = Barrier()
    loop.post(barrier)
    assert barrier.done.wait(10), "the loop did not turn"


def test_a_companion_table_runs_on_the_loop_and_the_devices(tmp_path: Path) -> None:
    config = _config(tmp_path)
    loop = TableLoop()
    held = resume_or_start(config)
    with TableDevices.open(config, loop.events, dice=False) as devices:
        assert devices.camera is None and devices.link is None and devices.sim is None
        assert devices.faults() == {}
        running = open_table(config, loop, devices, held)
        assert isinstance(running, CompanionGame) and running.table.kind is GameKind.DBZ_TCG
        start_timers(loop, devices, running.table, tick_s=0.25)
        runner = threading.Thread(target=loop.run)
        runner.start()
        try:
            assert running.table.status_line() == "dbz-tcg: draw"
            confirm = devices.pin_factory.pin(config.controls.confirm)
            confirm.drive_low()
            confirm.drive_high()  # Player 1's Draw Step
            _handled(loop)
            assert running.table.status_line() == "dbz-tcg: planning"
            assert len(running.journal) == 1
            shown = [d.last_screen for d in devices.displays.displays]
            assert shown == ["status", "choice"]  # the turn display the numbers, combat the choice
        finally:
            loop.stop()
            runner.join(10)
            running.close()
    assert loop.failures == 0
    journal = companion_journal(config)
    assert journal == tmp_path / "companion-dbz-tcg.sqlite"
    with CompanionTable.resume(journal) as table:
        assert table.history == 1 and table.view().step == "planning"
    before = journal.read_bytes()
    with pytest.raises(StartError, match="holds a dbz-tcg game of 2 players, but the config"):
        open_companion_table(GameKind.CHALLENGERS, journal, ["A", "B"])
    assert journal.read_bytes() == before


def test_run_keeps_a_companion_game_under_systemd(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        f'[table]\nmode = "dbz-tcg"\njournal = "{tmp_path / "journal.sqlite"}"\n'
        '[camera]\nsource = "v4l2"\ndevice = "/dev/video-none"\n'  # not used: no warning
        '[board]\nbackend = "serial"\nport = "/dev/ttyNONE"\n'
        '[[displays.screen]]\nrole = "turn"\ndriver = "dummy"\n'
        '[controls]\nbackend = "mock"\n',
        encoding="utf-8",
    )
    with run_under_systemd(config, tmp_path) as (proc, sock):
        ready = messages(sock, "READY=1", 30)
        assert any("READY=1" in m and "STATUS=dbz-tcg: draw" in m for m in ready), ready
        assert any("WATCHDOG=1" in m for m in messages(sock, "WATCHDOG=1", 5))
        proc.send_signal(signal.SIGTERM)
        assert any("STOPPING=1" in m for m in messages(sock, "STOPPING=1", 20))
        assert proc.wait(timeout=20) == 0
    err = proc.stderr.read() if proc.stderr else ""
    assert "video-none" not in err and "ttyNONE" not in err, err  # the dice devices: unused
    assert (tmp_path / "companion-dbz-tcg.sqlite").is_file()
