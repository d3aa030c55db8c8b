"""From the daemon's config (the one TOML schema an owner edits) to each device's settings.

``controller/config.py`` validates the whole file; the device packages take
typed settings of their own. These adapters are the only place that maps one
to the other, so a key means the same thing everywhere.
"""

from __future__ import annotations

from controller.config import (
    CameraSource,
    Config,
    ScreenConfig,
    ScreenDriver,
    ScreenInterface,
    ScreenRole,
)
from controller.config import ControlsConfig as ControlsSection
from hardware.controls.config import ControlsConfig, bounce_seconds
from hardware.controls.events import ButtonName
from hardware.displays.devices import DisplayConfig
from vision.sources import CameraConfig

_CAMERA_KINDS = {
    CameraSource.V4L2: "v4l2",
    CameraSource.FILE: "video",
    CameraSource.FOLDER: "folder",
    CameraSource.SYNTHETIC: "synthetic",
}


def display_configs(config: Config) -> list[DisplayConfig]:
    """Every [[displays.screen]] as the displays package's settings."""
    return [display_config(s, i) for i, s in enumerate(config.displays.screens)]


def display_config(screen: ScreenConfig, index: int = 0) -> DisplayConfig:
    """One screen's settings: its role becomes the screen it shows."""
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
        alerts=screen.role is not ScreenRole.COMBAT,  # the fight stays on its own screen
        output=str(screen.output) if screen.output is not None else "",
    )


def controls_config(section: ControlsSection) -> ControlsConfig:
    """The [controls] section as the controls package's settings."""
    return ControlsConfig(
        buttons={
            ButtonName.CONFIRM: section.confirm,
            ButtonName.NEXT: section.next,
            ButtonName.UNDO: section.undo,
            ButtonName.MENU: section.menu,
        },
        long_press_s=section.hold_seconds,
        bounce_s=bounce_seconds(section.bounce_ms),
        pull_up=section.pull_up,
        encoder_a=section.encoder_a,
        encoder_b=section.encoder_b,
        seat_leds=section.led_seats,
        link_led=section.led_link,
        camera_led=section.led_camera,
        buzzer=section.buzzer,
    )


def camera_config(config: Config, seed: int = 0) -> CameraConfig:
    """The [camera] section as the vision package's source settings."""
    cam = config.camera
    return CameraConfig(
        kind=_CAMERA_KINDS[cam.source],
        device=cam.device_path,
        path=str(cam.path) if cam.path is not None else "",
        width=cam.width,
        height=cam.height,
        fps=cam.fps,
        loop=cam.source in (CameraSource.FILE, CameraSource.FOLDER),  # a recording replays
        seed=seed,
    )
