"""Firmware test fixtures: the ``micropython`` marker and a simulated Pico (``pico``)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.firmware.fakes.pico import Pico


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "micropython: runs firmware code under MicroPython's WebAssembly port (needs node; "
        "`make test` installs it); deselect with -m 'not micropython'",
    )


@pytest.fixture
def pico(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Pico]:
    """A simulated Pico: fake ``machine``, ``micropython``, ``select``, clock and USB serial.

    The fakes are put where ``firmware/main.py`` imports them from for the test only;
    the working directory is a temporary one (the Pico's flash, for ``boot_count``).
    """
    board = Pico()
    for name, module in board.modules().items():
        monkeypatch.setitem(sys.modules, name, module)
    for name in ("main", "hw_165", "hw_4067"):
        monkeypatch.delitem(sys.modules, "firmware." + name, raising=False)
    # compat.py takes these from MicroPython's `time`; core.py bound its own copies
    import firmware.compat
    import firmware.core

    for module in (firmware.compat, firmware.core):
        for name in ("ticks_ms", "ticks_add", "ticks_diff", "sleep_ms"):
            if hasattr(module, name):
                monkeypatch.setattr(module, name, getattr(board.clock, name))
    monkeypatch.chdir(str(tmp_path))
    yield board
    import firmware

    for name in ("main", "hw_165", "hw_4067"):  # they hold the fakes: import afresh next time
        sys.modules.pop("firmware." + name, None)
        if hasattr(firmware, name):
            delattr(firmware, name)
