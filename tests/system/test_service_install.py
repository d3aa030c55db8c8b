"""``toptable service install`` into a scratch root, and ``service identify-board`` on a fake sysfs."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.system.install_steps import StepAction
from controller.system.serial_ports import (
    SerialPortError,
    check_serial_number,
    device_groups,
    find_serial_devices,
)
from controller.system.service import InstallOptions, choose_board_serial, plan_install
from controller.system.unit_files import (
    BUILT_IN_GROUPS,
    DEFAULT_EXEC,
    GROUP_MODULES,
    ServiceError,
    allowed_groups,
    render_rule,
    shipped_text,
)

pytestmark = pytest.mark.timeout(30)

PICO = {"idVendor": "2e8a", "idProduct": "0005", "manufacturer": "MicroPython"}
PICO_SERIAL = "E6614103E7171234"
EXEC = "/opt/toptable/venv/bin/toptable"
# a program that exists, outside the folders the unit hides (a checkout under /tmp is)
A_PROGRAM = "/bin/sh"


def add_usb_tty(sys_root: Path, name: str, port: str, attrs: dict[str, str]) -> None:
    """A USB tty laid out as the kernel does: class link -> interface -> device with idVendor."""
    device = sys_root / "devices" / "platform" / "usb1" / "1-1" / f"1-1.{port}"
    interface = device / f"1-1.{port}:1.0"
    tty = interface / "tty" / name
    tty.mkdir(parents=True)
    for key, value in attrs.items():
        (device / key).write_text(value + "\n")
    (tty / "device").symlink_to(os.path.relpath(interface, tty))
    (sys_root / "class" / "tty").mkdir(parents=True, exist_ok=True)
    (sys_root / "class" / "tty" / name).symlink_to(os.path.relpath(tty, sys_root / "class/tty"))


def add_uart(sys_root: Path, name: str) -> None:
    platform = sys_root / "devices" / "platform" / f"{name}.serial"
    tty = platform / "tty" / name
    tty.mkdir(parents=True)
    (tty / "device").symlink_to(os.path.relpath(platform, tty))
    (sys_root / "class" / "tty").mkdir(parents=True, exist_ok=True)
    (sys_root / "class" / "tty" / name).symlink_to(os.path.relpath(tty, sys_root / "class/tty"))
    # a virtual console: no device link, never listed
    (sys_root / "devices" / "virtual" / "tty" / "tty1").mkdir(parents=True, exist_ok=True)
    if not (sys_root / "class" / "tty" / "tty1").exists():
        (sys_root / "class" / "tty" / "tty1").symlink_to("../../devices/virtual/tty/tty1")


@pytest.fixture
def machine(tmp_path: Path) -> tuple[Path, Path]:
    """A fake /sys and /dev: the board's Pico, a USB-serial adapter and the Pi's UART."""
    sys_root, dev = tmp_path / "sys", tmp_path / "dev"
    dev.mkdir()
    add_usb_tty(sys_root, "ttyACM0", "2", {**PICO, "serial": PICO_SERIAL, "product": "Board"})
    add_usb_tty(sys_root, "ttyUSB0", "3", {"idVendor": "0403", "idProduct": "6001"})
    add_uart(sys_root, "ttyAMA0")
    (dev / "serial0").symlink_to("ttyAMA0")
    (dev / "toptable-board").symlink_to("ttyACM0")
    return sys_root, dev


def staged(root: Path, **kw: object) -> list[str]:
    """Run ``toptable service install --root ROOT ...``; return its output lines."""
    args = ["service", "install", "--root", str(root), "--exec", EXEC]
    for key, value in kw.items():
        args += [f"--{key.replace('_', '-')}", str(value)]
    return args


# ----------------------------------------------------------------- identify-board
def test_identify_board_lists_usb_serial_numbers_and_uarts(
    machine: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    sys_root, dev = machine
    devices = find_serial_devices(sys_root, dev)
    assert [(d.name, d.kind, d.serial, d.is_pico) for d in devices] == [
        ("ttyACM0", "usb", PICO_SERIAL, True),
        ("ttyUSB0", "usb", "", False),
        ("ttyAMA0", "uart", "", False),
    ]
    args = ["service", "identify-board", "--sysfs", str(sys_root), "--devfs", str(dev)]
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (
        f"/dev/ttyACM0  usb  2e8a:0005  serial {PICO_SERIAL}  MicroPython Board  "
        "<- a Raspberry Pi Pico  also /dev/toptable-board"
    )
    assert lines[2] == "/dev/ttyAMA0  uart  also /dev/serial0"
    assert main([*args, "--json"]) == 0
    first = json.loads(capsys.readouterr().out.splitlines()[0])
    assert first["serial"] == PICO_SERIAL and first["is_pico"] and first["path"] == "/dev/ttyACM0"


def test_identify_board_with_nothing_plugged_in(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["service", "identify-board", "--sysfs", str(tmp_path), "--devfs", str(tmp_path)]
    assert main(args) == 1
    assert "no USB serial port or UART found" in capsys.readouterr().err


# ----------------------------------------------------------------- staging into a root
def test_install_into_a_root_writes_every_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    assert main(staged(root, board_serial=PICO_SERIAL)) == 0
    unit = (root / "etc/systemd/system/toptable.service").read_text()
    assert unit == shipped_text("toptable.service")
    assert f"ExecStart={DEFAULT_EXEC} run --config /etc/toptable/config.toml" in unit
    rule = (root / "etc/udev/rules.d/99-toptable-board.rules").read_text()
    assert f'ATTRS{{serial}}=="{PICO_SERIAL}", SYMLINK+="toptable-board"' in rule
    config = root / "etc/toptable/config.toml"
    assert config.read_text() == shipped_text("config.example.toml")
    assert stat.S_IMODE(config.stat().st_mode) == 0o640
    assert (root / "etc/toptable/config.example.toml").is_file()
    assert not (root / "etc/systemd/system/toptable.service.d").exists()  # a Pico on USB
    out = capsys.readouterr().out
    assert "the udev rule pins the board's Pico by USB serial number E6614103E7171234" in out
    assert "staging into" in out and "systemctl" not in out.replace("and systemctl steps", "")


def test_install_again_keeps_the_owners_config(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "etc/toptable").mkdir(parents=True)
    (root / "etc/toptable/config.toml").write_text("# mine\n")
    assert main(staged(root)) == 0
    assert (root / "etc/toptable/config.toml").read_text() == "# mine\n"


def test_dry_run_changes_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "root"
    assert main([*staged(root), "--dry-run"]) == 0
    assert not root.exists()
    lines = capsys.readouterr().out.splitlines()
    assert f"+ write {root}/etc/systemd/system/toptable.service (mode 0644)" in lines
    assert f"+ write {root}/etc/toptable/config.toml (mode 0640, group toptable)" in lines
    assert lines[-1] == "service install: dry run done: nothing was changed"


def test_the_state_directory_exists_after_install(tmp_path: Path) -> None:
    """`sudo -u toptable toptable config check` right after install needs /var/lib/toptable."""
    root = tmp_path / "root"
    assert main(staged(root)) == 0
    state = root / "var/lib/toptable"
    assert state.is_dir() and stat.S_IMODE(state.stat().st_mode) == 0o750
    steps = plan_install(InstallOptions(exec_path=A_PROGRAM))
    assert (
        "install",
        "-d",
        "-m",
        "0750",
        "-o",
        "toptable",
        "-g",
        "toptable",
        "/var/lib/toptable",
    ) in [s.argv for s in steps]


# ----------------------------------------------------------------- a board on a UART
def write_config(path: Path, port: str, backend: str = "serial") -> Path:
    path.write_text(f'[board]\nbackend = "{backend}"\nport = "{port}"\n')
    return path


@pytest.mark.parametrize(
    ("port", "groups"),
    [
        ("/dev/ttyAMA0", ["char-ttyAMA"]),
        ("/dev/serial0", ["char-ttyAMA", "char-ttyS"]),
        ("/dev/ttyS0", ["char-ttyS"]),
        ("/dev/ttyUSB0", ["char-ttyUSB"]),
    ],
)
def test_a_uart_board_gets_a_drop_in(tmp_path: Path, port: str, groups: list[str]) -> None:
    root = tmp_path / "root"
    config = write_config(tmp_path / "c.toml", port)
    assert main(staged(root, config=config)) == 0
    dropin = (root / "etc/systemd/system/toptable.service.d/50-uart.conf").read_text()
    assert [line for line in dropin.splitlines() if line.startswith("DeviceAllow=")] == [
        f"DeviceAllow={g} rw" for g in groups
    ]
    assert "[Service]" in dropin and port in dropin


def test_the_drop_in_goes_when_the_board_moves_back_to_usb(tmp_path: Path) -> None:
    root = tmp_path / "root"
    assert main(staged(root, config=write_config(tmp_path / "c.toml", "/dev/ttyAMA0"))) == 0
    dropin = root / "etc/systemd/system/toptable.service.d/50-uart.conf"
    assert dropin.exists()
    assert main(staged(root, config=write_config(tmp_path / "c.toml", "/dev/toptable-board"))) == 0
    assert not dropin.exists()
    assert main(staged(root, config=write_config(tmp_path / "c.toml", "x", "simulated"))) == 0


def test_the_installed_config_decides_without_config_option(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "etc/toptable").mkdir(parents=True)
    write_config(root / "etc/toptable/config.toml", "/dev/serial0")
    assert main(staged(root)) == 0
    assert (root / "etc/systemd/system/toptable.service.d/50-uart.conf").exists()


@pytest.mark.parametrize("port", ["/dev/sda1", "/dev/null", "relative/tty"])
def test_a_port_that_is_not_a_tty_is_refused_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], port: str
) -> None:
    config = write_config(tmp_path / "c.toml", port)
    assert main(staged(tmp_path / "root", config=config)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"toptable: error: [board] port in {config}: '{port}'")
    assert "expected a serial tty such as /dev/toptable-board" in err
    assert not (tmp_path / "root").exists()  # checked before anything is written


@pytest.mark.parametrize(
    ("text", "piece"),
    [
        ("a = " + "1" * 5000 + "\n", "not valid TOML: a number of more than"),
        ("a = " + "[" * 5000 + "]" * 5000 + "\n", "not valid TOML: nested too deeply"),
        ("\ufeff[board]\n", "starts with a UTF-8 byte-order mark"),
        ("[board]\nport = [" + "1, " * 5000 + "]\n", "must be a path string (got [1, 1, 1, "),
    ],
)
def test_a_config_that_is_no_toml_is_refused_in_one_short_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, piece: str
) -> None:
    config = tmp_path / "c.toml"
    config.write_text(text, encoding="utf-8")
    assert main(staged(tmp_path / "root", config=config)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and len(err) < 300
    assert err.startswith(f"toptable: error: {config}") and piece in err
    assert not (tmp_path / "root").exists()


def test_a_port_or_serial_number_too_long_is_one_short_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A port of 100,000 characters: Path.exists() raised OSError (File name too long), a
    traceback; a serial number that long was quoted whole."""
    config = write_config(tmp_path / "c.toml", "/dev/" + "y" * 100_000)
    assert main(staged(tmp_path / "root", config=config)) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"toptable: error: [board] port in {config}: '/dev/yyy")
    assert "(100005 characters): File name too long; expected a serial tty" in err
    assert err.count("\n") == 1 and len(err) < 400
    assert main(staged(tmp_path / "root", board_serial="y" * 100_000)) == 2
    err = capsys.readouterr().err
    assert err.startswith("toptable: error: --board-serial 'yyy") and len(err) < 400


def test_a_live_port_must_be_a_character_device(tmp_path: Path) -> None:
    dev = tmp_path / "dev"
    dev.mkdir()
    (dev / "ttyAMA0").write_text("")  # a plain file where the UART should be
    with pytest.raises(SerialPortError, match="'/dev/ttyAMA0' is not a tty device"):
        device_groups("/dev/ttyAMA0", dev_root=dev)
    (dev / "serial0").symlink_to("/dev/null")  # a character device, but not a tty
    with pytest.raises(SerialPortError, match="'/dev/serial0' is not a tty device"):
        device_groups("/dev/serial0", dev_root=dev)


@pytest.mark.parametrize(
    ("link", "groups"),
    [
        ("/dev/serial/by-id/usb-MicroPython_Board_in_FS_mode_E6614104-if00", []),
        ("/dev/serial/by-id/usb-FTDI_FT232R_USB_UART_A9XYZ-if00-port0", ["char-ttyUSB"]),
        ("/dev/serial/by-path/platform-fd500000.pcie-usb-0:1.3:1.0-port0", ["char-ttyUSB"]),
        ("/dev/serial/by-path/platform-fd500000.pcie-usb-0:1.2:1.0", []),
    ],
)
def test_a_link_unplugged_is_judged_by_the_name_udev_gives_it(
    tmp_path: Path, link: str, groups: list[str]
) -> None:
    """systemd's 60-serial.rules ends a usb-serial device's link (ttyUSB*) with
    -port$attr{port_number}; an adapter's link installed unplugged got no drop-in, and
    the service could not open it (DevicePolicy=closed)."""
    assert device_groups(link, dev_root=tmp_path) == groups


# ----------------------------------------------------------------- pinning the Pico
def live_options(machine: tuple[Path, Path], serial: str | None) -> InstallOptions:
    sys_root, dev = machine
    return InstallOptions(
        root=Path("/nonexistent-root"),
        board_serial=serial,
        exec_path=EXEC,
        sys_root=sys_root,
        dev_root=dev,
    )


def rule_of(steps: Sequence[object]) -> str:
    (rule,) = [s for s in steps if str(getattr(s, "path", "")).endswith(".rules")]
    return str(getattr(rule, "content", ""))


def test_the_one_pico_plugged_in_is_pinned(machine: tuple[Path, Path]) -> None:
    steps = plan_install(live_options(machine, None))
    assert f'ATTRS{{serial}}=="{PICO_SERIAL}"' in rule_of(list(steps))
    notes = [s.describe() for s in steps if s.action is StepAction.NOTE]
    assert any("(the one Pico plugged in, /dev/ttyACM0)" in n for n in notes)


def test_a_pico_replaced_since_the_install_is_the_one_pinned(machine: tuple[Path, Path]) -> None:
    """The owner replaced the board's Pico and installs again: the one plugged in wins over
    the serial number pinned before (review tests3 s11: /dev/toptable-board never came)."""
    sys_root, _dev = machine
    root = sys_root.parent / "root"
    rule = root / "etc" / "udev" / "rules.d" / "99-toptable-board.rules"
    rule.parent.mkdir(parents=True)
    rule.write_text(render_rule("E66141040000FFFF"))  # the old Pico's
    steps = plan_install(replace(live_options(machine, None), root=root))
    assert f'ATTRS{{serial}}=="{PICO_SERIAL}"' in rule_of(list(steps))


def test_a_pico_with_another_serial_number_is_refused(machine: tuple[Path, Path]) -> None:
    with pytest.raises(ServiceError) as info:
        plan_install(live_options(machine, "E66141040000FFFF"))
    assert str(info.value) == (
        "--board-serial E66141040000FFFF: no Pico with that USB serial number is plugged in; "
        f"expected one of {PICO_SERIAL} (see `toptable service identify-board`)"
    )


def test_two_picos_need_a_board_serial(machine: tuple[Path, Path]) -> None:
    sys_root, _dev = machine
    add_usb_tty(sys_root, "ttyACM1", "4", {**PICO, "serial": "E66141040000FFFF"})
    with pytest.raises(ServiceError, match=r"--board-serial: 2 Picos are plugged in \("):
        plan_install(live_options(machine, None))
    steps = plan_install(live_options(machine, "E66141040000FFFF"))
    assert 'ATTRS{serial}=="E66141040000FFFF"' in rule_of(list(steps))


def test_no_pico_plugged_in_leaves_the_rule_unpinned_and_says_so(tmp_path: Path) -> None:
    (tmp_path / "sys").mkdir()
    steps = plan_install(live_options((tmp_path / "sys", tmp_path), None))
    assert "ATTRS{serial}" not in rule_of(list(steps)).split("\n")[-2]
    assert any("ANY Pico" in s.describe() for s in steps if s.action is StepAction.NOTE)


def test_an_upgrade_with_the_board_unplugged_keeps_the_pinned_pico(tmp_path: Path) -> None:
    """A reinstall (install.sh is run again to upgrade) with no Pico plugged in used to
    write the rule anew for ANY Pico: the serial number pinned before was dropped."""
    (tmp_path / "sys").mkdir()
    root = tmp_path / "root"
    installed = root / "etc" / "udev" / "rules.d" / "99-toptable-board.rules"
    installed.parent.mkdir(parents=True)
    installed.write_text(render_rule(PICO_SERIAL))
    options = InstallOptions(
        root=root, exec_path=EXEC, sys_root=tmp_path / "sys", dev_root=tmp_path
    )
    steps = list(plan_install(options))
    assert f'ATTRS{{serial}}=="{PICO_SERIAL}"' in rule_of(steps)
    notes = [s.describe() for s in steps if s.action is StepAction.NOTE]
    assert any(f"keeps the board's Pico's USB serial number {PICO_SERIAL}" in n for n in notes)
    installed.write_text(render_rule(None))  # pinned to no Pico before: nothing to keep
    assert "ATTRS{serial}" not in rule_of(list(plan_install(options))).split("\n")[-2]
    # a plugged-in Pico, or --board-serial, still decides
    steps = list(plan_install(replace(options, board_serial="E66141040000FFFF")))
    assert 'ATTRS{serial}=="E66141040000FFFF"' in rule_of(steps)


@pytest.mark.parametrize("bad", ['E661", RUN+="/bin/sh', "", "a b"])
def test_a_serial_number_that_would_break_the_rule_is_refused(bad: str) -> None:
    with pytest.raises(SerialPortError, match=r"--board-serial .*: expected a USB serial number"):
        check_serial_number(bad)
    # the install's own contract (review truth f04): a ServiceError, as its docstring says
    with pytest.raises(ServiceError, match=r"--board-serial .*: expected a USB serial number"):
        choose_board_serial(bad, [], look=False)


def test_service_files_prints_a_shipped_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["service", "files", "toptable.service"]) == 0
    assert capsys.readouterr().out == shipped_text("toptable.service")


# ----------------------------------------------------------------- uninstall
def test_uninstall_takes_away_what_install_wrote(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root = tmp_path / "root"
    config = write_config(tmp_path / "c.toml", "/dev/ttyAMA0")
    assert main(staged(root, config=config)) == 0
    assert main(["service", "uninstall", "--root", str(root), "--dry-run"]) == 0
    assert (root / "etc/systemd/system/toptable.service").exists()
    capsys.readouterr()
    assert main(["service", "uninstall", "--root", str(root)]) == 0
    assert not (root / "etc/systemd/system/toptable.service").exists()
    assert not (root / "etc/systemd/system/toptable.service.d/50-uart.conf").exists()
    assert not (root / "etc/udev/rules.d/99-toptable-board.rules").exists()
    assert (root / "etc/toptable/config.toml").exists()  # kept without --purge
    assert "--purge removes them" in capsys.readouterr().out
    assert main(["service", "uninstall", "--root", str(root), "--purge"]) == 0
    assert not (root / "etc/toptable").exists()


def test_an_events_section_brings_the_network_drop_in(tmp_path: Path) -> None:
    root = tmp_path / "root"
    config = tmp_path / "c.toml"
    config.write_text('[events]\nbroker = "mqtt.local"\n')
    assert main(staged(root, config=config)) == 0
    events = root / "etc/systemd/system/toptable.service.d/toptable-events.conf"
    assert events.read_text() == shipped_text("toptable-events.conf")
    assert "AF_INET" in events.read_text()
    config.write_text("[board]\n")
    assert main(staged(root, config=config)) == 0
    assert not events.exists()


# ----------------------------------------------------------------- device groups at boot
def _modules(path: Path) -> list[str]:
    return [line for line in path.read_text().splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize(
    ("port", "extra"), [("/dev/toptable-board", []), ("/dev/ttyUSB0", ["usbserial"])]
)
def test_every_device_group_of_the_unit_is_registered_at_boot(
    tmp_path: Path, port: str, extra: list[str]
) -> None:
    """systemd resolves DeviceAllow=char-X from /proc/devices when the unit starts: each
    group's module is loaded at boot (modules-load.d), or a Pico plugged in later gets EPERM."""
    root = tmp_path / "root"
    assert main(staged(root, config=write_config(tmp_path / "c.toml", port))) == 0
    unit = (root / "etc/systemd/system/toptable.service").read_text()
    dropins = root / "etc/systemd/system/toptable.service.d"
    texts = [unit, *(p.read_text() for p in sorted(dropins.glob("*.conf")))]
    loaded = _modules(root / "etc/modules-load.d/toptable.conf")
    assert loaded == ["i2c_dev", "spidev", "cdc_acm", "videodev", *extra]
    for group in allowed_groups(*texts):
        assert group in BUILT_IN_GROUPS or GROUP_MODULES[group] in loaded, group
    assert "systemd-modules-load.service" in next(
        line for line in unit.splitlines() if line.startswith("After=")
    )
    assert main(["service", "uninstall", "--root", str(root)]) == 0
    assert not (root / "etc/modules-load.d/toptable.conf").exists()


def test_a_live_install_loads_the_modules_now() -> None:
    steps = plan_install(InstallOptions(exec_path=A_PROGRAM))
    (load,) = [s for s in steps if s.argv[:1] == ("modprobe",)]
    assert load.argv == ("modprobe", "--all", "i2c_dev", "spidev", "cdc_acm", "videodev")
    restart = [i for i, s in enumerate(steps) if s.argv[:2] == ("systemctl", "daemon-reload")]
    assert steps.index(load) < restart[0]  # before the unit (re)starts


# ----------------------------------------------------------------- not every 2e8a device is a Pico
DEBUG_PROBE = {"idVendor": "2e8a", "idProduct": "000c", "manufacturer": "Raspberry Pi"}


def test_a_debug_probe_is_not_taken_for_the_board(
    machine: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """The Raspberry Pi Debug Probe shares the Pico's vendor id (2e8a) but not its product id."""
    sys_root, dev = machine
    add_usb_tty(sys_root, "ttyACM1", "4", {**DEBUG_PROBE, "serial": "E663AC91D3487F2F"})
    devices = find_serial_devices(sys_root, dev)
    assert [d.name for d in devices if d.is_pico] == ["ttyACM0"]
    serial, note = choose_board_serial(None, devices, look=True)
    assert serial == PICO_SERIAL
    assert note.endswith(
        "(the one Pico plugged in, /dev/ttyACM0); skipped /dev/ttyACM1 (a Raspberry Pi Debug Probe)"
    )
    args = ["service", "identify-board", "--sysfs", str(sys_root), "--devfs", str(dev)]
    assert main(args) == 0
    probe = capsys.readouterr().out.splitlines()[1]
    assert probe.endswith("<- a Raspberry Pi Debug Probe, not a Pico running MicroPython")
    rule = parse_rule_pairs(render_rule(serial))
    assert ("ATTRS{idProduct}", "0005") in rule  # udev does not name the probe either


def test_only_a_debug_probe_plugged_in_means_no_board(tmp_path: Path) -> None:
    sys_root = tmp_path / "sys"
    add_usb_tty(sys_root, "ttyACM0", "2", {**DEBUG_PROBE, "serial": "E663AC91D3487F2F"})
    serial, note = choose_board_serial(None, find_serial_devices(sys_root, tmp_path), look=True)
    assert serial is None
    assert note.startswith("no Pico is plugged in")
    assert note.endswith("; skipped /dev/ttyACM0 (a Raspberry Pi Debug Probe)")


def parse_rule_pairs(text: str) -> list[tuple[str, str]]:
    rule = next(line for line in text.splitlines() if line.startswith("SUBSYSTEM"))
    pairs = [p.strip() for p in rule.split(",")]
    return [(k.strip(), v.strip().strip('"')) for k, _, v in (p.partition("==") for p in pairs)]
