"""[displays]: each [[displays.screen]] becomes the display it opens, through one mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import Config, load_config
from hardware.displays.device_config import DisplayConfig, display_config, display_configs
from hardware.displays.settings import ScreenConfig, ScreenDriver, ScreenInterface, ScreenRole
from tests.paths import REPO

pytestmark = pytest.mark.timeout(20)

DEMO = REPO / "controller" / "data" / "demo" / "config.toml"


@pytest.mark.parametrize(
    ("role", "seat", "shown"),
    [
        (ScreenRole.TURN, None, "turn"),
        (ScreenRole.COMBAT, None, "combat"),
        (ScreenRole.TEAM, 1, "seat:0"),
        (ScreenRole.TEAM, 4, "seat:3"),
    ],
)
def test_each_role_shows_its_screen(role: ScreenRole, seat: int | None, shown: str) -> None:
    assert display_config(ScreenConfig(role=role, seat=seat)).screen == shown


@pytest.mark.parametrize(
    ("driver", "output", "expected"),
    [
        (ScreenDriver.SSD1306, None, "ssd1306"),
        (ScreenDriver.SH1106, None, "sh1106"),
        (ScreenDriver.DUMMY, None, "dummy"),
        (ScreenDriver.EMULATOR, None, "pygame"),
        (ScreenDriver.EMULATOR, Path("/tmp/turn.gif"), "gifanim"),
    ],
)
def test_each_driver_maps_to_a_luma_device(
    driver: ScreenDriver, output: Path | None, expected: str
) -> None:
    cfg = display_config(ScreenConfig(role=ScreenRole.TURN, driver=driver, output=output))
    assert cfg.driver == expected
    assert cfg.output == (str(output) if output is not None else "")


def test_i2c_mux_and_spi_wiring_is_carried_over() -> None:
    mux = display_config(
        ScreenConfig(
            role=ScreenRole.TEAM,
            seat=2,
            name="ben",
            driver=ScreenDriver.SH1106,
            height=32,
            rotate=2,
            address=0x3D,
            mux_address=0x71,
            mux_channel=5,
        )
    )
    assert (mux.name, mux.driver, mux.height, mux.rotate) == ("ben", "sh1106", 32, 2)
    assert (mux.bus, mux.address, mux.mux_address, mux.mux_channel) == (1, 0x3D, 0x71, 5)
    assert mux.where().endswith("at address 0x3D behind TCA9548A 0x71 channel 5")
    spi = display_config(
        ScreenConfig(
            role=ScreenRole.COMBAT,
            interface=ScreenInterface.SPI,
            bus=0,
            spi_device=1,
            gpio_dc=5,
            gpio_reset=6,
        ),
        index=1,
    )
    assert (spi.interface, spi.spi_port, spi.spi_device, spi.gpio_dc, spi.gpio_rst) == (
        "spi",
        0,
        1,
        5,
        6,
    )
    assert spi.name == "combat-2"


def test_section_defaults_give_the_display_defaults() -> None:
    assert display_config(ScreenConfig(role=ScreenRole.TURN)) == DisplayConfig("turn-1")


def test_the_demo_config_gives_four_dummy_screens() -> None:
    cfgs = display_configs(load_config(DEMO).displays)
    assert [(c.name, c.driver, c.screen) for c in cfgs] == [
        ("turn-1", "dummy", "turn"),
        ("combat-2", "dummy", "combat"),
        ("team-3", "dummy", "seat:0"),
        ("team-4", "dummy", "seat:1"),
    ]
    assert display_configs(Config().displays) == []
