"""The service's shipped files (unit, udev rule, drop-ins) rendered, and the board port a config names."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from controller.core.errors import TopTableError
from controller.core.quoting import short_repr
from controller.core.tomlfile import read_toml
from controller.system.serial_ports import (
    BOARD_LINK,
    SerialPortError,
    check_serial_number,
)

UNIT_NAME = "toptable.service"
RULE_NAME = "99-toptable-board.rules"
EXAMPLE_CONFIG = "config.example.toml"
DROPIN_NAME = "50-uart.conf"
# The drop-in opening IPv4/IPv6 for the MQTT events publisher: installed only when
# the config has an [events] section, removed otherwise.
EVENTS_DROPIN = "toptable-events.conf"
# modules-load.d: the modules that register the unit's device groups, loaded at boot.
MODULES_NAME = "toptable-modules.conf"
MODULES_PLACEHOLDER = "# @MODULES@"
# The broker of an evening (Mosquitto): its config drop-in and ACL, printed by
# `toptable service files NAME` (installed by hand on the broker's machine).
BROKER_CONFIG = "mosquitto-toptable.conf"
BROKER_ACL = "mosquitto-toptable.acl"
SHIPPED_FILES = (
    UNIT_NAME,
    RULE_NAME,
    EXAMPLE_CONFIG,
    EVENTS_DROPIN,
    MODULES_NAME,
    BROKER_CONFIG,
    BROKER_ACL,
    "install.sh",
    "uninstall.sh",
    "lib.sh",
)

SERVICE_USER = "toptable"
GROUPS = ("gpio", "i2c", "spi", "dialout", "video")
STATE_DIR = "/var/lib/toptable"
CONFIG_DIR = Path("/etc/toptable")
UNIT_DIR = Path("/etc/systemd/system")
RULES_DIR = Path("/etc/udev/rules.d")
MODULES_DIR = Path("/etc/modules-load.d")
MODULES_FILE = "toptable.conf"
# A device group of /proc/devices -> the module that registers it, for the groups
# that are not built into Raspberry Pi OS's kernel (gpiochip, dma_heap, ttyAMA and
# ttyS are). media is registered by mc, which videodev loads.
GROUP_MODULES = {
    "char-ttyACM": "cdc_acm",
    "char-ttyUSB": "usbserial",
    "char-i2c": "i2c_dev",
    "char-spi": "spidev",
    "char-video4linux": "videodev",
    "char-media": "videodev",
}
BUILT_IN_GROUPS = frozenset({"char-gpiochip", "char-dma_heap", "char-ttyAMA", "char-ttyS"})
# What the shipped unit's ExecStart= runs; replaced by the installing environment's toptable.
DEFAULT_EXEC = "/opt/toptable/venv/bin/toptable"
SERIAL_PLACEHOLDER = "@BOARD_SERIAL@"


class ServiceError(TopTableError, ValueError):
    """The service cannot be installed as asked."""


def shipped_text(name: str) -> str:
    """A file from the package's ``service_files`` folder."""
    return resources.files("controller.system").joinpath("service_files", name).read_text()


SCRIPT_LIBRARY = "lib.sh"
# The line of install.sh and uninstall.sh that reads lib.sh from beside them.
_SOURCE_LIBRARY = re.compile(r"^source .*/lib\.sh\"?$", re.MULTILINE)


def standalone_text(name: str) -> str:
    """A shipped file as ``toptable service files`` prints it: a script that sources
    ``lib.sh`` gets it inlined, so the printed script runs on its own.

    Raises:
        ServiceError: a script whose ``source .../lib.sh`` line is missing (a bug).
    """
    text = shipped_text(name)
    if not name.endswith(".sh") or name == SCRIPT_LIBRARY:
        return text
    library = shipped_text(SCRIPT_LIBRARY)
    inlined, count = _SOURCE_LIBRARY.subn(lambda _m: f"# lib.sh, inlined:\n{library}", text)
    if count != 1:  # pragma: no cover - the shipped scripts are tested
        raise ServiceError(f"{name}: expected one `source .../lib.sh` line, found {count}")
    return inlined


# ----------------------------------------------------------------- the files
def render_unit(exec_path: str = DEFAULT_EXEC) -> str:
    """The unit, running ``exec_path`` (written as one word of its command line)."""
    text = shipped_text(UNIT_NAME)
    if exec_path != DEFAULT_EXEC:
        text = text.replace(f"ExecStart={DEFAULT_EXEC} ", f"ExecStart={unit_word(exec_path)} ")
    return text


def unit_word(program: str) -> str:
    """``program`` as the first word of a unit's command line (systemd.service(5), "Command
    lines"): ``%`` doubled (else read as a specifier), and in double quotes when it holds a
    blank (else ``/opt/my venv/bin/toptable`` runs ``/opt/my``). A path holding a quote, a
    backslash or a control character, which systemd refuses, is refused before."""
    word = program.replace("%", "%%")
    return f'"{word}"' if any(c.isspace() for c in word) else word


def render_rule(serial: str | None) -> str:
    """The udev rule, pinned to the Pico with USB serial number ``serial`` (None: any Pico)."""
    text = shipped_text(RULE_NAME)
    match = f'ATTRS{{serial}}=="{SERIAL_PLACEHOLDER}", '
    rules = [line for line in text.splitlines() if match in line]
    if len(rules) != 1:  # pragma: no cover - the shipped file is tested
        raise ServiceError(f"{RULE_NAME}: the shipped rule has no {match.strip()} match")
    if serial is None:
        return text.replace(match, "")
    return text.replace(match, match.replace(SERIAL_PLACEHOLDER, check_serial_number(serial)))


def pinned_serial(rule_text: str) -> str | None:
    """The USB serial number an installed rule pins (None: it names any Pico, or the text
    holds no such rule)."""
    found = re.search(r'ATTRS\{serial\}=="([^"]*)"', rule_text)
    if found is None:
        return None
    try:  # a rule edited by hand into what no install writes is not carried on
        return check_serial_number(found.group(1), option="the installed rule's ATTRS{serial}")
    except SerialPortError:
        return None


def allowed_groups(*unit_texts: str) -> list[str]:
    """The ``DeviceAllow=char-...`` groups of a unit and its drop-ins, in order."""
    groups: list[str] = []
    for text in unit_texts:
        for line in text.splitlines():
            key, _, value = line.strip().partition("=")
            group = value.split()[0] if value.split() else ""
            if key == "DeviceAllow" and group.startswith("char-") and group not in groups:
                groups.append(group)
    return groups


def render_modules(*unit_texts: str) -> str:
    """The modules-load.d file loading every module the units' device groups need.

    Raises:
        ServiceError: a group neither built in nor in :data:`GROUP_MODULES` (a bug).
    """
    modules: list[str] = []
    for group in allowed_groups(*unit_texts):
        if group in BUILT_IN_GROUPS:
            continue
        if group not in GROUP_MODULES:  # pragma: no cover - the shipped unit is tested
            raise ServiceError(f"{UNIT_NAME}: no module known for DeviceAllow={group}")
        module = GROUP_MODULES[group]
        if module not in modules:
            modules.append(module)
    lines = "\n".join(f"{m}" for m in modules)
    return shipped_text(MODULES_NAME).replace(MODULES_PLACEHOLDER + "\n", "") + lines + "\n"


def render_uart_dropin(port: str, groups: Sequence[str]) -> str:
    """The drop-in that lets the unit open a board on ``port`` (a UART or USB-serial adapter)."""
    lines = [
        f"# Written by `toptable service install`: the board's port is {port},",
        "# which the unit's device allow-list (char-ttyACM for a Pico on USB) does not cover.",
        "[Service]",
        *(f"DeviceAllow={group} rw" for group in groups),
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class BoardPort:
    """The board's port as the config says, and the config file that says it."""

    port: str | None  # None: the simulated board (no port)
    source: str  # the config file read, for messages
    events: bool = False  # the config has an [events] section (the MQTT publisher)


def read_board_port(path: Path | None) -> BoardPort:
    """``[board] port`` of a config file (the shipped example when ``path`` is None).

    Raises:
        DataError: the file cannot be read, is not UTF-8 text or is not TOML (nested too
            deeply, a number of too many digits: :func:`~controller.core.tomlfile.read_toml`).
        ServiceError: ``[board]`` is no table, or its ``port`` no text.
    """
    name = str(path) if path is not None else f"the shipped {EXAMPLE_CONFIG}"
    data = read_toml(path) if path is not None else tomllib.loads(shipped_text(EXAMPLE_CONFIG))
    events = "events" in data
    board = data.get("board", {})
    if not isinstance(board, dict):
        raise ServiceError(f"{name}: [board] must be a table")
    if board.get("backend", "serial") != "serial":
        return BoardPort(None, name, events)
    port = board.get("port", BOARD_LINK)
    if not isinstance(port, str):
        raise ServiceError(f"{name}: [board] port must be a path string (got {short_repr(port)})")
    return BoardPort(port, name, events)
