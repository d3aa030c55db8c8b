"""``toptable service install|uninstall|identify-board|files``: the service from the installed package."""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from controller.cli.flags import CONFIG_FILE, ExistingDir, OutputDir, Text
from controller.system.install_steps import carry_out
from controller.system.serial_ports import find_serial_devices
from controller.system.service import (
    InstallOptions,
    check_can_install,
    install,
    plan_uninstall,
)
from controller.system.unit_files import SHIPPED_FILES, standalone_text


def register(sub: Any) -> None:
    """Add the ``service`` subcommands."""
    service = sub.add_parser(
        "service", help="install the systemd service; find the board's Pico by serial number"
    )
    ssub = service.add_subparsers(dest="service_command", metavar="ACTION", required=True)

    p = ssub.add_parser(
        "install",
        help="write the unit, the udev rule and the config, then enable the service (as root)",
        description=(
            "Create the toptable user, write /etc/systemd/system/toptable.service (running this "
            "environment's toptable), the udev rule pinning the board's Pico by USB serial "
            "number, /etc/toptable/config.toml (only if there is none) and, for a board on a "
            "UART, a drop-in allowing it; then reload udev and systemd and enable the service."
        ),
    )
    p.add_argument("--dry-run", action="store_true", help="print every step, change nothing")
    p.add_argument(
        "--root",
        "--prefix",
        type=OutputDir(),
        default=Path("/"),
        metavar="DIR",
        help="write the files under DIR instead of / and run no system command (staging)",
    )
    p.add_argument(
        "--board-serial",
        metavar="SERIAL",
        type=Text(),
        help="the board's Pico's USB serial number (default: the one Pico plugged in)",
    )
    p.add_argument(
        "--config",
        type=CONFIG_FILE,
        metavar="PATH",
        help="the config whose [board] port decides the UART drop-in "
        "(default: ROOT/etc/toptable/config.toml, else the example)",
    )
    p.add_argument(
        "--exec",
        dest="exec_path",
        metavar="PATH",
        type=Text("a program's path"),
        help="the toptable program ExecStart= runs (default: this environment's)",
    )
    p.add_argument("--start", action="store_true", help="(re)start the service at the end")
    # The tests' fake sysfs and /dev.
    p.add_argument("--sysfs", type=ExistingDir(), default=Path("/sys"), help=argparse.SUPPRESS)
    p.add_argument("--devfs", type=ExistingDir(), default=Path("/dev"), help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_install)

    p = ssub.add_parser(
        "uninstall",
        help="disable the service and remove its unit, drop-ins and udev rule (as root)",
    )
    p.add_argument("--dry-run", action="store_true", help="print every step, change nothing")
    p.add_argument(
        "--purge", action="store_true", help="also remove the config, the journal, the user"
    )
    p.add_argument("--root", "--prefix", type=OutputDir(), default=Path("/"), metavar="DIR")
    p.set_defaults(func=cmd_uninstall)

    p = ssub.add_parser(
        "identify-board",
        help="list the serial ports with their USB serial numbers (find the board's Pico)",
    )
    p.add_argument("--json", action="store_true", help="one JSON object per port")
    p.add_argument("--sysfs", type=ExistingDir(), default=Path("/sys"), help=argparse.SUPPRESS)
    p.add_argument("--devfs", type=ExistingDir(), default=Path("/dev"), help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_identify)

    p = ssub.add_parser("files", help="print a shipped service file (unit, udev rule, example...)")
    p.add_argument("name", choices=SHIPPED_FILES)
    p.set_defaults(func=cmd_files)


def cmd_install(args: argparse.Namespace) -> int:
    """Install (or stage, or print) the service."""
    opts = InstallOptions(
        root=args.root,
        start=args.start,
        board_serial=args.board_serial,
        exec_path=args.exec_path,
        config=args.config,
        sys_root=args.sysfs,
        dev_root=args.devfs,
    )
    install(opts, sys.stdout, dry_run=args.dry_run)
    if not args.dry_run and opts.live:
        print(
            "toptable is installed. Next: edit /etc/toptable/config.toml, check it with\n"
            "  sudo -u toptable toptable config check /etc/toptable/config.toml\n"
            "then: sudo systemctl start toptable; journalctl -u toptable -f"
        )
    return 0


def cmd_uninstall(args: argparse.Namespace) -> int:
    """Take the service away (or print the steps)."""
    steps = plan_uninstall(args.root, purge=args.purge)
    if not args.dry_run:
        check_can_install(InstallOptions(root=args.root), "uninstall")
    carry_out(steps, sys.stdout, dry_run=args.dry_run)
    return 0


def cmd_identify(args: argparse.Namespace) -> int:
    """List the serial ports; exit 1 when there is none."""
    devices = find_serial_devices(args.sysfs, args.devfs)
    for device in devices:
        if args.json:
            print(json.dumps({**asdict(device), "path": device.path, "is_pico": device.is_pico}))
        else:
            print(device.describe())
    if not devices:
        print("no USB serial port or UART found (is the board plugged in?)", file=sys.stderr)
        return 1
    return 0


def cmd_files(args: argparse.Namespace) -> int:
    """Print one shipped file (a script with lib.sh inlined: it runs on its own)."""
    sys.stdout.write(standalone_text(args.name))
    return 0
