"""The toptable service stopped while another program needs the board's port (``firmware deploy``).

The running daemon holds the board's serial port: mpremote cannot reach the
Pico's REPL beside it. :func:`service_paused` stops the service for the time of
a block and starts it again after, or refuses (one line with the commands) when
this process may not: only root can.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TextIO

from controller.system.unit_files import UNIT_NAME, ServiceError


def _is_root() -> bool:
    return os.geteuid() == 0


SYSTEMD_RUNTIME = "/run/systemd/system"
"""Present only when systemd is PID 1: the test of sd_booted(3)."""


def service_active(systemctl: str | None = None, runtime: str | None = None) -> bool:
    """Whether the toptable service runs here: False without systemd (a container, or a
    machine booted otherwise, where systemctl says "System has not been booted with
    systemd" whatever it is asked), or when systemctl cannot tell."""
    program = systemctl or shutil.which("systemctl")
    if program is None or not os.path.isdir(runtime or SYSTEMD_RUNTIME):
        return False
    try:
        done = subprocess.run(
            [program, "is-active", "--quiet", UNIT_NAME],
            check=False,
            timeout=30,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


@contextmanager
def service_paused(
    out: TextIO, what: str, is_root: Callable[[], bool] = _is_root
) -> Iterator[None]:
    """Run the block with the toptable service stopped, then start it again.

    Raises:
        ServiceError: the service runs and this process is not root (the message
            names the commands to run around ``what``), or systemctl failed.
    """
    systemctl = shutil.which("systemctl")
    if systemctl is None or not service_active(systemctl):
        yield
        return
    if not is_root():
        raise ServiceError(
            f"{what}: the toptable service is running and holds the board's port; run "
            f"`sudo systemctl stop toptable`, {what} again, then `sudo systemctl start toptable` "
            "(or run it with sudo: it stops and restarts the service itself)"
        )
    print(f"$ {systemctl} stop {UNIT_NAME}", file=out, flush=True)
    if subprocess.run([systemctl, "stop", UNIT_NAME], check=False, timeout=60).returncode:
        raise ServiceError(f"{what}: `systemctl stop {UNIT_NAME}` failed")
    try:
        yield
    finally:
        print(f"$ {systemctl} start {UNIT_NAME}", file=out, flush=True)
        subprocess.run([systemctl, "start", UNIT_NAME], check=False, timeout=60)
