"""``config check``'s device checks at their edges: each problem is one line naming the
option to change and what was expected, and nothing wrong passes without a word."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

import pytest

from tests.config.test_devices import ALL_THERE, FakeProbe, hardware_config, texts

pytestmark = pytest.mark.timeout(30)


def _probe() -> FakeProbe:
    """Every device of the example config there and answering."""
    probe = FakeProbe(ALL_THERE)
    probe.i2c[(1, 0x3C, None)] = True
    return probe


def test_a_journal_whose_own_folder_is_a_file_is_refused(tmp_path: Path) -> None:
    """journal = "a-file/j.sqlite": no folder can be made where a file is; the check says so."""
    (tmp_path / "a-file").write_text("", encoding="utf-8")
    cfg = hardware_config(tmp_path, table={"journal": "a-file/j.sqlite"})
    assert texts(cfg, _probe()) == [
        f"cfg.toml: Option 'journal' in section 'table' is in {tmp_path / 'a-file'}, but "
        f"{tmp_path / 'a-file'} is a file, so no folder can be made there: name a path in a "
        "folder"
    ]


def test_a_database_without_the_journals_events_is_no_journal(tmp_path: Path) -> None:
    """Another program's SQLite file with a ``meta`` table but no events: the daemon would
    refuse it, so the check does."""
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE meta (key TEXT, value TEXT)")
    conn.close()
    cfg = hardware_config(tmp_path, table={"journal": "other.sqlite"})
    assert texts(cfg, _probe()) == [
        f"cfg.toml: Option 'journal' in section 'table' names {other}, which is not a journal "
        "(no such table: events): the daemon would refuse it"
    ]


class PlainFileAt(FakeProbe):
    """A plain file at ``path`` in /dev: what ``echo ... > /dev/ttyACM0`` as root leaves
    while no board is plugged in (or a copy made where a device should be)."""

    def __init__(self, path: str) -> None:
        super().__init__(ALL_THERE)
        self.i2c[(1, 0x3C, None)] = True
        self.plain = path

    def stat(self, path: str) -> os.stat_result:
        if path == self.plain:
            return os.stat_result((stat.S_IFREG | 0o644, 0, 0, 1, 0, 0, 12, 0, 0, 0))
        return super().stat(path)


def test_a_board_port_that_is_a_plain_file_is_no_serial_device(tmp_path: Path) -> None:
    """A plain file where the port should be: said, and not opened as the board's link."""
    probe = PlainFileAt("/dev/ttyACM0")
    cfg = hardware_config(tmp_path, board={"port": "/dev/ttyACM0"})
    assert texts(cfg, probe) == [
        "cfg.toml: Option 'port' in section 'board' names /dev/ttyACM0, which is not a serial "
        "device"
    ]
    assert not [call for call in probe.calls if call.startswith("serial")]


def test_a_camera_device_that_is_a_plain_file_is_no_device(tmp_path: Path) -> None:
    """A plain file at /dev/video0: said (a camera expected), and no camera is opened."""
    probe = PlainFileAt("/dev/video0")
    cfg = hardware_config(tmp_path)
    assert texts(cfg, probe) == [
        "cfg.toml: Option 'device' in section 'camera' names /dev/video0, which is not a device "
        "(the camera expected)"
    ]
    assert not [call for call in probe.calls if "video0" in call]


def test_an_spi_screen_on_chip_select_1_needs_its_own_spidev(tmp_path: Path) -> None:
    """spi_device = 1 (CE1) on SPI0 is /dev/spidev0.1: the one named, the one looked for."""
    probe = _probe()
    screen = {"role": "turn", "interface": "spi", "bus": 0, "spi_device": 1}
    cfg = hardware_config(tmp_path, displays={"screen": [screen]})
    (msg,) = texts(cfg, probe)
    assert msg.startswith(
        "cfg.toml: Option 'bus' in section 'displays.screen[1]' names /dev/spidev0.1, which "
        "does not exist: enable SPI"
    )
    probe.devices["/dev/spidev0.1"] = None
    assert texts(cfg, probe) == []


def test_an_emulated_screen_writing_into_a_missing_folder_is_a_problem(tmp_path: Path) -> None:
    """The emulator writes its GIF as the daemon stops: a folder that is not there is said now."""
    screen = {"role": "turn", "driver": "emulator", "output": "no-such-folder/turn.gif"}
    cfg = hardware_config(tmp_path, displays={"screen": [screen]})
    assert texts(cfg, _probe()) == [
        "cfg.toml: Option 'output' in section 'displays.screen[1]' is in "
        f"{tmp_path / 'no-such-folder'}, which does not exist"
    ]
