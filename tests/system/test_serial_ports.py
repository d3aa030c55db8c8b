"""The serial ports ``toptable service identify-board`` finds in sysfs (a fake /sys and /dev)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from controller.cli.main import main
from controller.system.serial_ports import find_serial_devices

pytestmark = pytest.mark.timeout(30)


def add_tty(sys_root: Path, name: str, device: bool) -> None:
    """A tty in /sys/class/tty, with a ``device`` link to its platform device or without."""
    platform = sys_root / "devices" / "platform" / f"{name}.serial"
    tty = platform / "tty" / name
    tty.mkdir(parents=True)
    if device:
        (tty / "device").symlink_to(os.path.relpath(platform, tty))
    (sys_root / "class" / "tty").mkdir(parents=True, exist_ok=True)
    (sys_root / "class" / "tty" / name).symlink_to(os.path.relpath(tty, sys_root / "class/tty"))


def test_a_uart_name_with_no_device_behind_it_is_not_a_port(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """sysfs can list a tty no hardware stands behind (no ``device`` link), even one
    /dev/serial1 points at: opening it fails, so it is not offered as the board's port."""
    sys_root, dev = tmp_path / "sys", tmp_path / "dev"
    dev.mkdir()
    add_tty(sys_root, "ttyAMA0", device=True)
    add_tty(sys_root, "ttyAMA1", device=False)
    add_tty(sys_root, "ttyS0", device=False)
    (dev / "serial0").symlink_to("ttyAMA0")
    (dev / "serial1").symlink_to("ttyS0")
    assert [(d.name, d.kind) for d in find_serial_devices(sys_root, dev)] == [("ttyAMA0", "uart")]
    args = ["service", "identify-board", "--sysfs", str(sys_root), "--devfs", str(dev)]
    assert main(args) == 0
    assert capsys.readouterr().out.splitlines() == ["/dev/ttyAMA0  uart  also /dev/serial0"]
