"""The ``[displays]`` config section: one ``[[displays.screen]]`` per OLED.

:class:`ScreenConfig` is one screen as the owner writes it (read by
:func:`parse_displays` for :mod:`controller.config`);
:func:`hardware.displays.device_config.display_configs` turns each into the
:class:`~hardware.displays.device_config.DisplayConfig` a luma device is opened
with (the one place that mapping lives). The I2C addresses, the TCA9548A
addresses and channels, and the other limits are defined here, once.

Imports only :mod:`controller.core`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from controller.core.config_schema import (
    MAX_BCM_PIN,
    Section,
    address,
    choice,
    choice_int,
    hex_byte,
    integer,
    path_in,
    text,
)

MAX_SCREENS = 8
SCREEN_ADDRESSES = (0x3C, 0x3D)  # SSD1306/SH1106 I2C addresses (SA0 low/high)
MUX_ADDRESSES = tuple(range(0x70, 0x78))  # TCA9548A, A0..A2
MUX_CHANNELS = 8
SCREEN_WIDTHS = (128,)
SCREEN_HEIGHTS = (64, 32)
I2C_BUSES = (0, 31)  # /dev/i2c-N, or SPI port N


class ScreenDriver(StrEnum):
    """The luma device behind a screen."""

    SSD1306 = "ssd1306"
    SH1106 = "sh1106"
    DUMMY = "dummy"
    EMULATOR = "emulator"


class ScreenInterface(StrEnum):
    """How a real screen is wired."""

    I2C = "i2c"
    SPI = "spi"


class ScreenRole(StrEnum):
    """What a screen shows: whose turn and the clock, the fight, the throw's options with
    the reroll advisor's hint (what to keep, the chance of a KO), or one seat's team."""

    TURN = "turn"
    COMBAT = "combat"
    OPTIONS = "options"
    TEAM = "team"


ROTATIONS = (0, 2)
"""luma's ``rotate`` the screens are drawn for: upright or upside down. A quarter turn (1,
3) swaps luma's width and height (``luma.core.mixin.capabilities``): the landscape layouts
were cut into a 64-px-wide canvas, half the screen blank (review 101)."""


@dataclass(frozen=True)
class ScreenConfig:
    """One [[displays.screen]]."""

    role: ScreenRole
    name: str = ""
    driver: ScreenDriver = ScreenDriver.SSD1306
    width: int = 128
    height: int = 64
    rotate: int = 0  # luma's rotate, in quarter turns: ROTATIONS
    seat: int | None = None  # the seat a "team" screen shows (1..players)
    interface: ScreenInterface = ScreenInterface.I2C
    bus: int = 1  # I2C bus N (/dev/i2c-N), or SPI port N (default 0 for SPI)
    address: int = 0x3C
    mux_address: int | None = None  # a TCA9548A in front of the screen
    mux_channel: int | None = None
    spi_device: int = 0  # SPI chip select (CE0/CE1)
    gpio_dc: int = 24  # SPI data/command pin (BCM)
    gpio_reset: int = 25  # SPI reset pin (BCM)
    output: Path | None = None  # emulator: the GIF written; None: a pygame window

    @property
    def label(self) -> str:
        """How messages name this screen."""
        return self.name or self.role.value


@dataclass(frozen=True)
class DisplaysConfig:
    """[displays]: the screens at the table edge."""

    screens: tuple[ScreenConfig, ...] = ()


def _screen(s: Section, players: int) -> ScreenConfig:
    d = ScreenConfig(role=ScreenRole.TURN)
    role: ScreenRole | None = s.get("role", None, choice(ScreenRole))
    if not s.has("role"):
        s.problem("role", f"is required; must be one of {', '.join(r.value for r in ScreenRole)}")
    interface = s.get("interface", d.interface, choice(ScreenInterface))
    gpio = integer(0, MAX_BCM_PIN)
    cfg = ScreenConfig(
        role=role or ScreenRole.TURN,
        name=s.get("name", d.name, text),
        driver=s.get("driver", d.driver, choice(ScreenDriver)),
        width=s.get("width", d.width, integer(min(SCREEN_WIDTHS), max(SCREEN_WIDTHS))),
        height=s.get("height", d.height, choice_int(SCREEN_HEIGHTS)),
        rotate=s.get("rotate", d.rotate, choice_int(ROTATIONS)),
        seat=s.get("seat", d.seat, integer(1, players)),
        interface=interface,
        bus=s.get("bus", 0 if interface is ScreenInterface.SPI else d.bus, integer(*I2C_BUSES)),
        address=s.get("address", d.address, address(SCREEN_ADDRESSES)),
        mux_address=s.get("mux_address", d.mux_address, address(MUX_ADDRESSES)),
        mux_channel=s.get("mux_channel", d.mux_channel, integer(0, MUX_CHANNELS - 1)),
        spi_device=s.get("spi_device", d.spi_device, integer(0, 1)),
        gpio_dc=s.get("gpio_dc", d.gpio_dc, gpio),
        gpio_reset=s.get("gpio_reset", d.gpio_reset, gpio),
        output=s.get("output", d.output, path_in(s.base_dir)),
    )
    if s.has("mux_address") != s.has("mux_channel"):
        missing = "mux_address" if s.has("mux_channel") else "mux_channel"
        s.problem(missing, "is required when the other mux option is set (a TCA9548A needs both)")
    if cfg.role is ScreenRole.TEAM and not s.has("seat"):
        s.problem("seat", f"is required when role is 'team'; must be 1..{players}")
    if cfg.role is not ScreenRole.TEAM and s.has("seat"):
        s.problem("seat", "is only valid when role is 'team'")
    if cfg.interface is ScreenInterface.SPI and cfg.mux_address is not None:
        s.problem("mux_address", "is only valid when interface is 'i2c'")
    if cfg.driver is not ScreenDriver.EMULATOR and s.has("output"):
        s.problem("output", "is only valid when driver is 'emulator'")
    return cfg


def parse_displays(s: Section, players: int) -> DisplaysConfig:
    """The [displays] section and its screens (a team screen's seat is 1..``players``).

    Notes its problems, and every screen's, in ``s``; finishes ``s`` itself.
    """
    raw: Any = s.get("screen", [], lambda v: v)
    s.finish()
    if not isinstance(raw, list):
        s.problem("screen", "must be a list of tables: write each screen as [[displays.screen]]")
        return DisplaysConfig()
    if len(raw) > MAX_SCREENS:
        s.problem("screen", f"must have at most {MAX_SCREENS} screens (got {len(raw)})")
    screens = []
    clean: set[int] = set()  # screens with no problem of their own, checked against each other
    for i, item in enumerate(raw, start=1):
        before = s.problems.mark()
        sub = s.sub(f"displays.screen[{i}]", item)
        screens.append(_screen(sub, players))
        sub.finish()
        if not s.problems.since(before):
            clean.add(i)
    _check_screens_apart(s, screens, clean)
    return DisplaysConfig(screens=tuple(screens))


def _check_screens_apart(s: Section, screens: Sequence[ScreenConfig], clean: set[int]) -> None:
    """Two screens on the same bus, mux channel and address would both draw the same pixels."""
    seen: dict[tuple[object, ...], int] = {}
    for i, sc in enumerate(screens, start=1):
        if i not in clean or sc.driver in (ScreenDriver.DUMMY, ScreenDriver.EMULATOR):
            continue
        if sc.interface is ScreenInterface.I2C:
            key: tuple[object, ...] = ("i2c", sc.bus, sc.mux_address, sc.mux_channel, sc.address)
            where = f"I2C bus {sc.bus} address {hex_byte(sc.address)}"
            if sc.mux_address is not None:
                where += (
                    f" behind the TCA9548A at {hex_byte(sc.mux_address)} channel {sc.mux_channel}"
                )
        else:
            key = ("spi", sc.bus, sc.spi_device)
            where = f"SPI port {sc.bus} device {sc.spi_device}"
        if key in seen:
            s.problems.add(
                f"displays.screen[{i}]",
                "address" if sc.interface is ScreenInterface.I2C else "spi_device",
                f"uses {where}, as screen[{seen[key]}] does; each screen needs its own "
                "(the second SSD1306 address is 0x3D, or put them behind a TCA9548A)",
            )
        else:
            seen[key] = i
    for key, i in seen.items():
        if key[0] == "i2c" and key[2] is not None:
            direct = ("i2c", key[1], None, None, key[4])
            if direct in seen:
                s.problems.add(
                    f"displays.screen[{i}]",
                    "address",
                    f"is 0x{key[4]:02X} behind the TCA9548A, the address screen[{seen[direct]}] "
                    f"has directly on I2C bus {key[1]}: when the channel opens both would "
                    "answer; give one the other address or put both behind the mux",
                )
