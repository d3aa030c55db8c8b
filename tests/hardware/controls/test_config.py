"""Controls settings: the default pins are the [controls] schema's, and hold together."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from controller.config import I2C1_PINS, SPI0_PINS, load_config, parse_config
from controller.config import ControlsConfig as ControlsSection
from controller.daemon.devices import controls_config
from hardware.controls import ButtonName, ControlsConfig
from tests.paths import REPO

pytestmark = pytest.mark.timeout(10)


def test_defaults_have_no_pin_twice_and_avoid_i2c_spi() -> None:
    pins = list(ControlsConfig().pins().values())
    assert len(pins) == len(set(pins)) == 13
    assert not set(pins) & {*I2C1_PINS, *SPI0_PINS, 24, 25}  # 24/25: an SPI screen's DC/RST


def test_defaults_are_the_documented_schema_defaults() -> None:
    schema = ControlsSection()
    assert controls_config(schema) == ControlsConfig()
    cfg = ControlsConfig()
    assert cfg.buttons == {
        ButtonName.CONFIRM: 5,
        ButtonName.NEXT: 6,
        ButtonName.UNDO: 13,
        ButtonName.MENU: 19,
    }
    assert (cfg.encoder_a, cfg.encoder_b, cfg.link_led, cfg.camera_led) == (17, 27, 22, 23)
    assert cfg.seat_leds == (16, 20, 21, 26) and cfg.buzzer == 12
    assert cfg.long_press_s == 1.0 and cfg.bounce_s == 0.02 and cfg.pull_up


def test_a_config_file_section_reaches_the_controls() -> None:
    cfg = parse_config(
        {
            "controls": {
                "confirm": 4,
                "encoder_a": False,
                "encoder_b": False,
                "led_seats": [],
                "bounce_ms": 0,
                "hold_seconds": 1.5,
                "pull_up": False,
            }
        }
    )
    controls = controls_config(cfg.controls)
    assert controls.buttons[ButtonName.CONFIRM] == 4
    assert controls.encoder_a is None and controls.encoder_b is None
    assert controls.seat_leds == () and controls.bounce_s is None
    assert controls.long_press_s == 1.5 and controls.pull_up is False
    assert "encoder A" not in controls.pins() and controls.pins()["button confirm"] == 4


ROOT = REPO


def test_the_wiring_tables_are_the_schema_defaults() -> None:
    """hardware/controls/README.md, systemd/README.md and the example config agree."""
    defaults = ControlsSection()
    expected = {
        name: ", ".join(map(str, pin)) if isinstance(pin, tuple) else str(pin)
        for name, pin in (
            ("confirm", defaults.confirm),
            ("next", defaults.next),
            ("undo", defaults.undo),
            ("menu", defaults.menu),
            ("encoder_a", defaults.encoder_a),
            ("encoder_b", defaults.encoder_b),
            ("led_link", defaults.led_link),
            ("led_camera", defaults.led_camera),
            ("led_seats", defaults.led_seats),
            ("buzzer", defaults.buzzer),
        )
    }
    readme = (ROOT / "hardware" / "controls" / "README.md").read_text(encoding="utf-8")
    table = dict(re.findall(r"^\| [^|]+ \| `(\w+)` \| ([\d, ]+) \|", readme, re.MULTILINE))
    assert {k: v.strip() for k, v in table.items()} == expected
    example = load_config(ROOT / "systemd" / "config.example.toml")
    assert example.controls == defaults
    wiring = (ROOT / "systemd" / "README.md").read_text(encoding="utf-8")
    words = " ".join(wiring.split())
    assert (
        f"buttons confirm {defaults.confirm}, next {defaults.next}, undo {defaults.undo}, "
        f"menu {defaults.menu}"
    ) in words
    assert f"encoder A {defaults.encoder_a}, B {defaults.encoder_b}" in words
    assert f"LEDs link {defaults.led_link}, camera {defaults.led_camera}, seats " in words
    assert f"seats {expected['led_seats']}; buzzer {defaults.buzzer}" in words
