"""Controls settings: which GPIO (BCM numbers) each button, LED and the buzzer use.

This is the controls package's typed target, not a config file format: the one
TOML schema is ``[controls]`` in :mod:`controller.config`, checked there, and
``controller.daemon.devices.controls_config`` maps it here. The pin and timing
defaults below are taken from that schema's defaults (the wiring table in
``hardware/controls/README.md`` and ``systemd/config.example.toml``), so there
is one set of default pins; only what the schema leaves out (which buttons
repeat, the repeat and beep timings) is decided here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from controller.config import ControlsConfig as ControlsSection
from hardware.controls.events import ButtonName

_SCHEMA = ControlsSection()
"""The documented [controls] defaults: the one source of the default pins."""

DEFAULT_BUTTON_PINS: Mapping[ButtonName, int] = {
    ButtonName.CONFIRM: _SCHEMA.confirm,
    ButtonName.NEXT: _SCHEMA.next,
    ButtonName.UNDO: _SCHEMA.undo,
    ButtonName.MENU: _SCHEMA.menu,
}


def bounce_seconds(bounce_ms: int) -> float | None:
    """gpiozero's ``bounce_time`` for a debounce in milliseconds (0: no debounce)."""
    return bounce_ms / 1000 if bounce_ms > 0 else None


@dataclass(frozen=True)
class ControlsConfig:
    """Pins (None: not fitted) and timings of the table's controls.

    Buttons connect the pin to ground (internal pull-up) unless ``pull_up`` is
    False. ``repeat`` buttons post a press at once and repeat while held; the
    others post on release, or a long press once held for ``long_press_s``.
    """

    buttons: Mapping[ButtonName, int] = field(default_factory=lambda: dict(DEFAULT_BUTTON_PINS))
    repeat: tuple[ButtonName, ...] = (ButtonName.NEXT,)
    long_press_s: float = _SCHEMA.hold_seconds
    repeat_s: float = 0.25
    bounce_s: float | None = bounce_seconds(_SCHEMA.bounce_ms)
    pull_up: bool = _SCHEMA.pull_up
    encoder_a: int | None = _SCHEMA.encoder_a
    encoder_b: int | None = _SCHEMA.encoder_b
    seat_leds: tuple[int, ...] = _SCHEMA.led_seats
    link_led: int | None = _SCHEMA.led_link
    camera_led: int | None = _SCHEMA.led_camera
    buzzer: int | None = _SCHEMA.buzzer
    beep_s: float = 0.1
    """One beep unit: the clock alarm is three beeps, an elimination one long beep."""

    def pins(self) -> dict[str, int]:
        """Every fitted pin by role, e.g. ``{'button confirm': 5, 'seat LED 0': 16}``."""
        roles: dict[str, int] = {f"button {b}": p for b, p in self.buttons.items()}
        for role, pin in (
            ("encoder A", self.encoder_a),
            ("encoder B", self.encoder_b),
            ("link LED", self.link_led),
            ("camera LED", self.camera_led),
            ("buzzer", self.buzzer),
        ):
            if pin is not None:
                roles[role] = pin
        roles.update({f"seat LED {i}": p for i, p in enumerate(self.seat_leds)})
        return roles
