"""``toptable service install``: put the daemon under systemd from the installed package.

The unit, the udev rule and the example config ship inside the package
(``controller/system/service_files/``, the one source of truth; the checkout's
``systemd/`` folder links to them), so a ``pip install`` of the wheel can set
the service up as well as a checkout can. The install is a list of
:class:`InstallStep` s made by :func:`plan_install` and carried out by :func:`carry_out`:
``--dry-run`` prints them, and ``--root DIR`` writes the files under ``DIR``
(a staging root, like ``DESTDIR``) and leaves the running system alone.

What it decides from the machine and the config:

- the udev rule matches the board's Pico by its USB serial number (``--board-serial``,
  or the one Pico plugged in); another Pico never takes ``/dev/toptable-board``;
- a board on a UART or a USB-serial adapter gets a drop-in
  (``/etc/systemd/system/toptable.service.d/50-uart.conf``) allowing that device group, since the
  unit's closed device policy allows only USB CDC ports (``char-ttyACM``);
- ``ExecStart=`` runs the ``toptable`` of the environment doing the install
  (which must not be under ``/home``: the unit's ``ProtectHome=`` hides it).
"""

from __future__ import annotations

import grp
import os
import pwd
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from controller.core.quoting import printable, short_repr
from controller.system.install_steps import (
    InstallStep,
    carry_out,
    mkdir_step,
    note_step,
    remove_step,
    run_step,
    write_step,
)
from controller.system.sandbox import HOMES, PRIVATE
from controller.system.serial_ports import (
    SerialDevice,
    SerialPortError,
    check_serial_number,
    device_groups,
    find_serial_devices,
    picos,
    skipped_text,
)
from controller.system.service_pause import SYSTEMD_RUNTIME, service_active
from controller.system.unit_files import (
    CONFIG_DIR,
    DROPIN_NAME,
    EVENTS_DROPIN,
    EXAMPLE_CONFIG,
    GROUPS,
    MODULES_DIR,
    MODULES_FILE,
    RULE_NAME,
    RULES_DIR,
    SERVICE_USER,
    STATE_DIR,
    UNIT_DIR,
    UNIT_NAME,
    ServiceError,
    pinned_serial,
    read_board_port,
    render_modules,
    render_rule,
    render_uart_dropin,
    render_unit,
    shipped_text,
)

# What the unit's sandbox hides from the service: ProtectHome=yes, PrivateTmp=yes.
_HIDDEN_FROM_SERVICE = {
    **{Path(home): "ProtectHome=yes" for home in HOMES},
    **{Path(tmp): "PrivateTmp=yes" for tmp in PRIVATE},
}


@dataclass(frozen=True)
class InstallOptions:
    """What ``toptable service install`` was asked."""

    root: Path = Path("/")
    start: bool = False
    board_serial: str | None = None
    exec_path: str | None = None  # None: the toptable next to the running Python
    config: Path | None = None  # None: ROOT/etc/toptable/config.toml if there, else the example
    sys_root: Path = Path("/sys")
    dev_root: Path = Path("/dev")

    @property
    def live(self) -> bool:
        """Installing on the running system (not into a staging root)."""
        return self.root == Path("/")


def default_exec_path() -> str:
    """The ``toptable`` program of the running environment."""
    return str(Path(sys.executable).parent / "toptable")


def _check_exec(exec_path: str, live: bool) -> str:
    path = Path(exec_path)
    if not path.is_absolute():
        raise ServiceError(
            f"--exec {printable(exec_path)}: expected an absolute path to the toptable program"
        )
    if any(c in "\"'\\" or not c.isprintable() for c in exec_path):
        # systemd refuses such an ExecStart= ("Executable name contains special characters")
        raise ServiceError(
            f"--exec {short_repr(exec_path)}: systemd runs no program whose path holds a "
            "quote, a backslash or a control character; expected toptable installed at a "
            "plainer path, e.g. /opt/toptable/venv/bin/toptable"
        )
    if live and not os.access(path, os.X_OK):
        raise ServiceError(
            f"--exec {printable(exec_path)}: no such program; expected the toptable program of the "
            "environment to run (e.g. /opt/toptable/venv/bin/toptable)"
        )
    for hidden, setting in _HIDDEN_FROM_SERVICE.items():
        if path.is_relative_to(hidden):
            raise ServiceError(
                f"--exec {printable(exec_path)}: the unit's {setting} hides {hidden} from the service; "
                "expected toptable installed outside it, e.g. in /opt/toptable/venv "
                "(python3 -m venv --system-site-packages /opt/toptable/venv)"
            )
    return exec_path


def choose_board_serial(
    given: str | None, devices: list[SerialDevice], look: bool, installed: str | None = None
) -> tuple[str | None, str]:
    """The serial number the rule pins, and a sentence about the choice.

    ``look``: the Picos plugged in here are the board's candidates (a live install).
    ``installed``: the serial number the rule installed before pins: kept when no Pico is
    plugged in and none is given (an upgrade with the board unplugged).

    Raises:
        ServiceError: ``given`` is no USB serial number or matches none of the Picos
            plugged in, or several Picos are plugged in and none was given.
    """
    found = picos(devices) if look else []
    skipped = skipped_text(devices) if look else ""
    numbers = [d.serial for d in found if d.serial]
    if given is not None:
        try:
            check_serial_number(given)
        except SerialPortError as exc:
            raise ServiceError(str(exc)) from None
        if numbers and given not in numbers:
            raise ServiceError(
                f"--board-serial {given}: no Pico with that USB serial number is plugged in; "
                f"expected one of {', '.join(numbers)} (see `toptable service identify-board`)"
            )
        where = " (plugged in)" if given in numbers else " (not plugged in now)"
        return given, (
            f"the udev rule pins the board's Pico by USB serial number {given}{where}{skipped}"
        )
    if len(numbers) == 1:
        return numbers[0], (
            f"the udev rule pins the board's Pico by USB serial number {numbers[0]} "
            f"(the one Pico plugged in, {found[0].path}){skipped}"
        )
    if len(numbers) > 1:
        raise ServiceError(
            f"--board-serial: {len(numbers)} Picos are plugged in ({', '.join(numbers)}); "
            "expected --board-serial with the board's (see `toptable service identify-board`)"
            f"{skipped}"
        )
    if installed is not None:
        return installed, (
            f"the udev rule keeps the board's Pico's USB serial number {installed} (pinned "
            f"by the install before; no Pico is plugged in now){skipped}"
        )
    return None, (
        "no Pico is plugged in and no --board-serial given: the udev rule names ANY Pico "
        "/dev/toptable-board; plug the board in and install again to pin it by its serial number"
        f"{skipped}"
    )


def plan_install(opts: InstallOptions) -> list[InstallStep]:
    """Every step of the install, in order. Checks the inputs; changes nothing.

    Raises:
        ServiceError: a bad --exec, --board-serial or --config, or a config
            whose board port is not a serial tty.
        DataError: a --config that cannot be read or is not TOML.
    """
    exec_path = _check_exec(opts.exec_path or default_exec_path(), opts.live)
    config_dir = opts.root / CONFIG_DIR.relative_to("/")
    unit_dir = opts.root / UNIT_DIR.relative_to("/")
    rules_dir = opts.root / RULES_DIR.relative_to("/")
    config = config_dir / "config.toml"

    # The config that says where the board is: --config, else the installed one, else the example.
    config_in = opts.config if opts.config is not None else (config if config.is_file() else None)
    board = read_board_port(config_in)
    groups: list[str] = []
    if board.port is not None:
        try:
            groups = device_groups(
                board.port,
                dev_root=opts.dev_root if opts.live else Path("/nonexistent-dev"),
                where=f"[board] port in {board.source}:",
            )
        except SerialPortError as exc:
            raise ServiceError(str(exc)) from None
    look = opts.live or opts.sys_root != Path("/sys")
    devices = find_serial_devices(opts.sys_root, opts.dev_root) if look else []
    rule = rules_dir / RULE_NAME
    installed = (
        pinned_serial(rule.read_text(encoding="utf-8", errors="replace"))
        if rule.is_file()
        else None
    )
    serial, serial_note = choose_board_serial(opts.board_serial, devices, look, installed)

    steps: list[InstallStep] = []
    if opts.live:
        for group in GROUPS:
            if _exists(grp.getgrnam, group):
                steps.append(note_step(f"group {group} exists"))
            else:
                steps.append(run_step("groupadd", "--system", group))
        if _exists(pwd.getpwnam, SERVICE_USER):
            steps.append(note_step(f"user {SERVICE_USER} exists"))
        else:
            steps.append(
                run_step(
                    *("useradd", "--system", "--user-group", "--home-dir", STATE_DIR),
                    *("--no-create-home", "--shell", "/usr/sbin/nologin"),
                    *("--comment", "toptable game table", SERVICE_USER),
                )
            )
        steps.append(run_step("usermod", "--append", "--groups", ",".join(GROUPS), SERVICE_USER))
    else:
        steps.append(
            note_step(
                f"staging into {opts.root}: the user, groups, udevadm and systemctl steps "
                "are left for the target"
            )
        )

    # The state directory now, owned by the service user: `config check` run as that
    # user before the first start needs it (the unit's StateDirectory= makes it at start).
    state_dir = opts.root / Path(STATE_DIR).relative_to("/")
    if opts.live:
        steps.append(
            run_step(
                *("install", "-d", "-m", "0750", "-o", SERVICE_USER, "-g", SERVICE_USER),
                str(state_dir),
            )
        )
    else:
        steps.append(mkdir_step(state_dir, mode=0o750))

    # The config: the example always (every option of this version), config.toml only if none.
    steps.append(mkdir_step(config_dir))
    example = config_dir / EXAMPLE_CONFIG
    steps.append(write_step(example, shipped_text(EXAMPLE_CONFIG)))
    if config.exists():
        steps.append(note_step(f"keeping the existing {config}"))
    else:
        steps.append(
            write_step(config, shipped_text(EXAMPLE_CONFIG), mode=0o640, group=SERVICE_USER)
        )

    # The udev rule, applied to a board already plugged in.
    steps.append(note_step(serial_note))
    steps.append(mkdir_step(rules_dir))
    steps.append(write_step(rule, render_rule(serial)))
    if opts.live:
        steps.append(run_step("udevadm", "control", "--reload-rules"))
        steps.append(run_step("udevadm", "trigger", "--subsystem-match=tty", "--action=change"))

    # The unit, and the UART drop-in when the board is on one.
    steps.append(mkdir_step(unit_dir))
    unit_text = render_unit(exec_path)
    steps.append(write_step(unit_dir / UNIT_NAME, unit_text))
    dropin = unit_dir / f"{UNIT_NAME}.d" / DROPIN_NAME
    dropin_text = render_uart_dropin(str(board.port), groups) if groups else ""
    if groups:
        steps.append(note_step(f"the board's port {board.port} needs {', '.join(groups)}"))
        steps.append(mkdir_step(dropin.parent))
        steps.append(write_step(dropin, dropin_text))
    elif dropin.exists():
        steps.append(remove_step(dropin))
    # The modules that register the unit's device groups, loaded at every boot and now.
    modules_dir = opts.root / MODULES_DIR.relative_to("/")
    modules = render_modules(unit_text, dropin_text)
    steps.append(mkdir_step(modules_dir))
    steps.append(write_step(modules_dir / MODULES_FILE, modules))
    if opts.live:
        names = [line for line in modules.splitlines() if line and not line.startswith("#")]
        steps.append(run_step("modprobe", "--all", *names))
    events = dropin.with_name(EVENTS_DROPIN)
    if board.events:
        steps.append(
            note_step(f"{board.source} has an [events] section: the unit may reach the network")
        )
        steps.append(mkdir_step(events.parent))
        steps.append(write_step(events, shipped_text(EVENTS_DROPIN)))
    elif events.exists():
        steps.append(remove_step(events))
    if opts.live:
        steps.append(run_step("systemctl", "daemon-reload"))
        steps.append(run_step("systemctl", "enable", UNIT_NAME))
        if opts.start or service_active():
            steps.append(run_step("systemctl", "restart", UNIT_NAME))
    return steps


def _exists(lookup: Callable[[str], object], name: str) -> bool:
    try:
        lookup(name)
    except KeyError:
        return False
    return True


def check_can_install(opts: InstallOptions, what: str = "install") -> None:
    """A live install (or uninstall) needs root and a running systemd.

    Raises:
        ServiceError: it has neither.
    """
    if not opts.live:
        return
    if os.geteuid() != 0:
        raise ServiceError(
            f"service {what}: run it as root (sudo), or with --dry-run to see the steps, "
            "or --root DIR to work on a staged tree"
        )
    if not os.path.isdir(SYSTEMD_RUNTIME):
        raise ServiceError(f"service {what}: systemd is not running here (use --root DIR)")


def install(opts: InstallOptions, out: TextIO, dry_run: bool = False) -> list[InstallStep]:
    """Plan and carry out (or print) the install; return the steps.

    Raises:
        ServiceError: see :func:`plan_install`, :func:`check_can_install`, :func:`carry_out`.
    """
    steps = plan_install(opts)
    if dry_run:
        print("service install: dry run: nothing is changed", file=out)
    else:
        check_can_install(opts)
    carry_out(steps, out, dry_run=dry_run)
    if dry_run:
        print("service install: dry run done: nothing was changed", file=out)
    return steps


# ----------------------------------------------------------------- uninstall
def plan_uninstall(root: Path = Path("/"), purge: bool = False) -> list[InstallStep]:
    """The steps that take the service away (what :func:`plan_install` wrote).

    Keeps the config and the journal unless ``purge``; never removes the
    environment toptable runs from (``uninstall.sh`` removes /opt/toptable).
    """
    live = root == Path("/")
    unit = root / UNIT_DIR.relative_to("/") / UNIT_NAME
    dropins = unit.with_name(f"{UNIT_NAME}.d")
    rule = root / RULES_DIR.relative_to("/") / RULE_NAME
    config_dir = root / CONFIG_DIR.relative_to("/")
    state_dir = root / Path(STATE_DIR).relative_to("/")
    steps: list[InstallStep] = []
    if live and unit.exists():
        steps.append(run_step("systemctl", "disable", "--now", UNIT_NAME))
    modules = root / MODULES_DIR.relative_to("/") / MODULES_FILE
    for path in (dropins / DROPIN_NAME, dropins / EVENTS_DROPIN, unit, rule, modules):
        if path.exists():
            steps.append(remove_step(path))
        else:
            steps.append(note_step(f"nothing at {path}"))
    if live:
        steps.append(run_step("udevadm", "control", "--reload-rules"))
        steps.append(run_step("systemctl", "daemon-reload"))
    if purge:
        for folder in (config_dir, state_dir):
            steps.append(
                run_step("rm", "-rf", str(folder))
                if folder.exists()
                else note_step(f"nothing at {folder}")
            )
        if live and _exists(pwd.getpwnam, SERVICE_USER):
            steps.append(run_step("userdel", SERVICE_USER))
    else:
        steps.append(
            note_step(f"kept {config_dir} and {state_dir} (the game journal); --purge removes them")
        )
    return steps
