"""The adapters from the daemon's one config schema to each device package's settings."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.config import CameraConfig as CameraSection
from controller.config import (
    CameraSource,
    Config,
    ScreenConfig,
    ScreenDriver,
    ScreenInterface,
    ScreenRole,
    load_config,
    parse_config,
)
from controller.config import ControlsConfig as ControlsSection
from controller.daemon.devices import (
    camera_config,
    controls_config,
    display_config,
    display_configs,
)
from hardware.controls import ButtonName, ControlsConfig
from hardware.displays.devices import DisplayConfig
from tests.paths import REPO
from vision.errors import ConfigError
from vision.sources import CameraConfig, open_source

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


def test_schema_defaults_give_the_display_defaults() -> None:
    assert display_config(ScreenConfig(role=ScreenRole.TURN)) == DisplayConfig("turn-1")


def test_the_demo_config_gives_four_dummy_screens() -> None:
    cfgs = display_configs(load_config(DEMO))
    assert [(c.name, c.driver, c.screen) for c in cfgs] == [
        ("turn-1", "dummy", "turn"),
        ("combat-2", "dummy", "combat"),
        ("team-3", "dummy", "seat:0"),
        ("team-4", "dummy", "seat:1"),
    ]
    assert display_configs(Config()) == []


def test_controls_pins_and_timings() -> None:
    section = ControlsSection(
        confirm=4,
        next=14,
        undo=15,
        menu=18,
        encoder_a=None,
        encoder_b=None,
        led_link=None,
        led_camera=26,
        led_seats=(16, 20),
        buzzer=None,
        pull_up=False,
        bounce_ms=0,
        hold_seconds=2.5,
    )
    cfg = controls_config(section)
    assert cfg.buttons == {
        ButtonName.CONFIRM: 4,
        ButtonName.NEXT: 14,
        ButtonName.UNDO: 15,
        ButtonName.MENU: 18,
    }
    assert (cfg.encoder_a, cfg.encoder_b, cfg.link_led, cfg.camera_led, cfg.buzzer) == (
        None,
        None,
        None,
        26,
        None,
    )
    assert cfg.seat_leds == (16, 20)
    assert (cfg.pull_up, cfg.bounce_s, cfg.long_press_s) == (False, None, 2.5)
    # every pin the section uses reaches the controls, and nothing else
    assert sorted(cfg.pins().values()) == sorted(section.pins().values())
    assert controls_config(ControlsSection()) == ControlsConfig()
    assert controls_config(ControlsSection(bounce_ms=35)).bounce_s == pytest.approx(0.035)


@pytest.mark.parametrize(
    ("camera", "kind"),
    [
        ({"source": "v4l2", "device": "/dev/video2"}, "v4l2"),
        ({"source": "file", "path": "throws.mp4"}, "video"),
        ({"source": "folder", "path": "frames"}, "folder"),
        ({"source": "synthetic"}, "synthetic"),
    ],
)
def test_each_camera_source_maps_to_a_kind(camera: dict[str, str], kind: str) -> None:
    cfg = parse_config(
        {"camera": {**camera, "width": 640, "height": 480, "fps": 15}}, base_dir=Path("/srv")
    )
    source = camera_config(cfg, seed=9)
    assert source.kind == kind
    assert (source.width, source.height, source.fps, source.seed) == (640, 480, 15.0, 9)
    if "path" in camera:
        assert source.path == f"/srv/{camera['path']}"
    if kind == "v4l2":
        assert source.device == "/dev/video2"


def test_every_camera_source_has_a_kind() -> None:
    for source in CameraSource:
        path = Path("/srv/x") if source in (CameraSource.FILE, CameraSource.FOLDER) else None
        cfg = Config(camera=CameraSection(source=source, path=path))
        assert camera_config(cfg).kind  # raises if a source had no kind


def test_a_camera_index_becomes_its_device_and_defaults_agree() -> None:
    cfg = parse_config({"camera": {"device": 3}})
    assert camera_config(cfg).device == "/dev/video3"
    schema, plain = camera_config(Config()), CameraConfig(kind="v4l2")
    assert (schema.device, schema.width, schema.height, schema.fps) == (
        plain.device,
        plain.width,
        plain.height,
        plain.fps,
    )


def test_the_demo_camera_renders_dice() -> None:
    src = open_source(camera_config(load_config(DEMO), seed=1))
    try:
        frame = src.read()
        assert frame is not None and frame.shape == (960, 1280, 3)
    finally:
        src.close()
    with pytest.raises(ConfigError):
        CameraConfig(kind="file")  # the schema's name, not the vision kind
