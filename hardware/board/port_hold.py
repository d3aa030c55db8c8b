"""Holding the board's serial port alone: who else has it open, and keeping others out.

pyserial 3.5's ``exclusive=True`` (``serialposix.Serial._reconfigure_port``) is only an
advisory ``flock``: it keeps out a second toptable, but not the programs that take no
lock — pyserial's default (mpremote), minicom, screen — which then read the same tty,
each byte going to one reader or the other. So once the link holds the port it sets the
tty's exclusive mode (``TIOCEXCL``, tty_ioctl(4): a later open fails with EBUSY, except
for root's), cleared again before the port is closed (:class:`HeldPort`), and asks /proc
who had it open already (:func:`port_holders`).

Limits: /proc shows a user that is not root only its own processes (and the service's
``ProtectProc=invisible`` hides the rest): a terminal another user left on the port is
not named, though every program opening it after the daemon is kept out. ModemManager,
root's, is told to leave the board alone by the udev rule the install writes. A
pseudo-terminal (a simulated board) is not made exclusive: its slave outlives a link
killed before it could clear the mode (the simulated board keeps it open), and no
program but root's could open it again.
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


def _open_files(fd_dir: str) -> dict[str, str]:
    """A process's open files (``/proc/PID/fd``): fd -> what it is, those still open
    (none: the process is gone, or another user's)."""
    try:
        fds = os.listdir(fd_dir)
    except OSError:
        return {}
    found = {}
    for fd in fds:
        with contextlib.suppress(OSError):  # closed since the listing
            found[fd] = os.readlink(os.path.join(fd_dir, fd))
    return found


def port_holders(path: str) -> list[str]:
    """The other processes that have the serial port ``path`` open ("pid 812 (minicom)"),
    as far as /proc shows them (another user's are hidden from a user that is not root);
    a pseudo-terminal's master holder (the simulated board behind it) is not one."""
    target = os.path.realpath(path)
    index = _pty_index(target)
    found, me = [], str(os.getpid())
    for fd_dir in glob.glob("/proc/[0-9]*/fd"):
        pid = fd_dir.split("/")[2]
        if pid == me:
            continue
        fds = _open_files(fd_dir)
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


def make_exclusive(port: HeldPort) -> None:
    """Keep every later open of ``port``'s tty out, but root's: ``TIOCEXCL`` (a device
    that is no tty is left as it is)."""
    if port.fd is not None:
        with contextlib.suppress(OSError):
            fcntl.ioctl(port.fd, termios.TIOCEXCL)


def hold(port: HeldPort, path: str) -> None:
    """:func:`make_exclusive` for the board's port at ``path``, unless it is a
    pseudo-terminal (a simulated board: see the module notes)."""
    if _pty_index(os.path.realpath(path)) is None:
        make_exclusive(port)
