"""The unit file, the udev rule and the install scripts (checked, never run for real).

The one source of these files is ``controller/system/service_files/`` (package
data, so a wheel can install the service); ``systemd/`` links to it.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.config import DEFAULT_CONFIG_PATH
from controller.system.serial_ports import BOARD_LINK
from controller.system.unit_files import SHIPPED_FILES, render_rule
from controller.table.settings import DEFAULT_JOURNAL
from hardware.board.settings import DEFAULT_BOARD_PORT
from tests.paths import REPO

SYSTEMD = REPO / "systemd"
SOURCE = REPO / "controller" / "system" / "service_files"
UNIT = SOURCE / "toptable.service"
RULE = SOURCE / "99-toptable-board.rules"
INSTALL = SYSTEMD / "install.sh"  # a link: what a checkout's owner runs
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


@pytest.mark.parametrize("name", SHIPPED_FILES)
def test_systemd_folder_links_to_the_one_source(name: str) -> None:
    link = SYSTEMD / name
    assert link.is_symlink(), f"systemd/{name} must link to controller/system/service_files/"
    assert link.resolve() == (SOURCE / name).resolve()


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
    }  # not char-vchiq: Bookworm's camera stack does not use it; a UART comes by drop-in


def test_unit_gives_lgpio_a_working_directory_the_service_owns(
    unit: dict[str, list[str]],
) -> None:
    """lgpio makes its pipes in LG_WD (else the current folder): it must be writable."""
    assert unit["Service.ProtectSystem"] == ["strict"]  # so only these folders are writable
    writable = {
        Path("/var/lib") / unit["Service.StateDirectory"][0],
        Path("/run") / unit["Service.RuntimeDirectory"][0],
    }
    (workdir,) = unit["Service.WorkingDirectory"]
    assert Path(workdir) in writable
    env = dict(pair.split("=", 1) for line in unit["Service.Environment"] for pair in line.split())
    assert Path(env["LG_WD"]) in writable
    assert env["GPIOZERO_PIN_FACTORY"] == "lgpio"
    assert "Service.ReadOnlyPaths" not in unit and "Service.InaccessiblePaths" not in unit


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


def parse_rule(text: str) -> list[tuple[str, str, str]]:
    rules = [
        line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    ]
    assert len(rules) == 1
    pairs = [p.strip() for p in rules[0].split(",")]
    parsed = []
    for pair in pairs:
        match = re.fullmatch(r'([A-Z_]+(?:\{[A-Za-z_]+\})?)\s*(==|!=|\+=|=|:=)\s*"([^"]*)"', pair)
        assert match, f"not a udev key/op/value: {pair!r}"
        parsed.append((match[1], match[2], match[3]))
    return parsed


def test_udev_rule_links_the_pico_for_the_config_default() -> None:
    parsed = parse_rule(render_rule("E6614103E7171234"))
    assert ("SUBSYSTEM", "==", "tty") in parsed
    assert ("ATTRS{idVendor}", "==", "2e8a") in parsed
    assert ("ATTRS{idProduct}", "==", "0005") in parsed  # MicroPython's; not a Debug Probe
    assert ("ATTRS{serial}", "==", "E6614103E7171234") in parsed
    assert ("GROUP", "=", "dialout") in parsed
    (symlink,) = [v for k, op, v in parsed if k == "SYMLINK"]
    assert f"/dev/{symlink}" == DEFAULT_BOARD_PORT == BOARD_LINK


def test_udev_rule_template_and_the_unpinned_fallback() -> None:
    assert ("ATTRS{serial}", "==", "@BOARD_SERIAL@") in parse_rule(RULE.read_text())
    unpinned = parse_rule(render_rule(None))
    assert not [k for k, _op, _v in unpinned if k == "ATTRS{serial}"]
    assert ("ATTRS{idVendor}", "==", "2e8a") in unpinned


def _shellcheck_or_skip() -> str:
    tool = shutil.which("shellcheck")
    if tool is None:
        pytest.skip("shellcheck is not installed here (apt-get install shellcheck)")
    return tool


@pytest.mark.parametrize(
    "script",
    [INSTALL, UNINSTALL, SYSTEMD / "lib.sh", REPO / "tools" / "services" / "install.sh"],
    ids=lambda p: str(p.relative_to(REPO)),
)
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
        TOPTABLE_MODULES_DIR=str(tmp_path / "modules"),
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
    venv = tmp_path / "opt" / "venv"
    assert f"+ python3 -m venv --system-site-packages {venv}" in steps
    # The checkout is copied to a temporary folder and built there, never in place.
    (copy,) = [s for s in steps if s.startswith("+ cp -R ")]
    assert f"{REPO}/pyproject.toml" in copy and copy.endswith("'<a temporary folder>/'")
    (pip,) = [s for s in steps if s.startswith(f"+ {venv}/bin/pip install --quiet --upgrade '<")]
    assert pip.endswith("'<a temporary folder>[pi,spi,firmware]'")
    assert str(REPO) not in pip
    assert steps[-1] == f"+ {venv}/bin/toptable service install"
    assert lines[-1] == "install.sh: dry run done: nothing was changed"
    # The documented order (README.md, "On a Pi"): apt packages, a venv that sees
    # them, then pip (which keeps apt's numpy/lgpio/spidev), then the service.
    order = [
        next(i for i, line in enumerate(lines) if needle in line)
        for needle in ("python3-lgpio", " -m venv --system-site-packages ", "[pi,spi,firmware]")
        if any(needle in line for line in lines)  # apt's lgpio may be there already
    ]
    assert order == sorted(order) and order[-1] < lines.index(steps[-1])


def test_install_from_a_wheel_with_a_board_serial(tmp_path: Path, scratch: dict[str, str]) -> None:
    wheel = tmp_path / "toptable-0.1.0-py3-none-any.whl"
    wheel.write_bytes(b"")
    lines = dry_run(INSTALL, scratch, "--from", str(wheel), "--board-serial", "E661", "--start")
    venv = tmp_path / "opt" / "venv"
    assert f"+ {venv}/bin/pip install --quiet --upgrade '{wheel}[pi,spi,firmware]'" in lines
    # then the wheel itself again: pip keeps an installed toptable of the same version
    assert f"+ {venv}/bin/pip install --quiet --force-reinstall --no-deps {wheel}" in lines
    assert not any(s.startswith("+ cp ") for s in lines)
    assert lines[-2] == f"+ {venv}/bin/toptable service install --board-serial E661 --start"


def test_install_keeps_an_existing_venv(tmp_path: Path, scratch: dict[str, str]) -> None:
    venv_bin = tmp_path / "opt" / "venv" / "bin"
    venv_bin.mkdir(parents=True)
    (venv_bin / "python").symlink_to(shutil.which("true") or "/bin/true")
    lines = dry_run(INSTALL, scratch)
    assert f"install.sh: virtual environment {tmp_path}/opt/venv exists" in lines
    assert not any(" -m venv " in line for line in lines)


def test_install_refuses_a_missing_wheel(tmp_path: Path, scratch: dict[str, str]) -> None:
    result = subprocess.run(
        ["bash", str(INSTALL), "--dry-run", "--from", str(tmp_path / "nope.whl")],
        capture_output=True,
        text=True,
        env=scratch,
        timeout=30,
    )
    assert result.returncode == 2
    assert result.stderr == f"install.sh: error: --from {tmp_path}/nope.whl: no such wheel file\n"


def test_uninstall_dry_run(tmp_path: Path, scratch: dict[str, str]) -> None:
    assert dry_run(UNINSTALL, scratch)[1:5] == [
        f"uninstall.sh: no unit at {tmp_path}/units/toptable.service",
        f"uninstall.sh: no udev rule at {tmp_path}/rules/99-toptable-board.rules",
        f"uninstall.sh: no modules-load file at {tmp_path}/modules/toptable.conf",
        f"uninstall.sh: nothing at {tmp_path}/opt",
    ]
    for folder in ("units", "rules", "opt", "etc", "state", "modules"):
        (tmp_path / folder).mkdir()
    (tmp_path / "modules" / "toptable.conf").write_text("i2c_dev\n")
    (tmp_path / "units" / "toptable.service").write_text("")
    (tmp_path / "units" / "toptable.service.d").mkdir()
    (tmp_path / "rules" / "99-toptable-board.rules").write_text("")
    kept = dry_run(UNINSTALL, scratch)
    assert "+ systemctl disable --now toptable.service" in kept
    assert f"+ rm -rf {tmp_path}/opt" in kept
    assert f"+ rm -rf {tmp_path}/units/toptable.service.d" in kept
    assert f"+ rm -f {tmp_path}/modules/toptable.conf" in kept  # as `service uninstall` does
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


# ----------------------------------------------------------------- install paths (issue 25)
@pytest.mark.parametrize("name", ["install.sh", "uninstall.sh"])
def test_a_printed_script_runs_on_its_own(
    tmp_path: Path, scratch: dict[str, str], name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`toptable service files install.sh > install.sh` beside no lib.sh still runs."""
    assert main(["service", "files", name]) == 0
    script = tmp_path / "alone" / name
    script.parent.mkdir()
    script.write_text(capsys.readouterr().out)
    args = ["--from", str(REPO)] if name == "install.sh" else []
    lines = dry_run(script, scratch, *args)  # exit 0: before, it stopped at `source lib.sh`
    assert lines and lines[0].startswith(name)


def test_the_apt_probe_leaves_nothing_in_the_current_folder(
    tmp_path: Path, scratch: dict[str, str]
) -> None:
    """Importing lgpio makes a pipe (.lgd-nfy0) in the current folder: the probe must not."""
    fake = tmp_path / "site"
    fake.mkdir()
    for module in ("lgpio", "spidev"):  # what importing the real lgpio does to the folder
        (fake / f"{module}.py").write_text("open('.lgd-nfy0', 'w').close()\n")
    cwd = tmp_path / "checkout"
    cwd.mkdir()
    env = {**scratch, "PYTHONPATH": str(fake)}
    result = subprocess.run(
        ["bash", str(INSTALL), "--dry-run"],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    assert "missing apt packages" not in result.stdout  # found on the path all the same
    assert list(cwd.iterdir()) == []


def test_the_units_documentation_is_a_file_the_install_writes(
    unit: dict[str, list[str]], tmp_path: Path
) -> None:
    (doc,) = unit["Unit.Documentation"]
    assert doc.startswith("file:/")
    root = tmp_path / "root"
    assert main(["service", "install", "--root", str(root), "--exec", EXEC_START.split()[0]]) == 0
    assert (root / doc.removeprefix("file:/")).is_file()
