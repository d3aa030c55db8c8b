"""Holding the board's serial port alone: who else has it open, and keeping others out.

pyserial 3.5's ``exclusive=True`` (``serialposix.Serial._reconfigure_port``) is only an
advisory ``flock``: it keeps out a second toptable, but not the programs that take no
lock — pyserial's default (mpremote), minicom, screen, ModemManager — which then read
the same tty, each byte going to one reader or the other. So the link also asks /proc
who has the port open (:func:`port_holders`) and, once it holds the port, sets the
tty's exclusive mode (``TIOCEXCL``, tty_ioctl(4): a later open fails with EBUSY, except
for root), cleared again before the port is closed (:class:`HeldPort`): a pseudo-
terminal's slave outlives its closing while its master stays open (a simulated board
keeps it), and a reconnect must find it openable.
"""

from __future__ import annotations

import contextlib
import fcntl
import glob
import os
import re
import termios
from pathlib import Path

import serial

_PTY = re.compile(r"/dev/pts/(\d+)$")


def _pty_index(path: str) -> int | None:
    """N for a pseudo-terminal's slave ``/dev/pts/N``, else None."""
    found = _PTY.match(path)
    return int(found.group(1)) if found else None


def _holds_master(pid: str, fds: dict[str, str], index: int) -> bool:
    """Whether process ``pid`` holds the master of pseudo-terminal ``index`` (its fds ->
    their targets): it is the terminal's other end, the device itself (a simulated
    board), not a program competing for the port."""
    for fd, target in fds.items():
        if target.endswith("ptmx"):
            try:
                info = Path(f"/proc/{pid}/fdinfo/{fd}").read_text()
            except OSError:
                continue
            if f"tty-index:\t{index}\n" in info:
                return True
    return False


def port_holders(path: str) -> list[str]:
    """The other processes that have the serial port ``path`` open ("pid 812 (minicom)"),
    as far as /proc shows them (another user's are hidden from a user that is not root);
    a pseudo-terminal's master holder (the simulated board behind it) is not one."""
    target = os.path.realpath(path)
    index = _pty_index(target)
    found = []
    for fd_dir in glob.glob("/proc/[0-9]*/fd"):
        pid = fd_dir.split("/")[2]
        if pid == str(os.getpid()):
            continue
        try:
            fds = {fd: os.readlink(os.path.join(fd_dir, fd)) for fd in os.listdir(fd_dir)}
        except OSError:
            continue  # gone, or another user's process
        if target not in fds.values():
            continue
        if index is not None and _holds_master(pid, fds, index):
            continue
        try:
            name = Path(f"/proc/{pid}/comm").read_text().strip()
        except OSError:
            name = "?"
        found.append(f"pid {pid} ({name})")
    return found


class HeldPort(serial.Serial):
    """A serial port whose tty :func:`hold` made exclusive, given back on close."""

    def close(self) -> None:
        """Clear the tty's exclusive mode, then close (pyserial's ``close``)."""
        if self.is_open and self.fd is not None:
            with contextlib.suppress(OSError):
                fcntl.ioctl(self.fd, termios.TIOCNXCL)
        super().close()


def hold(port: HeldPort) -> None:
    """Keep every later open of ``port``'s tty out (but root's): ``TIOCEXCL``. A device
    that is no tty (a test's file) is left as it is."""
    if port.fd is not None:
        with contextlib.suppress(OSError):
            fcntl.ioctl(port.fd, termios.TIOCEXCL)
