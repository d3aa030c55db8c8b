"""Controls settings: [controls] is what the controls take; the default pins hold together."""

from __future__ import annotations

import re

import pytest

from controller.config import load_config, parse_config
from controller.core.config_schema import I2C1_PINS, SPI0_PINS
from controller.core.errors import DataError
from hardware.controls import ButtonName, ControlsConfig
from tests.paths import REPO

pytestmark = pytest.mark.timeout(10)


def test_defaults_have_no_pin_twice_and_avoid_i2c_spi() -> None:
    pins = list(ControlsConfig().pins().values())
    assert len(pins) == len(set(pins)) == 13
    assert not set(pins) & {*I2C1_PINS, *SPI0_PINS, 24, 25}  # 24/25: an SPI screen's DC/RST


def test_defaults_are_the_documented_defaults() -> None:
    assert parse_config({}).controls == ControlsConfig()
    cfg = ControlsConfig()
    assert cfg.buttons == {
        ButtonName.CONFIRM: 5,
        ButtonName.NEXT: 6,
        ButtonName.UNDO: 13,
        ButtonName.MENU: 19,
    }
    assert (cfg.encoder_a, cfg.encoder_b, cfg.led_link, cfg.led_camera) == (17, 27, 22, 23)
    assert cfg.led_seats == (16, 20, 21, 26) and cfg.buzzer == 12
    assert cfg.hold_seconds == 1.0 and cfg.bounce_s == 0.02 and cfg.pull_up


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
    controls = cfg.controls
    assert controls.buttons[ButtonName.CONFIRM] == 4
    assert controls.encoder_a is None and controls.encoder_b is None
    assert controls.led_seats == () and controls.bounce_s is None
    assert controls.hold_seconds == 1.5 and controls.pull_up is False
    assert "encoder_a" not in controls.pins() and controls.pins()["confirm"] == 4


def test_buttons_and_debounce_as_gpiozero_takes_them() -> None:
    cfg = ControlsConfig(confirm=4, next=14, undo=None, menu=18, bounce_ms=35)
    assert cfg.buttons == {ButtonName.CONFIRM: 4, ButtonName.NEXT: 14, ButtonName.MENU: 18}
    assert cfg.bounce_s == pytest.approx(0.035)
    assert ControlsConfig(bounce_ms=0).bounce_s is None


ROOT = REPO


def test_the_wiring_tables_are_the_schema_defaults() -> None:
    """hardware/controls/README.md, systemd/README.md and the example config agree."""
    defaults = ControlsConfig()
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


@pytest.mark.parametrize(
    ("bounce_ms", "hold_seconds", "limit"), [(200, 0.1, "50"), (251, 0.5, "250")]
)
def test_a_debounce_as_long_as_the_hold_time_is_refused(
    bounce_ms: int, hold_seconds: float, limit: str
) -> None:
    """A press counts once steady bounce_ms: with a hold time no longer, every press that
    counts was a long one, and a short CONFIRM could not be made (nor, just under it, in
    practice: a short press must last from the debounce to the hold time)."""
    controls = {"bounce_ms": bounce_ms, "hold_seconds": hold_seconds}
    with pytest.raises(DataError) as raised:
        parse_config({"controls": controls})
    assert f"Option 'bounce_ms' in section 'controls' expected at most {limit}" in str(raised.value)
    parse_config({"controls": {**controls, "bounce_ms": int(limit)}})
