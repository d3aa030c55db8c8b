"""Controls config: which GPIO (BCM numbers) each button, LED and the buzzer use.

Defaults (the wiring table in ``hardware/controls/README.md``) keep clear of
I2C (GPIO2/3), SPI0 (GPIO7-11) and the SPI display's DC/RST (GPIO24/25).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

from controller.errors import DataError, DataProblem
from hardware.controls.events import ButtonName

DEFAULT_BUTTON_PINS: dict[ButtonName, int] = {
    ButtonName.CONFIRM: 17,
    ButtonName.NEXT: 27,
    ButtonName.UNDO: 22,
    ButtonName.MENU: 23,
}


@dataclass(frozen=True)
class ControlsConfig:
    """Pins (None: not fitted) and timings of the table's controls.

    Buttons connect the pin to ground (internal pull-up). ``repeat`` buttons
    post a press at once and repeat while held; the others post on release, or
    a long press once held for ``long_press_s``.
    """

    buttons: Mapping[ButtonName, int] = field(default_factory=lambda: dict(DEFAULT_BUTTON_PINS))
    repeat: tuple[ButtonName, ...] = (ButtonName.NEXT,)
    long_press_s: float = 0.8
    repeat_s: float = 0.25
    bounce_s: float | None = 0.02
    encoder_a: int | None = 5
    encoder_b: int | None = 6
    seat_leds: tuple[int, ...] = (12, 16, 20, 21)
    link_led: int | None = 19
    camera_led: int | None = 26
    buzzer: int | None = 13
    beep_s: float = 0.1
    """One beep unit: the clock alarm is three beeps, an elimination one long beep."""

    def pins(self) -> dict[str, int]:
        """Every fitted pin by role, e.g. ``{'button confirm': 17, 'seat LED 0': 12}``."""
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


def _pin(value: Any) -> int | None:
    """A BCM pin number; ``None`` or ``false`` (TOML has no null) mean "not fitted"."""
    if value is None or value is False:
        return None
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= 27:
        return value
    raise ValueError(f"expected a BCM GPIO number 0..27 (or false), got {value!r}")


def _seconds(value: Any) -> float:
    if isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 10:
        return float(value)
    raise ValueError(f"expected seconds between 0 and 10, got {value!r}")


def parse_controls_config(data: Any, file: str = "config") -> ControlsConfig:
    """Check and convert a ``[controls]`` table; missing keys keep their defaults.

    ``buttons`` maps names to pins (``none`` leaves a button out); ``repeat``
    lists button names. Two roles on one pin are an error.

    Raises:
        DataError: every problem, naming the file, ``controls`` and the field.
    """
    problems: list[DataProblem] = []

    def bad(name: str, message: str) -> None:
        problems.append(DataProblem(file, "controls", name, message))

    if not isinstance(data, Mapping):
        raise DataError.single(file, "controls", "", "expected a table")
    known = {f.name for f in fields(ControlsConfig)}
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            bad(key, f"unknown option (known: {', '.join(sorted(known))})")
            continue
        try:
            values[key] = _convert(key, value)
        except ValueError as exc:
            bad(key, str(exc))
    if problems:
        raise DataError(problems)
    cfg = ControlsConfig(**values)
    seen: dict[int, str] = {}
    for role, pin in cfg.pins().items():
        if pin in seen:
            bad(
                role.split()[0] if role.startswith("button") else role,
                f"GPIO{pin} is also {seen[pin]}",
            )
        seen.setdefault(pin, role)
    for b in cfg.repeat:
        if b not in cfg.buttons:
            bad("repeat", f"button '{b.value}' has no pin")
    if problems:
        raise DataError(problems)
    return cfg


def _button_name(value: Any) -> ButtonName:
    try:
        return ButtonName(value)
    except ValueError:
        names = ", ".join(b.value for b in ButtonName)
        raise ValueError(f"{value!r} is not a button ({names})") from None


def _convert(key: str, value: Any) -> Any:
    if key == "buttons":
        if not isinstance(value, Mapping):
            raise ValueError("expected a table of button = pin")
        out: dict[ButtonName, int] = {}
        for name, pin in value.items():
            p = _pin(pin)
            if p is not None:
                out[_button_name(name)] = p
            else:
                _button_name(name)
        return out
    if key == "repeat":
        if not isinstance(value, list):
            raise ValueError("expected a list of button names")
        return tuple(_button_name(v) for v in value)
    if key == "seat_leds":
        if not isinstance(value, list):
            raise ValueError("expected a list of pins")
        pins = [_pin(v) for v in value]
        return tuple(p for p in pins if p is not None)
    if key in ("long_press_s", "repeat_s", "beep_s"):
        return _seconds(value)
    if key == "bounce_s":
        return None if value is None or value == 0 else _seconds(value)
    return _pin(value)
