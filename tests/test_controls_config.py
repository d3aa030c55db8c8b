"""Controls config: defaults, pins from config, every problem named."""

from __future__ import annotations

import pytest

from controller.errors import DataError
from hardware.controls import ButtonName, ControlsConfig, parse_controls_config

pytestmark = pytest.mark.timeout(10)


def test_defaults_have_no_pin_twice_and_avoid_i2c_spi() -> None:
    pins = list(ControlsConfig().pins().values())
    assert len(pins) == len(set(pins)) == 13
    assert not set(pins) & {2, 3, 7, 8, 9, 10, 11, 24, 25}


def test_parse_overrides_and_not_fitted() -> None:
    cfg = parse_controls_config(
        {
            "buttons": {"confirm": 4, "next": 5, "undo": False},
            "encoder_a": False,
            "encoder_b": False,
            "seat_leds": [12, 16],
            "long_press_s": 1.5,
            "bounce_s": 0,
        }
    )
    assert cfg.buttons == {ButtonName.CONFIRM: 4, ButtonName.NEXT: 5}
    assert cfg.encoder_a is None and cfg.seat_leds == (12, 16)
    assert cfg.long_press_s == 1.5 and cfg.bounce_s is None


def test_every_problem_is_named() -> None:
    with pytest.raises(DataError) as err:
        parse_controls_config(
            {"buttons": {"fire": 4}, "buzzer": 40, "long_press_s": -1, "leds": [1]}, "t.toml"
        )
    text = str(err.value)
    assert "t.toml: controls: field 'buttons': 'fire' is not a button" in text
    assert "t.toml: controls: field 'buzzer': expected a BCM GPIO number 0..27" in text
    assert "t.toml: controls: field 'long_press_s': expected seconds" in text
    assert "t.toml: controls: field 'leds': unknown option" in text


def test_two_roles_on_one_pin() -> None:
    with pytest.raises(DataError, match="field 'buzzer': GPIO17 is also button confirm"):
        parse_controls_config({"buzzer": 17})
    with pytest.raises(DataError, match="field 'repeat': button 'menu' has no pin"):
        parse_controls_config({"buttons": {"confirm": 4}, "repeat": ["menu"]})
