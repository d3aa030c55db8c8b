"""The ``[board]`` device check: the layout and mapping files, and the serial port."""

from __future__ import annotations

import errno
import stat

from controller.config.device_checker import DeviceChecker
from controller.core.errors import DataError
from controller.gamedata.board import load_board
from hardware.board.settings import BoardBackend


def check_board(chk: DeviceChecker) -> None:
    """``[board]``: the layout loads, the mapping exists, the serial port opens and is free."""
    b = chk.cfg.board
    if b.layout is not None and not chk.file_missing("board", "layout", b.layout):
        try:
            load_board(b.layout)
        except DataError as exc:
            chk.problems.extend(exc.problems)
    if b.mapping is not None:
        chk.file_missing("board", "mapping", b.mapping)
    if b.backend is not BoardBackend.SERIAL:
        return
    try:
        st = chk.probe.stat(b.port)
    except FileNotFoundError:
        chk.add(
            "board",
            "port",
            f"names {b.port}, which does not exist: is the board's USB cable plugged in, "
            "and the udev rule installed (systemd/99-toptable-board.rules)? "
            f"serial ports present: {chk.present('/dev/ttyACM*')}",
        )
        return
    except OSError as exc:
        chk.add("board", "port", f"names {b.port}, which cannot be read: {exc.strerror}")
        return
    if not stat.S_ISCHR(st.st_mode):
        chk.add("board", "port", f"names {b.port}, which is not a serial device")
        return
    try:
        chk.probe.serial_exclusive(b.port, b.baud)
    except OSError as exc:
        if exc.errno in (errno.EACCES, errno.EPERM):
            chk.add(
                "board",
                "port",
                f"names {b.port}, which this user may not open: add the service user to "
                "the 'dialout' group (sudo usermod -aG dialout USER, then log in again)",
            )
        elif exc.errno == errno.EBUSY:
            holders = chk.probe.holders(b.port)
            who = f" ({', '.join(holders)})" if holders else ""
            chk.add(
                "board",
                "port",
                f"names {b.port}, which another program owns{who}: close it (a serial "
                "terminal, ModemManager, or a toptable already running) and try again",
            )
        else:
            chk.add("board", "port", f"names {b.port}, which cannot be opened: {exc.strerror}")
