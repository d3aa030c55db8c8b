"""The unit file, the udev rule and the install scripts (checked, never run for real)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from controller.config import DEFAULT_BOARD_PORT, DEFAULT_CONFIG_PATH, DEFAULT_JOURNAL
from tests.paths import REPO

REPO = REPO
SYSTEMD = REPO / "systemd"
UNIT = SYSTEMD / "toptable.service"
RULE = SYSTEMD / "99-toptable-board.rules"
INSTALL = SYSTEMD / "install.sh"
UNINSTALL = SYSTEMD / "uninstall.sh"
EXEC_START = f"/opt/toptable/venv/bin/toptable run --config {DEFAULT_CONFIG_PATH}"

pytestmark = pytest.mark.timeout(60)


def unit_settings(text: str) -> dict[str, list[str]]:
    """``Section.Key`` -> every value (keys like DeviceAllow= repeat)."""
    settings: dict[str, list[str]] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, sep, value = line.partition("=")
        assert sep, f"not a Key=value line: {raw!r}"
        settings.setdefault(f"{section}.{key}", []).append(value)
    return settings


@pytest.fixture(scope="module")
def unit() -> dict[str, list[str]]:
    return unit_settings(UNIT.read_text())


def test_unit_is_a_notify_service_with_a_watchdog(unit: dict[str, list[str]]) -> None:
    assert unit["Service.Type"] == ["notify"]
    assert unit["Service.NotifyAccess"] == ["main"]
    assert unit["Service.ExecStart"] == [EXEC_START]
    assert int(unit["Service.WatchdogSec"][0]) >= 10
    assert unit["Service.Restart"] == ["always"]
    assert int(unit["Service.RestartSec"][0]) > 0
    assert unit["Service.KillSignal"] == ["SIGTERM"]
    assert int(unit["Service.TimeoutStopSec"][0]) > 0
    assert int(unit["Unit.StartLimitIntervalSec"][0]) > 0
    assert int(unit["Unit.StartLimitBurst"][0]) > 0
    assert unit["Install.WantedBy"] == ["multi-user.target"]


def test_unit_runs_as_a_hardened_dedicated_user(unit: dict[str, list[str]]) -> None:
    assert unit["Service.User"] == ["toptable"]
    assert {"gpio", "i2c", "dialout", "video"} <= set(
        unit["Service.SupplementaryGroups"][0].split()
    )
    assert unit["Service.ProtectSystem"] == ["strict"]
    assert unit["Service.StateDirectory"] == ["toptable"]
    assert DEFAULT_JOURNAL.parent == Path("/var/lib") / unit["Service.StateDirectory"][0]
    for key in ("NoNewPrivileges", "PrivateTmp", "ProtectHome"):
        assert unit[f"Service.{key}"] == ["yes"], key
    assert "Service.PrivateDevices" not in unit  # it would hide the hardware


def test_unit_allows_exactly_the_hardware_devices(unit: dict[str, list[str]]) -> None:
    assert unit["Service.DevicePolicy"] == ["closed"]
    allowed = {v.split()[0]: v.split()[1] for v in unit["Service.DeviceAllow"]}
    assert allowed == {
        "char-gpiochip": "rw",
        "char-i2c": "rw",
        "char-spi": "rw",
        "char-ttyACM": "rw",
        "char-video4linux": "rw",
        "char-media": "rw",
        "char-dma_heap": "rw",
        "char-vchiq": "rw",
    }


def _unit_with_existing_exec(tmp_path: Path) -> Path:
    """A copy of the unit whose ExecStart names a program that exists here.

    ``systemd-analyze verify`` checks that ExecStart's program exists, and the
    venv under /opt is only there on an installed Pi.
    """
    text = UNIT.read_text()
    assert text.count(EXEC_START) == 1
    copy = tmp_path / "toptable.service"
    copy.write_text(text.replace("/opt/toptable/venv/bin/toptable", "/bin/true"))
    return copy


def test_systemd_analyze_verify(tmp_path: Path) -> None:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        pytest.skip("systemd-analyze is not installed here (apt-get install systemd)")
    result = subprocess.run(
        [tool, "verify", str(_unit_with_existing_exec(tmp_path))],
        capture_output=True,
        text=True,
        timeout=30,
        cwd=tmp_path,
    )
    if result.returncode != 0 and "Failed to " in result.stderr and "bus" in result.stderr.lower():
        pytest.skip(f"systemd-analyze cannot run here: {result.stderr.strip()}")
    assert result.returncode == 0, result.stderr
    assert "toptable.service" not in result.stderr, result.stderr  # no warning about our unit


def test_udev_rule_links_the_pico_for_the_config_default() -> None:
    rules = [
        line
        for line in RULE.read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert len(rules) == 1
    pairs = [p.strip() for p in rules[0].split(",")]
    parsed = []
    for pair in pairs:
        match = re.fullmatch(r'([A-Z_]+(?:\{[A-Za-z_]+\})?)\s*(==|!=|\+=|=|:=)\s*"([^"]*)"', pair)
        assert match, f"not a udev key/op/value: {pair!r}"
        parsed.append(match.groups())
    assert ("SUBSYSTEM", "==", "tty") in parsed
    assert ("ATTRS{idVendor}", "==", "2e8a") in parsed
    assert ("GROUP", "=", "dialout") in parsed
    (symlink,) = [v for k, op, v in parsed if k == "SYMLINK"]
    assert f"/dev/{symlink}" == DEFAULT_BOARD_PORT


def _shellcheck_or_skip() -> str:
    tool = shutil.which("shellcheck")
    if tool is None:
        pytest.skip("shellcheck is not installed here (apt-get install shellcheck)")
    return tool


@pytest.mark.parametrize("script", [INSTALL, UNINSTALL, SYSTEMD / "lib.sh"], ids=lambda p: p.name)
def test_scripts_pass_shellcheck(script: Path) -> None:
    tool = _shellcheck_or_skip()
    # -x: follow the shared lib.sh the scripts source
    result = subprocess.run([tool, "-x", str(script)], capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stdout


@pytest.mark.parametrize("script", [INSTALL, UNINSTALL], ids=lambda p: p.name)
def test_scripts_parse_and_are_executable(script: Path) -> None:
    assert os.access(script, os.X_OK)
    subprocess.run(["bash", "-n", str(script)], check=True, timeout=10)


@pytest.fixture
def scratch(tmp_path: Path) -> dict[str, str]:
    """Point the scripts' system paths at a scratch folder (used with --dry-run only)."""
    env = dict(os.environ)
    env.update(
        TOPTABLE_PREFIX=str(tmp_path / "opt"),
        TOPTABLE_CONFIG_DIR=str(tmp_path / "etc"),
        TOPTABLE_UNIT_DIR=str(tmp_path / "units"),
        TOPTABLE_RULES_DIR=str(tmp_path / "rules"),
        TOPTABLE_STATE_DIR=str(tmp_path / "state"),
    )
    return env


def dry_run(script: Path, env: dict[str, str], *args: str) -> list[str]:
    result = subprocess.run(
        ["bash", str(script), "--dry-run", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


def snapshot(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_install_dry_run_prints_every_step_and_changes_nothing(
    tmp_path: Path, scratch: dict[str, str]
) -> None:
    before = snapshot(tmp_path)
    lines = dry_run(INSTALL, scratch)
    assert snapshot(tmp_path) == before
    steps = [line for line in lines if line.startswith("+ ")]
    prefix = tmp_path / "opt"
    assert f"+ python3 -m venv --system-site-packages {prefix}/venv" in steps
    assert any(s.startswith(f"+ {prefix}/venv/bin/pip install") and "[pi]" in s for s in steps)
    assert (
        f"+ install -m 0640 -o root -g toptable {SYSTEMD}/config.example.toml "
        f"{tmp_path}/etc/config.toml"
    ) in steps
    assert (
        f"+ install -m 0644 {SYSTEMD}/99-toptable-board.rules "
        f"{tmp_path}/rules/99-toptable-board.rules"
    ) in steps
    assert f"+ install -m 0644 {UNIT} {tmp_path}/units/toptable.service" in steps
    assert "+ usermod --append --groups gpio,i2c,spi,dialout,video toptable" in steps
    order = [
        next(i for i, s in enumerate(steps) if needle in s)
        for needle in (
            "udevadm control --reload-rules",
            "systemctl daemon-reload",
            "systemctl enable",
        )
    ]
    assert order == sorted(order)
    assert lines[-1] == "install.sh: dry run done: nothing was changed"


def test_install_keeps_an_existing_config_and_venv(tmp_path: Path, scratch: dict[str, str]) -> None:
    (tmp_path / "etc").mkdir()
    (tmp_path / "etc" / "config.toml").write_text("# mine\n")
    venv_bin = tmp_path / "opt" / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").symlink_to(shutil.which("true") or "/bin/true")
    lines = dry_run(INSTALL, scratch)
    assert f"install.sh: keeping the existing {tmp_path}/etc/config.toml" in lines
    assert f"install.sh: virtual environment {tmp_path}/opt/venv exists" in lines
    assert not any("config.example.toml " + str(tmp_path / "etc") in line for line in lines)
    assert not any(" -m venv " in line for line in lines)


def test_uninstall_dry_run(tmp_path: Path, scratch: dict[str, str]) -> None:
    assert dry_run(UNINSTALL, scratch)[1:4] == [
        f"uninstall.sh: no unit at {tmp_path}/units/toptable.service",
        f"uninstall.sh: no udev rule at {tmp_path}/rules/99-toptable-board.rules",
        f"uninstall.sh: nothing at {tmp_path}/opt",
    ]
    for folder in ("units", "rules", "opt", "etc", "state"):
        (tmp_path / folder).mkdir()
    (tmp_path / "units" / "toptable.service").write_text("")
    (tmp_path / "rules" / "99-toptable-board.rules").write_text("")
    kept = dry_run(UNINSTALL, scratch)
    assert "+ systemctl disable --now toptable.service" in kept
    assert f"+ rm -rf {tmp_path}/opt" in kept
    assert not any(f"rm -rf {tmp_path}/etc" in line for line in kept)
    purged = dry_run(UNINSTALL, scratch, "--purge")
    assert f"+ rm -rf {tmp_path}/etc" in purged and f"+ rm -rf {tmp_path}/state" in purged
    assert (tmp_path / "units" / "toptable.service").exists()


@pytest.mark.parametrize("script", [INSTALL, UNINSTALL], ids=lambda p: p.name)
def test_scripts_reject_unknown_options(script: Path) -> None:
    result = subprocess.run(
        ["bash", str(script), "--dry-run", "--bogus"], capture_output=True, text=True, timeout=10
    )
    assert result.returncode == 2
    assert "unknown option '--bogus'" in result.stderr
