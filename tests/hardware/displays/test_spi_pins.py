"""An SPI screen whose DC or RESET pin is not to be had, through the real libraries.

luma.core 2.6.0's ``spi`` sets its DC and RESET pins up through ``RPi.GPIO``; the
project's ``spi`` extra makes that rpi-lgpio (0.6: ``setmode`` opens the chip, ``setup``
claims the pin), over :mod:`hardware.controls.simulated_lgpio` here: what lgpio 0.2.2.0
raises (``lgpio.error``, not an OSError) must become a named display fault, not a crash.
The test runs where rpi-lgpio is installed (the ``spi`` extra).
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Iterator
from types import ModuleType

import pytest

from hardware.controls import simulated_lgpio
from hardware.displays.device_config import DisplayConfig
from hardware.displays.errors import DisplayUnavailableError
from hardware.displays.i2c_bus import BusPool
from hardware.displays.luma_open import open_display


@pytest.fixture
def rpi_gpio(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """rpi-lgpio's ``RPi.GPIO`` on a simulated Pi 4B, over the simulated lgpio."""
    simulated_lgpio.reset()
    monkeypatch.setitem(sys.modules, "lgpio", simulated_lgpio)
    monkeypatch.setenv("RPI_LGPIO_REVISION", "c03114")  # rpi-lgpio's stand-in for the device tree
    for name in ("RPi", "RPi.GPIO"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    try:
        yield pytest.importorskip("RPi.GPIO", reason="rpi-lgpio (the spi extra) not installed")
    finally:
        for name in ("RPi", "RPi.GPIO"):
            sys.modules.pop(name, None)  # bound to the simulation
        simulated_lgpio.reset()


def test_a_dc_pin_another_program_holds_is_a_named_display_fault(rpi_gpio: ModuleType) -> None:
    simulated_lgpio.HELD_ELSEWHERE.add(24)
    cfg = DisplayConfig("spi", interface="spi", gpio_dc=24, gpio_rst=25)
    with pytest.raises(DisplayUnavailableError) as raised:
        open_display(cfg, BusPool())
    assert str(raised.value) == (
        "display 'spi' (ssd1306 128x64) on SPI port 0 device 0 (DC GPIO24, RST GPIO25): "
        "pin or bus busy ('GPIO busy'): another program or display uses it"
    )


def test_a_gpio_chip_the_user_may_not_open_is_a_named_display_fault(rpi_gpio: ModuleType) -> None:
    simulated_lgpio.CHIPS.clear()
    cfg = DisplayConfig("spi", interface="spi", gpio_dc=24, gpio_rst=25)
    with pytest.raises(DisplayUnavailableError, match=r"permission denied .*'gpio' group"):
        open_display(cfg, BusPool())


class _SpiBus:
    """The kernel's /dev/spidevP.D as py-spidev opens it: it takes the bytes, no screen."""

    def open(self, port: int, device: int) -> None:
        self.port, self.device = port, device

    def writebytes(self, data: list[int]) -> None:
        pass

    def close(self) -> None:
        pass


@pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning")
def test_a_screen_kept_on_close_leaves_its_reset_line_driven(
    rpi_gpio: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The pause stays on the screens as the daemon stops (``keep_on_close``): luma's SPI
    cleanup would make RESET an input with no pull (rpi-lgpio 0.6 ``cleanup``), a
    floating line that may reset the screen blank; a screen closed plainly frees it."""
    monkeypatch.setitem(sys.modules, "spidev", ModuleType("spidev"))
    sys.modules["spidev"].SpiDev = _SpiBus  # type: ignore[attr-defined]
    cfg = DisplayConfig("spi", interface="spi", gpio_dc=24, gpio_rst=25)
    kept = open_display(cfg, BusPool())
    kept.keep_on_close()
    kept.close()
    assert simulated_lgpio.gpio_get_mode(0, 25) & 2  # still claimed as an output (lgpio's bit)
    assert simulated_lgpio.gpio_read(0, 25) == 1
    plain = open_display(DisplayConfig("spi2", interface="spi", gpio_dc=14, gpio_rst=15), BusPool())
    plain.close()
    assert simulated_lgpio.gpio_get_mode(0, 15) == 0  # freed


class _NoSpiDevice(_SpiBus):
    """SPI not enabled: py-spidev's ``SpiDev.open`` of a missing /dev/spidevP.D (ENOENT)."""

    def open(self, port: int, device: int) -> None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT))


def test_spi_not_enabled_is_said_so(rpi_gpio: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    """luma.core 2.6.0 ``spi`` raises DeviceNotFoundError('SPI device not found'): it was told
    to check the wiring and the I2C address (i2cdetect)."""
    monkeypatch.setitem(sys.modules, "spidev", ModuleType("spidev"))
    sys.modules["spidev"].SpiDev = _NoSpiDevice  # type: ignore[attr-defined]
    cfg = DisplayConfig("spi", interface="spi", spi_device=1, gpio_dc=24, gpio_rst=25)
    with pytest.raises(DisplayUnavailableError) as raised:
        open_display(cfg, BusPool())
    assert str(raised.value).endswith(
        ": no /dev/spidev0.1 (SPI device not found): enable SPI (raspi-config) or fix "
        "'spi_port'/'spi_device'"
    )
