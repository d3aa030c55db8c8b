"""What a luma device is opened with (:class:`DisplayConfig`), mapped from ``[[displays.screen]]``.

The config file's ``[[displays.screen]]`` (:class:`~hardware.displays.settings.ScreenConfig`,
checked there, every problem named) becomes one through :func:`display_config`,
the only mapping between the two; the defaults they share (the size, the I2C
bus and address, the SPI pins) are the section's.
"""

from __future__ import annotations

from dataclasses import dataclass

from hardware.displays.errors import DisplayConfigError
from hardware.displays.i2c_bus import TCA9548A_DEFAULT_ADDRESS
from hardware.displays.screens import screen_by_name
from hardware.displays.settings import (
    DisplaysConfig,
    ScreenConfig,
    ScreenDriver,
    ScreenInterface,
    ScreenRole,
)

DRIVERS = ("ssd1306", "sh1106", "dummy", "pygame", "capture", "gifanim")
"""luma.oled drivers, luma.core's dummy device, and luma.emulator's three devices."""
INTERFACES = ("i2c", "spi")


_SCHEMA = ScreenConfig(role=ScreenRole.TURN)
"""The documented [[displays.screen]] defaults: the one source of the shared ones."""


@dataclass(frozen=True)
class DisplayConfig:
    """One display. ``screen`` is what it shows (alerts, if on, take it over)."""

    name: str
    driver: str = _SCHEMA.driver.value
    interface: str = _SCHEMA.interface.value
    width: int = _SCHEMA.width
    height: int = _SCHEMA.height
    rotate: int = _SCHEMA.rotate
    bus: int = _SCHEMA.bus
    address: int = _SCHEMA.address
    mux_address: int | None = None
    mux_channel: int | None = None
    spi_port: int = 0
    spi_device: int = _SCHEMA.spi_device
    gpio_dc: int = _SCHEMA.gpio_dc
    gpio_rst: int = _SCHEMA.gpio_reset
    spi_speed_hz: int = 8_000_000
    screen: str = _SCHEMA.role.value
    alerts: bool = True
    output: str = ""
    """File (gifanim) or file template (capture) for the emulators."""

    def __post_init__(self) -> None:
        """Raises: DisplayConfigError (a driver or interface this package does not know),
        UnknownScreenError (no such screen)."""
        if self.driver not in DRIVERS:
            raise DisplayConfigError(
                f"display {self.name!r}: driver {self.driver!r} is not one of {', '.join(DRIVERS)}"
            )
        if self.interface not in INTERFACES:
            raise DisplayConfigError(
                f"display {self.name!r}: interface {self.interface!r} is not one of "
                f"{', '.join(INTERFACES)}"
            )
        screen_by_name(self.screen)

    def where(self) -> str:
        """Where the display is wired, for messages (bus, address, mux channel or SPI pins)."""
        kind = f"{self.driver} {self.width}x{self.height}"
        if self.driver in ("dummy", "pygame", "capture", "gifanim"):
            return f"display {self.name!r} ({kind})"
        if self.interface == "spi":
            return (
                f"display {self.name!r} ({kind}) on SPI port {self.spi_port} device "
                f"{self.spi_device} (DC GPIO{self.gpio_dc}, RST GPIO{self.gpio_rst})"
            )
        text = (
            f"display {self.name!r} ({kind}) on I2C bus {self.bus} at address 0x{self.address:02X}"
        )
        if self.mux_channel is not None:
            mux = self.mux_address if self.mux_address is not None else TCA9548A_DEFAULT_ADDRESS
            text += f" behind TCA9548A 0x{mux:02X} channel {self.mux_channel}"
        return text


def display_config(screen: ScreenConfig, index: int = 0) -> DisplayConfig:
    """One ``[[displays.screen]]`` (the ``index``-th, from 0) as the display it opens.

    Its role becomes the screen it shows (a team screen shows its seat); an
    emulator writes a GIF when ``output`` is set, else opens a pygame window.
    """
    if screen.role is ScreenRole.TEAM:
        shown = f"seat:{(screen.seat or 1) - 1}"
    else:
        shown = screen.role.value
    driver = screen.driver.value
    if screen.driver is ScreenDriver.EMULATOR:
        driver = "gifanim" if screen.output is not None else "pygame"
    return DisplayConfig(
        name=screen.name or f"{screen.label}-{index + 1}",
        driver=driver,
        interface=screen.interface.value,
        width=screen.width,
        height=screen.height,
        rotate=screen.rotate,
        bus=screen.bus,
        address=screen.address,
        mux_address=screen.mux_address,
        mux_channel=screen.mux_channel,
        spi_port=screen.bus if screen.interface is ScreenInterface.SPI else 0,
        spi_device=screen.spi_device,
        gpio_dc=screen.gpio_dc,
        gpio_rst=screen.gpio_reset,
        screen=shown,
        # the fight and its options stay on their own screens
        alerts=screen.role not in (ScreenRole.COMBAT, ScreenRole.OPTIONS),
        output=str(screen.output) if screen.output is not None else "",
    )


def display_configs(displays: DisplaysConfig) -> list[DisplayConfig]:
    """Every ``[[displays.screen]]`` of the ``[displays]`` section, in order."""
    return [display_config(s, i) for i, s in enumerate(displays.screens)]
