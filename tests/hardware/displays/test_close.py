"""Closing a display that stopped answering, and retrying one that never answers: the
serial interface is released and luma's exit hooks let go of the device.

luma.core 2.6.0's ``device.cleanup()`` sends ``hide()`` and ``clear()`` before
``serial_interface.cleanup()``, and ``device.__init__`` registers a closure per device
with ``atexit`` (it calls ``cleanup()`` at exit). CPython's ``atexit`` keeps a slot per
registration even once unregistered (``atexit._ncallbacks()`` never shrinks), so what
is measured here is what those hooks hold on to: the devices and their interfaces.
"""

from __future__ import annotations

import dataclasses
import errno
import gc
import subprocess
import sys
import textwrap
import weakref
from collections.abc import Sequence
from typing import Any

import pytest
from luma.core.device import device as luma_device

from hardware.displays.device_config import DisplayConfig
from hardware.displays.display_board import DisplayBoard
from hardware.displays.errors import DisplayUnavailableError
from hardware.displays.i2c_bus import BusPool
from hardware.displays.luma_open import open_display
from hardware.displays.model import Clock
from hardware.displays.push import RecordingInterface
from hardware.displays.view_json import EXAMPLE_STATE, load_view
from tests.hardware.displays.helpers import FakeSMBus
from tests.paths import REPO

pytestmark = [
    pytest.mark.timeout(60),
    # luma.oled's drivers call Image.getdata(), deprecated in Pillow 13: luma's, not ours
    pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning"),
]

VIEW = dataclasses.replace(load_view(EXAMPLE_STATE), faults=(), prompt=None)
CYCLES = 5


@dataclasses.dataclass
class DyingInterface(RecordingInterface):
    """A recording interface whose writes fail, as luma's i2c does, once ``dead``."""

    dead: bool = False
    cleanups: int = 0

    def command(self, *cmd: int) -> None:
        if self.dead:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        super().command(*cmd)

    def data(self, data: Sequence[int]) -> None:
        if self.dead:
            raise OSError(errno.EREMOTEIO, "Remote I/O error")
        super().data(data)

    def cleanup(self) -> None:
        self.cleanups += 1
        super().cleanup()


def _live_devices() -> int:
    gc.collect()
    return sum(isinstance(obj, luma_device) for obj in gc.get_objects())


@pytest.mark.parametrize("driver", ["ssd1306", "sh1106"])
def test_closing_a_screen_that_stopped_answering_releases_its_interface(driver: str) -> None:
    serial = DyingInterface()
    display = open_display(DisplayConfig("x", driver=driver), BusPool(), serial=serial)
    serial.dead = True  # unplugged: luma's hide() raises first
    display.close()
    display.close()
    assert serial.cleanups == 1


def test_closing_a_working_screen_blanks_it_and_releases_its_interface_once() -> None:
    serial = DyingInterface()
    display = open_display(DisplayConfig("x"), BusPool(), serial=serial)
    serial.clear()
    display.close()
    assert serial.calls[0] == ("command", (0xAE,))  # luma's hide(): DISPLAYOFF
    assert serial.cleanups == 1


def test_closing_a_display_twice_blanks_it_once() -> None:
    """Close is idempotent: a board closing a display it already dropped sends it
    nothing more (no second DISPLAYOFF and clear to a screen that may be gone)."""
    serial = DyingInterface()
    display = open_display(DisplayConfig("x"), BusPool(), serial=serial)
    display.close()
    sent = len(serial.calls)
    display.close()
    assert len(serial.calls) == sent and serial.cleanups == 1


def test_closed_and_never_opened_devices_are_not_kept_alive() -> None:
    serials: list[weakref.ref[DyingInterface]] = []
    devices: list[weakref.ref[Any]] = []
    for _ in range(CYCLES):
        serial = DyingInterface()
        display = open_display(DisplayConfig("x", driver="sh1106"), BusPool(), serial=serial)
        serial.dead = True
        display.close()
        serials.append(weakref.ref(serial))
        devices.append(weakref.ref(display.device))
        del display, serial
        dead = DyingInterface(dead=True)  # a screen that does not answer its init sequence
        with pytest.raises(DisplayUnavailableError, match="Remote I/O error"):
            open_display(DisplayConfig("y"), BusPool(), serial=dead)
        assert dead.cleanups == 1
        serials.append(weakref.ref(dead))
        del dead
    gc.collect()
    assert [ref() for ref in devices + serials] == [None] * (3 * CYCLES)


def test_a_display_that_keeps_failing_leaves_nothing_behind_and_keeps_the_shared_bus() -> None:
    bus = FakeSMBus({None: {0x3C, 0x3D}})
    board = DisplayBoard.open(
        [DisplayConfig("left", address=0x3C), DisplayConfig("right", address=0x3D)],
        BusPool(lambda number: bus),
    )
    board.update(VIEW)
    before = _live_devices()
    for second in range(CYCLES):
        bus.present[None].discard(0x3D)  # drops off mid-game: closed, then retried in vain
        board.update(dataclasses.replace(VIEW, clock=Clock(3, 10, 100 + second)))
        assert board.reopen() == [] and board.reopen() == []
        bus.present[None].add(0x3D)
        assert board.reopen() == ["right"]
    assert _live_devices() == before
    assert not bus.closed  # the other display still uses it
    board.close()
    assert bus.closed


def test_a_closed_display_is_not_cleaned_up_again_at_exit() -> None:
    script = textwrap.dedent(
        """
        import warnings
        warnings.simplefilter("ignore")
        from hardware.displays.device_config import DisplayConfig
        from hardware.displays.i2c_bus import BusPool
        from hardware.displays.luma_open import open_display
        from hardware.displays.push import RecordingInterface

        class Loud(RecordingInterface):
            def command(self, *cmd):
                print("command", cmd)
            def data(self, data):
                pass
            def cleanup(self):
                print("cleanup")

        display = open_display(DisplayConfig("x"), BusPool(), serial=Loud())
        display.close()
        print("closed")
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    lines = done.stdout.splitlines()
    assert lines[-1] == "closed" and lines.count("cleanup") == 1  # luma's exit hook: gone
