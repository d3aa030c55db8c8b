"""``toptable firmware deploy``: the board's MicroPython firmware copied to a Pico."""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from serial.tools import list_ports

from controller.cli.flags import ExistingFile, Text
from controller.core.quoting import printable
from controller.system.service_pause import service_paused
from hardware.board.errors import BoardError
from hardware.board.firmware_config import check_board_config, driver_of, unread_pins

# The top-level firmware package, beside controller/ (in a checkout and in site-packages).
FIRMWARE_DIR = Path(__file__).resolve().parents[2] / "firmware"
# Copied to :/firmware/ on the board; main.py goes to the root so it runs at boot.
FIRMWARE_FILES = (
    "__init__.py",
    "compat.py",
    "config.py",
    "core.py",
    "hw_165.py",
    "hw_4067.py",
    "scanner.py",
    "wire.py",
)


def register(sub: Any) -> None:
    """Add the ``firmware`` subcommands."""
    fw = sub.add_parser("firmware", help="the board's MicroPython firmware")
    fsub = fw.add_subparsers(dest="firmware_command", metavar="ACTION", required=True)
    p = fsub.add_parser("deploy", help="copy the firmware to a Pico with mpremote")
    p.add_argument("--port", metavar="PATH", type=Text("a port"),
                   help="the Pico's port (default: mpremote's auto)")  # fmt: skip
    p.add_argument("--dry-run", action="store_true", help="print the mpremote commands only")
    p.add_argument(
        "--config",
        type=ExistingFile(
            text=True,
            missing="no such file; expected the board's config.py "
            f"(start from a copy of {FIRMWARE_DIR / 'config.py'})",
        ),
        metavar="FILE",
        help=f"the board's config.py, copied as :firmware/config.py (default: "
        f"{OWNER_FIRMWARE_CONFIG} if it exists, else the bundled example)",
    )
    p.set_defaults(func=cmd_deploy)


# The owner's copy of firmware/config.py (sensor count, driver, pins): the bundled one
# sits in the installed package (site-packages), which is no place to edit.
OWNER_FIRMWARE_CONFIG = Path("/etc/toptable/firmware/config.py")


def deploy_commands(
    port: str | None, mpremote: str = "mpremote", config: Path | None = None
) -> list[list[str]]:
    """The mpremote command lines that install the firmware, with ``config`` as its config.py."""
    base = [mpremote] + (["connect", port] if port else [])
    cmds = [[*base, "mkdir", ":firmware"]]
    files = [str(FIRMWARE_DIR / name) for name in FIRMWARE_FILES if name != "config.py"]
    cmds.append([*base, "cp", *files, ":firmware/"])
    board_config = config if config is not None else FIRMWARE_DIR / "config.py"
    # One mpremote run ("+" chains its commands): the config, then main.py, which runs at boot.
    main_py = str(FIRMWARE_DIR / "main.py")
    cmds.append(
        [*base, "cp", str(board_config), ":firmware/config.py", "+", "cp", main_py, ":main.py"]
    )
    cmds.append([*base, "reset"])
    return cmds


def firmware_config(given: Path | None) -> Path | None:
    """The board config to deploy: ``--config``, else the owner's, else None (the bundled one).

    Raises:
        BoardError: ``--config`` names no readable Python file; the config to deploy is
            not Python, or leaves out a setting of the bundled config (the firmware reads
            each with no default, and would stop at boot).
    """
    if given is None:
        if not OWNER_FIRMWARE_CONFIG.is_file():
            return None
        return _board_config(OWNER_FIRMWARE_CONFIG, str(OWNER_FIRMWARE_CONFIG))
    if not given.is_file():
        raise BoardError(
            f"--config {given}: no such file; expected the board's config.py "
            f"(start from a copy of {FIRMWARE_DIR / 'config.py'})"
        )
    return _board_config(given, f"--config {given}")


def _board_config(path: Path, shown: str) -> Path:
    """``path``, once it reads as Python setting every name the bundled config sets (but
    the pins of the driver its ``DRIVER`` does not name, which the firmware never reads),
    each to a value the firmware runs with.

    Raises:
        BoardError: not Python, unreadable, or a setting left out.
        DataError: a setting's value of the wrong kind or out of range (line and name).
    """
    try:
        text = path.read_text(encoding="utf-8")
        compile(text, str(path), "exec")
    except (SyntaxError, UnicodeDecodeError, ValueError) as exc:
        raise BoardError(f"{shown}: not valid Python ({exc})") from None
    except OSError as exc:
        raise BoardError(f"{shown}: cannot be read ({exc.strerror or exc})") from None
    bundled = FIRMWARE_DIR / "config.py"
    settings = _assigned(bundled.read_text(encoding="utf-8"))
    given = set(_assigned(text))
    unread = unread_pins(driver_of(text))  # the firmware reads only DRIVER's own pins
    missing = [name for name in settings if name not in given and name not in unread]
    if not given.intersection(settings):
        raise BoardError(
            f"{shown}: sets none of the board's settings ({', '.join(settings[:3])}, ...); "
            f"expected the board's config.py (start from a copy of {bundled})"
        )
    if missing:
        # the firmware reads each with no default: a board without one stops at boot
        raise BoardError(
            f"{shown}: does not set {', '.join(missing)}; expected every setting of the "
            f"board's config.py (start from a copy of {bundled})"
        )
    check_board_config(text, str(path))
    return path


def _assigned(source: str) -> list[str]:
    """The names a module's top-level statements assign, in order."""
    return [
        node.id
        for statement in ast.parse(source).body
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign))
        for node in ast.walk(statement)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    ]


INTERPRETER_BIN = Path(sys.executable).parent
"""The running environment's bin folder (a venv's: not on PATH under sudo)."""


def find_mpremote() -> str | None:
    """mpremote beside the running interpreter, else on PATH; None if neither."""
    beside = INTERPRETER_BIN / "mpremote"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside)
    return shutil.which("mpremote")


REPL_HINT = (
    "if mpremote could not enter the raw REPL, the running firmware has Ctrl-C turned off: "
    "unplug the Pico and run the deploy within BOOT_GRACE_MS (1 s) of plugging it back in, "
    "or plug it in with GP22 (PIN_MAINTENANCE) tied to GND; see firmware/README.md"
)


def check_port(port: str | None) -> None:
    """Refuse a ``--port`` naming a device file that is not there (mpremote tried each
    command on it and said so in six lines, the last a hint about the REPL).

    Raises:
        BoardError: the path does not exist; the message names the serial ports present.
    """
    if port is None:
        return
    path = port.removeprefix("port:")  # mpremote's connect takes "port:PATH" too
    if not path.startswith("/") or os.path.exists(path):
        return  # mpremote's own names (auto, id:SERIAL, a0...) are its to resolve
    present = sorted(p.device for p in list_ports.comports())
    where = f"serial ports here: {', '.join(present)}" if present else "no serial port is here"
    raise BoardError(
        f"--port {printable(port)}: no such device ({where}); plug the Pico in with a data "
        "cable, or leave --port out for mpremote's auto"
    )


def cmd_deploy(args: argparse.Namespace) -> int:
    """Copy the firmware with mpremote, the toptable service stopped meanwhile.

    Raises:
        BoardError: mpremote is not installed, a bad --config, or a failed mpremote command.
        ServiceError: the service runs and this process may not stop it.
    """
    if not args.dry_run:
        check_port(args.port)
    mpremote = find_mpremote()
    config = firmware_config(getattr(args, "config", None))
    if config is None:
        print(
            f"firmware deploy: using the bundled board config {FIRMWARE_DIR / 'config.py'}; "
            f"for your wiring copy it to {OWNER_FIRMWARE_CONFIG} (or pass --config FILE), "
            "edit it and deploy again",
            file=sys.stderr,
            flush=True,
        )
    cmds = deploy_commands(args.port, mpremote or "mpremote", config)
    if args.dry_run:
        for cmd in cmds:
            print(" ".join(cmd))
        return 0
    if mpremote is None:
        raise BoardError(
            "mpremote is not installed: `pip install mpremote` (or run with --dry-run to see the "
            "commands); see firmware/README.md"
        )
    with service_paused(sys.stdout, "toptable firmware deploy"):
        for i, cmd in enumerate(cmds):
            print("$ " + " ".join(cmd), flush=True)
            result = subprocess.run(cmd, check=False)
            if result.returncode != 0 and not (i == 0 and cmd[-2] == "mkdir"):
                raise BoardError(
                    f"mpremote failed (exit {result.returncode}): {' '.join(cmd)}; {REPL_HINT}"
                )
    print("firmware deployed; the board restarts and runs it", flush=True)
    return 0
