"""The board's port is the link's alone: a program that has it open without a lock (as
pyserial's default, mpremote, minicom and screen do: pyserial 3.5's ``exclusive=True`` is
only a ``flock``) is named, and once the link holds the port no other program opens it."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.config.probe import DeviceProbe
from hardware.board.errors import BoardPortError
from hardware.board.link import open_port
from hardware.board.port_hold import HeldPort, make_exclusive
from tests.as_nobody import as_nobody

pytestmark = pytest.mark.timeout(30)

# a second program: opens the port (argv[1], or its own pseudo-terminal's slave, whose
# master it keeps: a simulated board) as pyserial opens it by default, says where, waits
_HOLDER = """
import os, sys, time, serial
if len(sys.argv) > 1:
    path = sys.argv[1]
else:
    master, slave = os.openpty()
    path = os.ttyname(slave)
port = serial.Serial(path, 115200, timeout=0)
print(path, flush=True)
time.sleep(25)
"""


@pytest.fixture
def pty_path() -> Iterator[str]:
    """A serial device nobody holds: a pseudo-terminal's slave, its master kept here."""
    master, slave = os.openpty()
    path = os.ttyname(slave)
    os.close(slave)
    os.chmod(path, 0o666)  # (any user may try it: the test of the exclusive mode below)
    try:
        yield path
    finally:
        os.close(master)


def _holder(*args: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, *args], stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


@pytest.fixture
def terminal(pty_path: str) -> Iterator[subprocess.Popen[str]]:
    """Another program with the board's port open, taking no lock."""
    proc, _ = _holder(pty_path)
    try:
        yield proc
    finally:
        proc.kill()
        proc.wait()


def test_a_program_holding_the_port_without_a_lock_is_named(
    pty_path: str, terminal: subprocess.Popen[str]
) -> None:
    with pytest.raises(BoardPortError) as raised:
        open_port(pty_path)
    name = Path(f"/proc/{terminal.pid}/comm").read_text().strip()
    assert str(raised.value) == (
        f"cannot open board port {pty_path}: busy, pid {terminal.pid} ({name}) has it open: "
        "close that program (a serial terminal, mpremote, ModemManager)"
    )
    with pytest.raises(OSError) as checked:  # config check's probe: the same
        DeviceProbe().serial_exclusive(pty_path, 115200)
    assert checked.value.errno == errno.EBUSY
    assert DeviceProbe().holders(pty_path) == [f"pid {terminal.pid} ({name})"]


def test_the_simulated_board_behind_a_pseudo_terminal_is_no_rival() -> None:
    """A process holding the terminal's master (``toptable board sim``) keeps its slave
    open too: it is the board itself, and the port opens."""
    proc, path = _holder()
    try:
        port = open_port(path)
        port.close()
    finally:
        proc.kill()
        proc.wait()


def _opens(path: str) -> None:
    try:
        os.close(os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK))
    except OSError as exc:
        raise BoardPortError(errno.errorcode.get(exc.errno or 0, str(exc))) from None


def test_no_other_program_opens_a_port_made_exclusive(pty_path: str) -> None:
    """tty_ioctl(4) TIOCEXCL, as the link sets it on a real board's port: a later open fails
    with EBUSY (root alone passes it, so the other program is ``nobody``); cleared on close,
    the port opens again (a pseudo-terminal's slave keeps the mode while its master is
    open)."""
    port = HeldPort(pty_path, 115200, timeout=0, exclusive=True)
    try:
        make_exclusive(port)
        assert as_nobody(lambda: _opens(pty_path)) == (2, "EBUSY\n")
    finally:
        port.close()
    assert as_nobody(lambda: _opens(pty_path)) == (0, "")


def test_a_link_killed_hard_leaves_a_simulated_board_openable(pty_path: str) -> None:
    """A link that dies holding the port (SIGKILL, a terminal closed) never clears the
    tty's exclusive mode: a real port's goes with its last close, but a pseudo-terminal's
    slave lives on behind the simulated board, which no program but root's could then
    open. A pseudo-terminal is not made exclusive."""
    pid = os.fork()
    if pid == 0:  # the link, killed before it closes the port
        try:
            held = open_port(pty_path)  # (kept: dropped, pyserial's __del__ would close it)
            os._exit(0 if held.is_open else 1)
        finally:
            os._exit(1)
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert as_nobody(lambda: _opens(pty_path)) == (0, "")
    open_port(pty_path).close()
