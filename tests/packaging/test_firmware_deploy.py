"""``toptable firmware deploy`` sends the owner's board config, not the one in site-packages."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.cli import firmware
from controller.cli.main import main
from controller.system import service_pause
from tests.paths import REPO

BUNDLED = (REPO / "firmware" / "config.py").read_text(encoding="utf-8")


@pytest.fixture
def fake_mpremote(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    log = tmp_path / "calls"
    fake = tmp_path / "bin" / "mpremote"
    fake.parent.mkdir()
    fake.write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", str(fake.parent))
    monkeypatch.setattr(firmware, "INTERPRETER_BIN", tmp_path / "venv" / "bin")
    monkeypatch.setattr(firmware, "OWNER_FIRMWARE_CONFIG", tmp_path / "etc" / "config.py")
    booted = tmp_path / "run-systemd-system"  # systemd as PID 1, as on the Pi
    booted.mkdir()
    monkeypatch.setattr(service_pause, "SYSTEMD_RUNTIME", str(booted))
    return log


def test_the_firmware_is_the_top_level_package() -> None:
    assert firmware.FIRMWARE_DIR == REPO / "firmware"
    for name in (*firmware.FIRMWARE_FILES, "main.py"):
        assert (firmware.FIRMWARE_DIR / name).is_file(), name


def test_deploy_sends_the_owners_config(fake_mpremote: Path, tmp_path: Path, pty_port: str) -> None:
    mine = tmp_path / "my-board.py"
    mine.write_text(BUNDLED.replace("SENSORS = 42", "SENSORS = 64"))
    assert main(["firmware", "deploy", "--port", pty_port, "--config", str(mine)]) == 0
    calls = fake_mpremote.read_text().splitlines()
    assert "config.py" not in calls[1]  # the bundled one is not sent
    assert calls[2] == (
        f"connect {pty_port} cp {mine} :firmware/config.py + "
        f"cp {firmware.FIRMWARE_DIR / 'main.py'} :main.py"
    )


def test_deploy_finds_the_owners_config_in_etc(
    fake_mpremote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    owner = tmp_path / "etc" / "config.py"
    owner.parent.mkdir()
    owner.write_text(BUNDLED.replace("SENSORS = 42", "SENSORS = 12"))
    assert main(["firmware", "deploy"]) == 0
    assert f"cp {owner} :firmware/config.py" in fake_mpremote.read_text()
    assert "bundled" not in capsys.readouterr().err


def test_deploy_without_an_owners_config_says_it_sends_the_bundled_one(
    fake_mpremote: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["firmware", "deploy", "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert f"cp {firmware.FIRMWARE_DIR / 'config.py'} :firmware/config.py" in out
    assert err.startswith("firmware deploy: using the bundled board config ")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            None,
            "toptable firmware deploy: error: argument --config: {path}: no such file; "
            "expected the board's config.py",
        ),
        ("SENSORS = = 3\n", "toptable: error: --config {path}: not valid Python"),
    ],
)
def test_a_bad_config_is_refused_in_one_line(
    fake_mpremote: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str | None,
    expected: str,
) -> None:
    path = tmp_path / "board.py"
    if content is not None:
        path.write_text(content)
    assert main(["firmware", "deploy", "--config", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(expected.format(path=path))
    assert err.count("\n") == 1
    assert not fake_mpremote.exists()


@pytest.mark.parametrize("owners", [False, True], ids=["--config", "the owner's"])
@pytest.mark.parametrize("content", ["", " \n# SENSORS = 42\n", '"""my board"""\n'])
def test_a_config_that_sets_nothing_is_refused_in_one_line(
    fake_mpremote: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    owners: bool,
    content: str,
) -> None:
    # the firmware would stop at its first config.SENSORS, and the board never scans
    path = tmp_path / "etc" / "config.py" if owners else tmp_path / "board.py"
    path.parent.mkdir(exist_ok=True)
    path.write_text(content)
    given = [] if owners else ["--config", str(path)]
    assert main(["firmware", "deploy", "--dry-run", *given]) == 2
    out, err = capsys.readouterr()
    shown = str(path) if owners else f"--config {path}"
    assert err == (
        f"toptable: error: {shown}: sets none of the board's settings (SENSORS, DRIVER, "
        "ACTIVE_LOW, ...); expected the board's config.py (start from a copy of "
        f"{firmware.FIRMWARE_DIR / 'config.py'})\n"
    )
    assert out == ""
    assert not fake_mpremote.exists()


# ----------------------------------------------------------------- issue 25: deploying on a Pi
def test_deploy_finds_mpremote_beside_the_interpreter(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pty_port: str
) -> None:
    """Under sudo the venv's bin is not on PATH: mpremote is looked for beside Python first."""
    log = tmp_path / "calls"
    venv_bin = tmp_path / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "mpremote").write_text(f'#!/bin/sh\necho "$@" >> {log}\n')
    (venv_bin / "mpremote").chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(firmware, "INTERPRETER_BIN", venv_bin)
    monkeypatch.setattr(firmware, "OWNER_FIRMWARE_CONFIG", tmp_path / "etc" / "config.py")
    assert main(["firmware", "deploy", "--port", pty_port]) == 0
    assert log.read_text().splitlines()[-1] == f"connect {pty_port} reset"


def fake_systemctl(folder: Path, log: Path, active: bool) -> None:
    """systemctl answering is-active as told and logging every call with mpremote's."""
    script = folder / "systemctl"
    status = 0 if active else 3
    script.write_text(
        f'#!/bin/sh\necho "systemctl $@" >> {log}\n[ "$1" = is-active ] && exit {status}\nexit 0\n'
    )
    script.chmod(0o755)


def test_deploy_stops_the_running_service_and_starts_it_again(
    fake_mpremote: Path, monkeypatch: pytest.MonkeyPatch, pty_port: str
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    fake_systemctl(fake_mpremote.parent / "bin", fake_mpremote, active=True)
    fake = fake_mpremote.parent / "bin" / "mpremote"
    fake.write_text(f'#!/bin/sh\necho "mpremote $@" >> {fake_mpremote}\n')
    assert main(["firmware", "deploy", "--port", pty_port]) == 0
    calls = fake_mpremote.read_text().splitlines()
    assert calls[:2] == [
        "systemctl is-active --quiet toptable.service",
        "systemctl stop toptable.service",
    ]
    assert all(c.startswith("mpremote ") for c in calls[2:-1])
    assert calls[-1] == "systemctl start toptable.service"


def test_deploy_as_a_user_while_the_service_runs_says_what_to_do(
    fake_mpremote: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    fake_systemctl(fake_mpremote.parent / "bin", fake_mpremote, active=True)
    assert main(["firmware", "deploy"]) == 2
    err = capsys.readouterr().err.splitlines()[-1]  # after the note on the bundled config
    assert "the toptable service is running and holds the board's port" in err
    assert "`sudo systemctl stop toptable`" in err
    assert "systemctl stop" not in fake_mpremote.read_text()  # nothing was done


def test_a_failed_deploy_says_how_to_reach_the_repl(
    fake_mpremote: Path, capsys: pytest.CaptureFixture[str], pty_port: str
) -> None:
    fake = fake_mpremote.parent / "bin" / "mpremote"
    fake.write_text("#!/bin/sh\necho 'could not enter raw repl' >&2\nexit 1\n")
    assert main(["firmware", "deploy", "--port", pty_port]) == 2
    err = capsys.readouterr().err
    assert "Ctrl-C turned off" in err and "GP22 (PIN_MAINTENANCE)" in err


@pytest.mark.parametrize("port", ["/dev/ttyACM7", "port:/dev/ttyACM7"])
def test_a_port_that_is_not_there_is_refused_before_mpremote_runs(
    fake_mpremote: Path, capsys: pytest.CaptureFixture[str], port: str
) -> None:
    """mpremote tried each command on a missing port: six lines, the last a REPL hint."""
    assert main(["firmware", "deploy", "--port", port]) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"toptable: error: --port {port}: no such device (")
    assert "leave --port out for mpremote's auto" in err
    assert not fake_mpremote.exists()  # neither mpremote nor systemctl ran
    assert main(["firmware", "deploy", "--port", port, "--dry-run"]) == 0  # a plan may name it


def test_without_systemd_running_systemctl_is_not_asked(
    fake_mpremote: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, pty_port: str
) -> None:
    """Where systemd is not PID 1 (sd_booted(3): no /run/systemd/system) systemctl prints
    "System has not been booted with systemd" to any question: no service runs there."""
    monkeypatch.setattr(service_pause, "SYSTEMD_RUNTIME", str(tmp_path / "absent"))
    fake_systemctl(fake_mpremote.parent / "bin", fake_mpremote, active=True)
    assert main(["firmware", "deploy", "--port", pty_port]) == 0
    calls = fake_mpremote.read_text().splitlines()
    assert not any(c.startswith("systemctl") for c in calls)
    assert calls[-1] == f"connect {pty_port} reset"


@pytest.mark.parametrize("left_out", ["DRIVER", "WATCHDOG_MS", "PIN_MAINTENANCE"])
def test_a_config_that_leaves_out_a_setting_is_refused_naming_it(
    fake_mpremote: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], left_out: str
) -> None:
    # firmware/main.py reads every setting with no default: the board would stop at boot
    mine = tmp_path / "board.py"
    kept = [line for line in BUNDLED.splitlines() if not line.startswith(f"{left_out} =")]
    mine.write_text("\n".join(kept) + "\n")
    assert main(["firmware", "deploy", "--dry-run", "--config", str(mine)]) == 2
    out, err = capsys.readouterr()
    assert err == (
        f"toptable: error: --config {mine}: does not set {left_out}; expected every setting "
        f"of the board's config.py (start from a copy of {firmware.FIRMWARE_DIR / 'config.py'})\n"
    )
    assert out == ""
    assert not fake_mpremote.exists()


@pytest.mark.parametrize(
    ("old", "new", "said"),
    [
        ("SENSORS = 42", "SENSORS = 200", "line 3: field 'SENSORS': expected a whole number "
         "1..128, got 200"),
        ("SENSORS = 42", 'SENSORS = "42"', "field 'SENSORS': expected a whole number 1..128, "
         "got '42'"),
        ('DRIVER = "165"', 'DRIVER = "74165"', "field 'DRIVER': expected \"165\" or \"4067\", "
         "got '74165'"),
        ("ACTIVE_LOW = True", "ACTIVE_LOW = 2", "field 'ACTIVE_LOW': expected True or False (or 1 "
         "or 0), got 2"),
        ("PIN_LOAD = 2", "PIN_LOAD = 40", "field 'PIN_LOAD': expected a whole number 0..29, got 40"),
        ("PINS_SELECT = (6, 7, 8, 9)", 'PINS_SELECT = (6, 7, 8)\nDRIVER = "4067"', "field "
         "'PINS_SELECT': expected a tuple of 4 GPIO numbers 0..29, got (6, 7, 8)"),
        ("DEBOUNCE = 2", "DEBOUNCE = 300", "field 'DEBOUNCE': expected a whole number 1..256"),
        ("WATCHDOG_MS = 2000", "WATCHDOG_MS = 10000", "field 'WATCHDOG_MS': expected a whole "
         "number 100..8388, got 10000"),
        ("DEBOUNCE = 2", "DEBOUNCE = -1\nSCAN_MS = 0", "2 problems:"),
        ("PINS_SIGNAL = (10, 11, 12, 13, 14, 15, 16, 17)", 'PINS_SIGNAL = (10, 11)\nDRIVER = '
         '"4067"', "line 14: field 'PINS_SIGNAL': 2 multiplexers read 32 sensors, not SENSORS = "
         "42: expected one signal pin per 16 sensors"),
    ],
)  # fmt: skip
def test_a_value_the_firmware_cannot_run_with_is_refused_naming_it(
    fake_mpremote: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    old: str,
    new: str,
    said: str,
) -> None:
    """The firmware stops at boot on such a value (a ValueError no one sees: the host hears
    only that the board never answers) or, for DRIVER, reads a 74HC165 chain: refused
    before anything is copied, naming the line and the setting."""
    mine = tmp_path / "board.py"
    assert old in BUNDLED
    mine.write_text(BUNDLED.replace(old, new), encoding="utf-8")
    assert main(["firmware", "deploy", "--dry-run", "--config", str(mine)]) == 2
    out, err = capsys.readouterr()
    assert err.startswith("toptable: error: ") and f"{mine}: line " in err and said in err
    assert out == "" and not fake_mpremote.exists()
    # a value computed is left to the firmware
    mine.write_text(BUNDLED.replace("SENSORS = 42", "SENSORS = 6 * 7"), encoding="utf-8")
    assert main(["firmware", "deploy", "--dry-run", "--config", str(mine)]) == 0


@pytest.mark.parametrize(
    ("driver", "unread"),
    [("165", ("PINS_SELECT", "PINS_SIGNAL")), ("4067", ("PIN_LOAD", "PIN_CLOCK", "PIN_DATA"))],
)
def test_a_config_without_the_other_drivers_pins_is_deployed(
    fake_mpremote: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    driver: str,
    unread: tuple[str, ...],
) -> None:
    """firmware/main.py reads only the pins of the DRIVER it names: a board config that
    leaves out the other driver's altogether is what the board runs with."""
    mine = tmp_path / "board.py"
    kept = [line for line in BUNDLED.splitlines() if not line.startswith(unread)]
    text = "\n".join(kept).replace('DRIVER = "165"', f'DRIVER = "{driver}"') + "\n"
    mine.write_text(text)
    assert main(["firmware", "deploy", "--dry-run", "--config", str(mine)]) == 0
    out, err = capsys.readouterr()
    assert f"cp {mine} :firmware/config.py" in out and err == ""
    # its own pins are still needed
    own = next(name for name in ("PIN_LOAD", "PINS_SELECT") if name not in unread)
    mine.write_text("\n".join(k for k in text.splitlines() if not k.startswith(own)) + "\n")
    assert main(["firmware", "deploy", "--dry-run", "--config", str(mine)]) == 2
    assert f"--config {mine}: does not set {own}; expected" in capsys.readouterr().err
