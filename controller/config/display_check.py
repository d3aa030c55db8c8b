"""The ``[displays]`` device check: SPI and I2C buses, TCA9548A muxes, screens answering."""

from __future__ import annotations

import errno

from controller.config.device_checker import DeviceChecker
from hardware.displays.settings import ScreenDriver, ScreenInterface


def check_displays(chk: DeviceChecker) -> None:
    """``[[displays.screen]]``: each SPI or I2C bus is there and each screen answers."""
    buses_ok: dict[int, bool] = {}
    for i, sc in enumerate(chk.cfg.displays.screens, start=1):
        section = f"displays.screen[{i}]"
        if sc.driver is ScreenDriver.EMULATOR:
            if sc.output is not None and chk.is_dir(sc.output):
                # luma's emulator writes its animation there at exit: IsADirectoryError
                chk.add(section, "output", f"names {sc.output}, which is a folder: name the file")
            elif sc.output is not None and not chk.is_dir(sc.output.parent):
                chk.add(section, "output", f"is in {sc.output.parent}, which does not exist")
            continue
        if sc.driver is ScreenDriver.DUMMY:
            continue
        if sc.interface is ScreenInterface.SPI:
            path = f"/dev/spidev{sc.bus}.{sc.spi_device}"
            if not chk.device(section, "bus", path, "spi", "the SPI bus"):
                chk.add(
                    section,
                    "bus",
                    f"names {path}, which does not exist: enable SPI "
                    "(dtparam=spi=on in /boot/firmware/config.txt, or "
                    "sudo raspi-config nonint do_spi 0) and reboot",
                )
            continue
        if sc.bus not in buses_ok:
            buses_ok[sc.bus] = _i2c_bus(chk, section, sc.bus)
        if buses_ok[sc.bus]:
            _i2c_screen(chk, section, sc.bus, sc.address, sc.mux_address, sc.mux_channel)


def _i2c_bus(chk: DeviceChecker, section: str, bus: int) -> bool:
    path = f"/dev/i2c-{bus}"
    before = len(chk.problems)
    if not chk.device(section, "bus", path, "i2c", "the I2C bus"):
        chk.add(
            section,
            "bus",
            f"names {path}, which does not exist: enable I2C (dtparam=i2c_arm=on in "
            "/boot/firmware/config.txt, or sudo raspi-config nonint do_i2c 0) and reboot; "
            f"buses present: {chk.present('/dev/i2c-*')}",
        )
        return False
    return len(chk.problems) == before


def _i2c_screen(
    chk: DeviceChecker,
    section: str,
    bus: int,
    address: int,
    mux_address: int | None,
    mux_channel: int | None,
) -> None:
    mux = None
    where = f"/dev/i2c-{bus}"
    try:
        if mux_address is not None and mux_channel is not None:
            if not chk.probe.i2c_answers(bus, mux_address):
                chk.add(
                    section,
                    "mux_address",
                    f"is 0x{mux_address:02X}, where no TCA9548A answers on {where}: check "
                    "its wiring, power and A0-A2 address pins",
                )
                return
            mux = (mux_address, mux_channel)
            where += f" behind the TCA9548A at 0x{mux_address:02X} channel {mux_channel}"
        if not chk.probe.i2c_answers(bus, address, mux):
            chk.add(
                section,
                "address",
                f"is 0x{address:02X}, where no screen answers on {where}: check the wiring "
                "(SDA, SCL, 3.3 V, GND) and the address the module is set to (0x3C or 0x3D)",
            )
    except OSError as exc:
        if exc.errno == errno.EBUSY:
            chk.add(
                section,
                "address",
                f"is 0x{address:02X}, which a kernel driver holds on {where} "
                "(remove a dtoverlay=ssd1306 line from /boot/firmware/config.txt)",
            )
        else:
            chk.add(section, "bus", f"names {where}, which failed: {exc.strerror or exc}")
