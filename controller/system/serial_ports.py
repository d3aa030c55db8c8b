"""The serial ports a board can be on: USB devices (with their USB serial numbers) and UARTs.

Read from sysfs (``/sys/class/tty``), so it needs no permission to open a port:
``toptable service identify-board`` lists them, and ``toptable service install``
uses them to pin the udev rule to one Pico by its USB serial number and to tell
whether the configured port is a UART (which the unit must be allowed to open).
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path

from controller.core.errors import TopTableError
from controller.core.quoting import short_repr

# Raspberry Pi's USB vendor id, which its other USB devices share.
PICO_VENDOR_ID = "2e8a"
# MicroPython's USB product id on a Pico and a Pico 2 (its rp2 port's MICROPY_HW_USB_PID).
PICO_PRODUCT_ID = "0005"
# Other Raspberry Pi USB serial devices that are not the board, by product id.
OTHER_PI_DEVICES = {
    "000c": "a Raspberry Pi Debug Probe",
    "000a": "a Pico running a C program (the Pico SDK's USB serial)",
}

# Kernel tty names -> the device group in /proc/devices that systemd's DeviceAllow= names.
_TTY_GROUPS: tuple[tuple[re.Pattern[str], str, str], ...] = (
    (re.compile(r"ttyACM\d+"), "char-ttyACM", "usb"),  # USB CDC (the Pico)
    (re.compile(r"ttyUSB\d+"), "char-ttyUSB", "usb"),  # USB-serial adapters (FTDI, CP210x...)
    (re.compile(r"ttyAMA\d+"), "char-ttyAMA", "uart"),  # the Pi's PL011 UARTs
    (re.compile(r"ttyS\d+"), "char-ttyS", "uart"),  # the Pi's mini UART (serial0 on a Pi 3/4)
)
_USB_SERIAL_LINK = re.compile(r"-port\d+$")
# The udev rule's link to the board (99-toptable-board.rules).
BOARD_LINK = "/dev/toptable-board"
# Raspberry Pi OS's names for the header UART (GPIO14/15) and the other one.
_UART_ALIASES = ("serial0", "serial1")
EXPECTED_PORT = (
    "a serial tty such as /dev/toptable-board (the udev link), /dev/ttyACM0, /dev/ttyUSB0, "
    "/dev/ttyAMA0 or /dev/serial0"
)


class SerialPortError(TopTableError, ValueError):
    """A configured serial port that cannot be a board's port."""


@dataclass(frozen=True)
class SerialDevice:
    """One tty seen in sysfs."""

    name: str  # the kernel name, e.g. "ttyACM0"
    kind: str  # "usb" or "uart"
    vendor_id: str = ""  # USB only, 4 hex digits
    product_id: str = ""
    serial: str = ""  # the USB serial number (iSerial): what ATTRS{serial} matches
    manufacturer: str = ""
    product: str = ""
    aliases: tuple[str, ...] = field(default=())  # /dev links to it: serial0, toptable-board...

    @property
    def path(self) -> str:
        return f"/dev/{self.name}"

    @property
    def is_pico(self) -> bool:
        """A Pico running MicroPython (vendor and product id), what the board is."""
        return (
            self.kind == "usb"
            and self.vendor_id == PICO_VENDOR_ID
            and self.product_id == PICO_PRODUCT_ID
        )

    @property
    def skipped_as(self) -> str | None:
        """What another Raspberry Pi USB device is (a Debug Probe...); None otherwise."""
        if self.kind != "usb" or self.vendor_id != PICO_VENDOR_ID or self.is_pico:
            return None
        return OTHER_PI_DEVICES.get(
            self.product_id, f"a Raspberry Pi USB device {self.vendor_id}:{self.product_id}"
        )

    def describe(self) -> str:
        """One line for people."""
        parts = [self.path, self.kind]
        if self.kind == "usb":
            parts.append(f"{self.vendor_id}:{self.product_id}")
            parts.append(f"serial {self.serial or '(none)'}")
            label = " ".join(p for p in (self.manufacturer, self.product) if p)
            if label:
                parts.append(label)
            if self.is_pico:
                parts.append("<- a Raspberry Pi Pico")
            elif self.skipped_as is not None:
                parts.append(f"<- {self.skipped_as}, not a Pico running MicroPython")
        if self.aliases:
            parts.append("also " + ", ".join(f"/dev/{a}" for a in self.aliases))
        return "  ".join(parts)


def _read(folder: Path, name: str) -> str:
    try:
        return (folder / name).read_text(errors="replace").strip()
    except OSError:
        return ""


def _usb_device_dir(tty_dir: Path, sys_root: Path) -> Path | None:
    """The USB device folder above a tty (the one with idVendor), or None."""
    try:
        here = (tty_dir / "device").resolve(strict=True)
    except OSError:
        return None
    top = (sys_root / "devices").resolve()
    for _ in range(8):
        if (here / "idVendor").is_file():
            return here
        if here == top or here.parent == here:
            return None
        here = here.parent
    return None


def _aliases(dev_root: Path) -> dict[str, list[str]]:
    """Kernel tty name -> the names of /dev symlinks pointing at it (top level only)."""
    found: dict[str, list[str]] = {}
    try:
        entries = sorted(dev_root.iterdir())
    except OSError:
        return found
    for entry in entries:
        if not entry.is_symlink():
            continue
        try:
            target = os.readlink(entry)
        except OSError:
            continue
        found.setdefault(Path(target).name, []).append(entry.name)
    return found


def find_serial_devices(
    sys_root: Path = Path("/sys"), dev_root: Path = Path("/dev")
) -> list[SerialDevice]:
    """Every USB serial port and Pi UART in sysfs, USB ones first, by name."""
    aliases = _aliases(dev_root)
    uart_targets = {
        target for target, names in aliases.items() if any(n in _UART_ALIASES for n in names)
    }
    devices: list[SerialDevice] = []
    try:
        ttys = sorted((sys_root / "class" / "tty").iterdir())
    except OSError:
        return devices
    for tty in ttys:
        name = tty.name
        usb = _usb_device_dir(tty, sys_root)
        also = tuple(aliases.get(name, ()))
        if usb is not None:
            devices.append(
                SerialDevice(
                    name,
                    "usb",
                    vendor_id=_read(usb, "idVendor").lower(),
                    product_id=_read(usb, "idProduct").lower(),
                    serial=_read(usb, "serial"),
                    manufacturer=_read(usb, "manufacturer"),
                    product=_read(usb, "product"),
                    aliases=also,
                )
            )
        elif (name.startswith("ttyAMA") or name in uart_targets) and (tty / "device").exists():
            devices.append(SerialDevice(name, "uart", aliases=also))
    devices.sort(key=lambda d: (d.kind != "usb", d.name))
    return devices


def picos(devices: list[SerialDevice]) -> list[SerialDevice]:
    """The Raspberry Pi Picos running MicroPython among ``devices``."""
    return [d for d in devices if d.is_pico]


def skipped_text(devices: list[SerialDevice]) -> str:
    """``; skipped /dev/ttyACM1 (a Raspberry Pi Debug Probe)`` for the Pi devices that are
    not the board, or ``""``."""
    skipped = [f"{d.path} ({d.skipped_as})" for d in devices if d.skipped_as is not None]
    return f"; skipped {', '.join(skipped)}" if skipped else ""


_SERIAL_NUMBER = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def check_serial_number(serial: str, option: str = "--board-serial") -> str:
    """A USB serial number fit for a udev rule (letters, digits, ``._-``).

    Raises:
        SerialPortError: anything else (it would break or widen the rule).
    """
    if not _SERIAL_NUMBER.fullmatch(serial):
        raise SerialPortError(
            f"{option} {short_repr(serial)}: expected a USB serial number (letters, digits, '.', '_', '-'; "
            "a Pico's is 16 hex digits: see `toptable service identify-board`)"
        )
    return serial


def device_groups(port: str, dev_root: Path = Path("/dev"), where: str = "port") -> list[str]:
    """The DeviceAllow= groups the service needs beyond its unit to open ``port``.

    ``[]`` for the board's udev link and USB CDC ports (the unit allows
    ``char-ttyACM``); the UART's group for a UART or a USB-serial adapter. A path
    that exists must be a character device with a tty's name; one that does not
    exist (a board not plugged in, a staged install) is judged by its name.
    ``dev_root`` stands for ``/dev`` (the tests' fake one).

    Raises:
        SerialPortError: not a serial tty; ``where`` names the option in the message.
    """
    path = Path(port)
    if not path.is_absolute():
        raise SerialPortError(
            f"{where} {short_repr(port)}: expected {EXPECTED_PORT} (an absolute path)"
        )
    name = path.name
    try:
        live = dev_root / path.relative_to("/dev")
    except ValueError:
        live = path
    try:
        there = live.exists() or live.is_symlink()
        if there:
            real = live.resolve(strict=True)
            mode = real.stat().st_mode
    except OSError as exc:  # a name too long, a folder not searchable...
        raise SerialPortError(
            f"{where} {short_repr(port)}: {exc.strerror or exc}; expected {EXPECTED_PORT}"
        ) from None
    if there:
        if not stat.S_ISCHR(mode):
            raise SerialPortError(
                f"{where} {short_repr(port)} is not a tty device; expected {EXPECTED_PORT}"
            )
        name = real.name
    elif port.startswith("/dev/serial/by-"):
        # systemd's 60-serial.rules ends the link of a usb-serial device (ttyUSB*: FTDI,
        # CP210x) with "-port$attr{port_number}"; a USB CDC port's (a Pico's) has none.
        return ["char-ttyUSB"] if _USB_SERIAL_LINK.search(name) else []
    elif port == BOARD_LINK:
        return []  # the udev link: a Pico, char-ttyACM
    elif name in _UART_ALIASES:
        return ["char-ttyAMA", "char-ttyS"]  # whichever UART it will point to
    for pattern, group, _kind in _TTY_GROUPS:
        if pattern.fullmatch(name):
            return [] if group == "char-ttyACM" else [group]
    raise SerialPortError(
        f"{where} {short_repr(port)} is not a tty device; expected {EXPECTED_PORT}"
    )
