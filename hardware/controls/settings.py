"""The ``[controls]`` config section, and the settings the controls are built from.

:class:`ControlsConfig` is both: the section as the owner writes it (BCM pin
numbers; read by :func:`parse_controls` for :mod:`controller.config`) and what
:class:`~hardware.controls.inputs.TableInputs` and
:class:`~hardware.controls.outputs.TableOutputs` take, so an option means the
same thing everywhere and the default pins are written once (the wiring table
in ``hardware/controls/README.md`` and ``systemd/config.example.toml`` show
them). The few settings the file does not offer (which buttons repeat, the
repeat and beep timings) are fields with defaults that code may replace.

Imports only :mod:`controller.core` and this package.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from controller.core.config_schema import (
    NOT_IN_FILE,
    Section,
    boolean,
    choice,
    integer,
    number,
    optional_pin,
    pin,
    pin_list,
)
from hardware.controls.events import ButtonName

BOUNCE_MS = (0, 500)
"""Debounce time in milliseconds (0: none)."""
HOLD_SECONDS = (0.1, 10.0)
"""How long a button is held for a long press."""


class ControlsBackend(StrEnum):
    """gpiozero with the Pi's pin factory, or gpiozero's MockFactory."""

    GPIOZERO = "gpiozero"
    MOCK = "mock"


@dataclass(frozen=True)
class ControlsConfig:
    """[controls]: buttons, encoder, LEDs and buzzer (BCM pin numbers; None: not fitted).

    Buttons connect the pin to ground (internal pull-up) unless ``pull_up`` is
    False. ``repeat`` buttons post a press at once and repeat while held; the
    others post on release, or a long press once held for ``hold_seconds``.
    """

    backend: ControlsBackend = ControlsBackend.GPIOZERO
    confirm: int | None = 5
    next: int | None = 6
    undo: int | None = 13
    menu: int | None = 19
    encoder_a: int | None = 17
    encoder_b: int | None = 27
    led_link: int | None = 22
    led_camera: int | None = 23
    led_seats: tuple[int, ...] = (16, 20, 21, 26)
    buzzer: int | None = 12
    pull_up: bool = True
    bounce_ms: int = 20
    hold_seconds: float = 1.0
    # not in the config file:
    repeat: tuple[ButtonName, ...] = field(default=(ButtonName.NEXT,), metadata=NOT_IN_FILE)
    repeat_s: float = field(default=0.25, metadata=NOT_IN_FILE)
    beep_s: float = field(default=0.1, metadata=NOT_IN_FILE)
    """One beep unit: the clock alarm is three beeps, an elimination one long beep."""

    @property
    def buttons(self) -> dict[ButtonName, int]:
        """Every fitted button's pin, in :class:`ButtonName` order."""
        pins = {
            ButtonName.CONFIRM: self.confirm,
            ButtonName.NEXT: self.next,
            ButtonName.UNDO: self.undo,
            ButtonName.MENU: self.menu,
        }
        return {name: p for name, p in pins.items() if p is not None}

    @property
    def bounce_s(self) -> float | None:
        """The debounce in seconds, None for none: a button's level counts once steady this
        long (``inputs._ButtonWatch``), the encoder's gpiozero ``bounce_time``."""
        return self.bounce_ms / 1000 if self.bounce_ms > 0 else None

    def pins(self) -> dict[str, int]:
        """Every pin in use, by option name (``led_seats[2]`` for list items)."""
        named: dict[str, int | None] = {
            "confirm": self.confirm,
            "next": self.next,
            "undo": self.undo,
            "menu": self.menu,
            "encoder_a": self.encoder_a,
            "encoder_b": self.encoder_b,
            "led_link": self.led_link,
            "led_camera": self.led_camera,
            "buzzer": self.buzzer,
        }
        for i, p in enumerate(self.led_seats, start=1):
            named[f"led_seats[{i}]"] = p
        return {k: v for k, v in named.items() if v is not None}


def parse_controls(s: Section) -> ControlsConfig:
    """The [controls] section; its problems are noted in ``s``.

    Buttons are required pins; the encoder, LEDs and buzzer may be ``false``.
    Pins shared with other sections are checked by :mod:`controller.config`.
    """
    d = ControlsConfig()
    out = ControlsConfig(
        backend=s.get("backend", d.backend, choice(ControlsBackend)),
        confirm=s.get("confirm", d.confirm, pin),
        next=s.get("next", d.next, pin),
        undo=s.get("undo", d.undo, pin),
        menu=s.get("menu", d.menu, pin),
        encoder_a=s.get("encoder_a", d.encoder_a, optional_pin),
        encoder_b=s.get("encoder_b", d.encoder_b, optional_pin),
        led_link=s.get("led_link", d.led_link, optional_pin),
        led_camera=s.get("led_camera", d.led_camera, optional_pin),
        led_seats=s.get("led_seats", d.led_seats, pin_list),
        buzzer=s.get("buzzer", d.buzzer, optional_pin),
        pull_up=s.get("pull_up", d.pull_up, boolean),
        bounce_ms=s.get("bounce_ms", d.bounce_ms, integer(*BOUNCE_MS)),
        hold_seconds=s.get("hold_seconds", d.hold_seconds, number(*HOLD_SECONDS)),
    )
    # a press counts once steady bounce_ms (hardware.controls.inputs._ButtonWatch): a short
    # press must last from that to the hold time, so half the hold time at most leaves it
    # room; NEXT's repeat (0.25 s) would only lose its first step
    most = out.hold_seconds * 1000 / 2
    if out.bounce_ms > most:
        s.problem("bounce_ms", f"expected at most {most:g} (half the hold time: a short press "
                  f"must last from the debounce to the hold time), got {out.bounce_ms}")  # fmt: skip
    return out
