"""``toptable board ...`` and ``toptable firmware deploy``, the flicker guard, a small stress run."""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from controller.board.sensor_map import MappingWizard, load_sensor_map
from controller.cli import firmware as firmware_cli
from controller.cli.board import run_sim_commands, run_wizard
from controller.cli.main import main
from controller.core.errors import DataError
from controller.core.events import Event
from controller.gamedata.board import load_board
from hardware.board.errors import BoardError
from hardware.board.events import BoardResynced, LinkLost, SensorChanged, SensorFlickering
from hardware.board.guard import FlickerGuard
from hardware.board.link import BoardLink
from hardware.board.relay import FaultRelay
from hardware.board.sim import SimBoard
from hardware.board.stress import StressConfig, format_report, run_stress
from tests.hardware.board.test_link import wait_for
from tests.paths import REPO

REPO = REPO


def test_sim_commands_drive_the_matrix(tmp_path: Path) -> None:
    out = io.StringIO()
    lines = io.StringIO(
        "place 3\n# a comment\nplace 99\nlift 3\nplace 5\nstate\nreset\nfly\nquit\nplace 1\n"
    )
    with SimBoard(sensors=8, link=tmp_path / "b") as sim:
        run_sim_commands(sim, lines, out)
        assert sim.occupied() == {5}
        assert sim.boot == 2
    text = out.getvalue()
    assert "sensor 99 does not exist: this board has 0..7" in text
    assert "occupied: [5]" in text
    assert "? 'fly'" in text
    assert "place 1" not in text  # after quit


@pytest.mark.timeout(60)
def test_sim_and_watch_processes_talk_over_the_pty(tmp_path: Path) -> None:
    link = tmp_path / "board"
    exe = [sys.executable, "-m", "controller.cli.main"]
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    sim = subprocess.Popen(
        [*exe, "board", "sim", "--sensors", "12", "--link", str(link)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=REPO,
        env=env,
    )
    watch: subprocess.Popen[str] | None = None
    try:
        assert sim.stdout is not None and sim.stdin is not None
        assert "simulated board (12 sensors) on" in sim.stdout.readline()
        watch = subprocess.Popen(
            [
                *exe,
                "board",
                "watch",
                "--port",
                str(link),
                "--json",
                "--count",
                "4",
                "--seconds",
                "20",
            ],
            stdout=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=env,
        )
        assert watch.stdout is not None
        first = json.loads(watch.stdout.readline())
        assert first["event"] == "link_restored" and first["sensors"] == 12
        assert json.loads(watch.stdout.readline())["event"] == "resynced"
        sim.stdin.write("place 3\n")
        sim.stdin.flush()
        a = json.loads(watch.stdout.readline())  # seen before the next token goes down
        sim.stdin.write("place 9\n")
        sim.stdin.flush()
        b = json.loads(watch.stdout.readline())
        assert (a["seq"], a["occupied"]) == (1, [3])
        assert (b["seq"], b["occupied"]) == (2, [3, 9])
        assert watch.wait(timeout=10) == 0
        sim.stdin.write("quit\n")
        sim.stdin.flush()
        assert sim.wait(timeout=10) == 0
    finally:
        for proc in (sim, watch):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()


def test_flicker_guard_holds_a_stuck_sensor_until_it_settles() -> None:
    g = FlickerGuard(max_changes=3, window_s=1.0, quiet_s=0.5)
    posted = []
    for i in range(8):
        posted += g.filter(SensorChanged(4, i % 2 == 0, i + 1, 1, at=i * 0.1), i * 0.1)
    assert [type(e) for e in posted] == [SensorChanged] * 3 + [SensorFlickering]
    assert g.holding() == {4}
    assert g.poll(0.9) == []  # still flickering recently
    released = g.poll(1.3)
    assert [(e.sensor, e.occupied) for e in released if isinstance(e, SensorChanged)] == [
        (4, False)
    ]
    assert g.flickers == 1 and not g.holding()
    # a well-behaved sensor passes straight through
    assert g.filter(SensorChanged(5, True, 9, 1), 2.0) == [SensorChanged(5, True, 9, 1)]


@pytest.mark.slow
@pytest.mark.realtime
@pytest.mark.timeout(60)
def test_a_small_stress_run_meets_the_targets() -> None:
    # Real time over real ptys: a firmware thread starved for seconds on a loaded machine
    # misses changes, so this runs in the slow tier, alone (make test-slow: realtime).
    # tests/hardware/board/test_session.py proves "nothing lost" on a simulated clock.
    # Each sensor holds a state for 2 s (a hand is slower still).
    cfg = StressConfig(
        events=300, unplug_every=1.0, reset_every=2.0, latency_events=60, rate=60, dwell=2.0
    )
    report = run_stress(cfg)
    text = format_report(cfg, report)
    assert report.passed(), text
    assert report.unplugs >= 2 and report.resets >= 1
    assert report.bytes_corrupted > 0 and report.frames_rejected > 0
    assert report.latency_events == 60


def test_deploy_without_mpremote_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(firmware_cli, "INTERPRETER_BIN", tmp_path)
    assert main(["firmware", "deploy"]) == 2
    assert "mpremote is not installed: `pip install mpremote`" in capsys.readouterr().err


def test_deploy_runs_mpremote(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    pty_port: str,
) -> None:
    log = tmp_path / "calls"
    fake = tmp_path / "mpremote"
    fake.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr(firmware_cli, "INTERPRETER_BIN", tmp_path / "elsewhere")
    assert main(["firmware", "deploy", "--port", pty_port]) == 0  # a port that is there
    calls = log.read_text().splitlines()
    assert calls[0] == f"connect {pty_port} mkdir :firmware"
    assert calls[1].endswith("firmware/wire.py :firmware/") and "core.py" in calls[1]
    assert calls[2].endswith("firmware/main.py :main.py")
    assert calls[3] == f"connect {pty_port} reset"


@pytest.mark.timeout(10)
def test_map_wizard_follows_the_board_events(demo_data: Path, tmp_path: Path) -> None:
    layout = load_board(demo_data / "board.toml")
    wizard = MappingWizard(layout, order=[0, 1])
    q: queue.Queue[Event] = queue.Queue()
    for ev in (
        SensorChanged(9, True, 0, 1, resync=True),  # already there at connect: not a prompt answer
        SensorChanged(12, True, 1, 1),
        LinkLost("p", "port failed"),
        SensorChanged(12, False, 2, 1),
        SensorChanged(12, True, 3, 1),
        SensorChanged(13, True, 4, 1),
    ):
        q.put(ev)
    out = io.StringIO()
    run_wizard(wizard, q, out)
    text = out.getvalue()
    assert "space 0 = sensor 12" in text and "space 1 = sensor 13" in text
    assert "sensor 12 is already space 0" in text and "link lost" in text
    path = wizard.save(tmp_path / "s.toml")
    assert load_sensor_map(path, layout) == {0: 12, 1: 13}
    with pytest.raises(BoardError, match=r"mapping stopped after 0\.2 s at space 0"):
        run_wizard(MappingWizard(layout), queue.Queue(), io.StringIO(), timeout=0.2)


def test_the_default_files_of_board_commands_exist() -> None:
    from controller.cli.board import DEFAULT_BOARD
    from controller.cli.firmware import FIRMWARE_DIR

    assert DEFAULT_BOARD.is_file()
    assert (FIRMWARE_DIR / "main.py").is_file()


def test_watch_refuses_a_port_that_is_not_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = tmp_path / "ttyACM9"
    assert main(["board", "watch", "--port", str(port)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(
        f"toptable: error: argument --port: {port}: no such serial port; is the board plugged in?"
    )


@pytest.mark.timeout(60)
def test_watch_exits_1_when_no_board_answers(capsys: pytest.CaptureFixture[str]) -> None:
    master, slave = os.openpty()  # a serial port with nothing behind it
    try:
        code = main(["board", "watch", "--port", os.ttyname(slave), "--seconds", "1"])
    finally:
        os.close(master)
        os.close(slave)
    assert code == 1
    assert "toptable board watch: the board never answered" in capsys.readouterr().err


@pytest.mark.timeout(60)
def test_watch_prints_the_link_health_of_a_noisy_cable(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with SimBoard(sensors=8, link=tmp_path / "board", relay_up=FaultRelay(corrupt=0.02)) as sim:
        for _ in range(50):  # until a frame fails its CRC and the line is printed
            code = main(["board", "watch", "--port", sim.path, "--json", "--seconds", "2"])
            out = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
            health = [e for e in out if e.get("event") == "link_health"]
            if health and health[-1]["crc_failures"]:
                break
    assert code == 0
    assert set(health[-1]) == {
        "event", "bytes_invalid", "bad_frames", "crc_failures", "resyncs", "reconnects",
        "malformed", "wrong_version", "bad_sensor",
    }  # fmt: skip
    assert health[-1]["bytes_invalid"] >= health[-1]["bad_frames"] >= health[-1]["crc_failures"]


def test_sim_unplug_seconds_are_checked_before_the_cable_is_pulled(tmp_path: Path) -> None:
    out = io.StringIO()
    with SimBoard(sensors=8, link=tmp_path / "b") as sim:
        run_sim_commands(sim, io.StringIO("unplug inf\nunplug -1\nunplug nan\nquit\n"), out)
        assert sim.unplugs == 0 and (tmp_path / "b").is_symlink()  # still plugged in
    assert out.getvalue().count("seconds: expected 0..3600") == 3


def test_sim_link_never_replaces_a_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "board.toml"
    mine.write_text("my sensor map\n", encoding="utf-8")
    assert main(["board", "sim", "--link", str(mine)]) == 2
    assert "a file is there, and --link would replace it" in capsys.readouterr().err
    assert mine.read_text(encoding="utf-8") == "my sensor map\n"


def test_a_sensor_map_that_cannot_be_written_is_named(demo_data: Path, tmp_path: Path) -> None:
    layout = load_board(demo_data / "board.toml")
    wizard = MappingWizard(layout, order=[0])
    wizard.on_sensor(12, True)
    made = wizard.save(tmp_path / "new" / "folder" / "s.toml")  # folders made, as --out says
    assert load_sensor_map(made, layout) == {0: 12}
    blocked = tmp_path / "a-file"
    blocked.write_text("", encoding="utf-8")
    with pytest.raises(DataError, match=rf"^{blocked}/s\.toml: cannot write: "):
        wizard.save(blocked / "s.toml")


@pytest.mark.parametrize("command", [["watch", "--seconds", "1"], ["map", "--timeout", "1"]])
def test_a_port_that_is_no_serial_port_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    # a board never answers on a file: watch waited for it (exit 1), map for ever
    plain = tmp_path / "ttyACM0"
    plain.write_text("", encoding="utf-8")
    for port, kind in ((plain, "a file"), (tmp_path, "a folder")):
        assert main(["board", command[0], "--port", str(port), *command[1:]]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and f"{port} is {kind}, not a serial port" in err


@pytest.mark.parametrize("command", [["watch", "--seconds", "1"], ["map", "--timeout", "1"]])
@pytest.mark.parametrize("device", ["/dev/null", "/dev/zero"])
def test_a_device_that_is_no_terminal_is_one_line(
    capsys: pytest.CaptureFixture[str], command: list[str], device: str
) -> None:
    """/dev/null (a character device, no serial port): watch and map waited for a board
    forever, retrying to open the port with "Inappropriate ioctl for device"."""
    assert main(["board", command[0], "--port", device, *command[1:]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert f"argument --port: {device} is a device but not a serial port (no terminal)" in err


@pytest.mark.parametrize("command", [["watch", "--seconds", "1"], ["map", "--timeout", "1"]])
def test_a_huge_port_is_cut_short_and_its_real_trouble_named(
    capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    """os.path.exists hid "File name too long" as "no such serial port", and the message
    held all 100,000 characters."""
    port = "/dev/" + "x" * 100_000
    assert main(["board", command[0], "--port", port, *command[1:]]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 400
    assert err.startswith(
        f"toptable: error: argument --port: /dev/{'x' * 95}... "
        "(100005 characters): cannot be looked at (File name too long); expected a serial "
        "port, e.g. /dev/ttyACM0; serial ports present: "
    )


def test_map_writes_over_no_layout_and_no_file_of_the_owners(
    demo_data: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Review 95: `board map --board B --out B` replaced the layout by the sensor map."""
    board = tmp_path / "board.toml"
    board.write_bytes((demo_data / "board.toml").read_bytes())
    notes = tmp_path / "notes.toml"
    notes.write_text("mine = 1\n", encoding="utf-8")
    for out, said in ((board, "is the board's layout (--board)"), (notes, "is no sensor map")):
        code = main(["board", "map", "--port", "/dev/null", "--board", str(board),
                     "--out", str(out)])  # fmt: skip
        assert code == 2 and said in capsys.readouterr().err
    assert board.read_bytes() == (demo_data / "board.toml").read_bytes()
    assert notes.read_text(encoding="utf-8") == "mine = 1\n"


def test_a_mapping_stopped_part_way_is_kept_and_continued(
    demo_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], pty_port: str,
) -> None:  # fmt: skip
    """Review 102: Ctrl-C (or --timeout) at the sixth space lost the five mapped: nothing
    was saved, and the owner placed all 42 tokens again."""
    import controller.cli.board as board_cli
    import hardware.board.link as link_module

    class NoLink:
        def __init__(self, *args: object) -> None:
            pass

        def __enter__(self) -> NoLink:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

    def mapped_then(stop: BaseException, spaces: int) -> Any:
        def run(wizard: Any, *args: object) -> None:
            for _ in range(spaces):
                wizard.on_sensor(wizard.current + 1, True)
            raise stop

        return run

    monkeypatch.setattr(link_module, "BoardLink", NoLink)
    out = tmp_path / "sensors.toml"
    argv = ["board", "map", "--port", pty_port, "--board",
            str(demo_data / "board.toml"), "--out", str(out)]  # fmt: skip
    monkeypatch.setattr(board_cli, "run_wizard", mapped_then(KeyboardInterrupt(), 5))
    assert main(argv) == 130
    partial = out.with_name("sensors.toml.partial")
    assert not out.exists() and "kept the 5 spaces mapped so far" in capsys.readouterr().err
    monkeypatch.setattr(board_cli, "run_wizard", mapped_then(BoardError("timeout"), 2))
    assert main(argv) == 2
    assert "continuing from" in capsys.readouterr().out
    kept = tomllib.loads(partial.read_text(encoding="utf-8"))["sensors"]
    assert len(kept) == 7 and kept["0"] == 1 and kept["5"] == 6
    layout = load_board(demo_data / "board.toml")
    left = len(layout.spaces) - 7

    def finish(wizard: Any, *args: object) -> None:
        for _ in range(left):
            wizard.on_sensor(wizard.current + 1, True)

    monkeypatch.setattr(board_cli, "run_wizard", finish)
    assert main(argv) == 0
    assert not partial.exists()
    assert len(tomllib.loads(out.read_text(encoding="utf-8"))["sensors"]) == len(layout.spaces)


@pytest.mark.timeout(30)
def test_the_sims_reset_is_a_picos_and_the_host_resyncs(tmp_path: Path) -> None:
    """hardware/board/README.md has the owner type ``reset`` into ``board sim``: the port
    stayed open, the host's pings in the board's grace second read as Ctrl-C, and the
    board sat at the MicroPython prompt for good (review 108). A Pico's reset drops its
    USB port too. The grace is longer than the host's ping period, so a ping on a port
    left open is sure to land in it."""
    q: queue.Queue[Event] = queue.Queue()
    with SimBoard(8, tmp_path / "b", boot_grace_s=2.5) as sim, BoardLink(sim.path, q):
        wait_for(q, BoardResynced)
        run_sim_commands(sim, io.StringIO("reset\n"), io.StringIO())
        again = wait_for(q, BoardResynced, timeout=10)
        assert isinstance(again, BoardResynced) and again.boot == 2
        sim.place(4)
        wait_for(q, SensorChanged, sensor=4)
        assert not sim.at_prompt
