"""The ``[board]`` config section: which link reaches the sensor board, and its layout files.

:func:`parse_board` reads the section for :mod:`controller.config`; the daemon
hands ``port`` and ``baud`` to :class:`hardware.board.link.BoardLink` (or runs
:class:`hardware.board.sim.SimBoard` for ``backend = "simulated"``).

Imports only :mod:`controller.core`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

from controller.core.config_schema import Section, choice, device_path, integer, path_in

DEFAULT_BOARD_PORT = "/dev/toptable-board"
"""The symlink the udev rule (systemd/99-toptable-board.rules) makes for the Pico."""
EXAMPLE_SENSORS = 42
"""A simulated board's sensors unless told: the example board's 42 spaces (the
firmware's own default, firmware/config.py, is the Pico's file, edited on the board)."""
DEFAULT_BAUD = 115200
"""The link's rate when the config names none (the Pico's USB CDC ignores it)."""
BAUD = (1200, 4_000_000)
"""Baud rates a UART can be set to (USB CDC ignores the rate)."""


class BoardBackend(StrEnum):
    """The board link: the Pico on a serial port, or the firmware simulated in-process."""

    SERIAL = "serial"
    SIMULATED = "simulated"


@dataclass(frozen=True)
class BoardConfig:
    """[board]: the sensor board and its layout."""

    backend: BoardBackend = BoardBackend.SERIAL
    port: str = DEFAULT_BOARD_PORT
    baud: int = DEFAULT_BAUD
    layout: Path | None = None  # None: the bundled example layout
    mapping: Path | None = None  # sensor -> space mapping from the wizard, if any


def parse_board(s: Section) -> BoardConfig:
    """The [board] section; its problems are noted in ``s``."""
    d = BoardConfig()
    return BoardConfig(
        backend=s.get("backend", d.backend, choice(BoardBackend)),
        port=s.get("port", d.port, device_path),
        baud=s.get("baud", d.baud, integer(*BAUD)),
        layout=s.get("layout", d.layout, path_in(s.base_dir)),
        mapping=s.get("mapping", d.mapping, path_in(s.base_dir)),
    )
