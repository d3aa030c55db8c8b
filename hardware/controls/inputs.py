"""Buttons and the rotary encoder, through gpiozero: each press becomes a typed event.

:class:`TableInputs` builds gpiozero devices from a :class:`ControlsConfig` on
the pin factory given (or gpiozero's default: the real pins on a Pi,
``MockFactory`` in tests) and posts :class:`ButtonPressed`,
:class:`ButtonRepeated` and :class:`EncoderTurned` into the ``queue.Queue``
passed in. Callbacks run on gpiozero's threads and only post events.

A button or encoder that cannot be set up (pin in use, bad pin, no GPIO access)
is skipped with a :class:`ControlUnavailableError` in :attr:`TableInputs.failed`
naming it and its pin; the others work.
"""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from hardware.controls.errors import ControlUnavailableError
from hardware.controls.events import ButtonName, ButtonPressed, ButtonRepeated, EncoderTurned
from hardware.controls.settings import ControlsConfig
from hardware.lgpio_errors import lgpio_error, pipe_problem

log = logging.getLogger(__name__)
STUCK_AFTER_S = 10.0
"""A button held down this long is taken for stuck (a long press is one second)."""


def describe_gpio_error(role: str, pins: str, exc: BaseException) -> ControlUnavailableError:
    """A :class:`ControlUnavailableError` for ``role`` on ``pins`` explaining ``exc``."""
    name = type(exc).__name__
    held_error = lgpio_error()
    text = getattr(exc, "value", None) if held_error and isinstance(exc, held_error) else None
    if name == "GPIOPinInUse":
        reason = "pin already in use (by another device or program)"
    elif text == "GPIO busy":
        reason = (
            "pin already in use (by another program or a kernel driver: "
            "`gpioinfo` names the line's user)"
        )
    elif text == "can not open gpiochip":
        reason = "cannot open the GPIO chip (/dev/gpiochip*): add the user to the 'gpio' group"
    elif name in ("PinInvalidPin", "PinUnknownPi"):
        reason = f"no such pin ({exc})"
    elif name == "BadPinFactory":
        reason = "no GPIO access on this machine (install lgpio on a Pi, or use the mock factory)"
    elif isinstance(exc, ImportError):
        reason = (
            f"gpiozero's pin library is missing ({exc}): install lgpio "
            "(apt install python3-lgpio, or the 'pi' extra), or use the mock factory"
        )
    elif (no_pipe := pipe_problem(exc)) is not None:
        reason = no_pipe
    elif isinstance(exc, PermissionError):
        reason = "permission denied: add the user to the 'gpio' group"
    else:
        reason = str(exc) or name
    return ControlUnavailableError(f"{role} on {pins}: {reason}")


def gpio_errors() -> tuple[type[BaseException], ...]:
    """What setting up a gpiozero device raises for a pin it cannot have.

    gpiozero 2.0.1 passes its pin library's errors through: under the unit's
    ``GPIOZERO_PIN_FACTORY=lgpio`` its ``Device._default_pin_factory`` loads the
    ``lgpio`` entry point without a fallback (an ``ImportError`` when lgpio is
    missing), and ``LGPIOFactory``/``LGPIOPin`` raise lgpio's own ``lgpio.error``
    (lgpio 0.2.2.0, ``lgpio_extra.py`` ``_u2i``: not an OSError) for a chip the
    user may not open or a line another program holds ("GPIO busy").
    """
    from gpiozero.exc import GPIOZeroError

    errors: tuple[type[BaseException], ...] = (GPIOZeroError, OSError, RuntimeError, ImportError)
    held_error = lgpio_error()
    return errors if held_error is None else (*errors, held_error)


class _ButtonWatch:
    """Turns one gpiozero Button's callbacks into events (long press or hold-repeat).

    gpiozero 2.0.1 calls ``when_held`` on the button's ``HoldThread`` (``HoldThread.held``:
    its wait for the release times out, then ``_fire_held``) and ``when_released`` on the
    pin's thread; nothing orders the two. A release at the hold time could come between
    the timeout and the call: it posted a short press, then the hold a long one. So each
    press is decided once, under the lock: the first of the release and the hold wins,
    and a hold that comes after the release is dropped (a repeat too).
    """

    def __init__(
        self, name: ButtonName, button: Any, post: Any, repeat: bool, bounce_s: float | None = None
    ) -> None:
        self.name = name
        self.button = button
        self._post = post
        self._repeat = repeat
        self._lock = threading.Lock()
        self._held = 0
        self._down = False  # between this press's when_pressed and its when_released
        self._bounce_s = bounce_s or 0.0
        self._steady = False  # the level last steady for the debounce time: pressed
        self._settling: threading.Timer | None = None
        self._settle_lock = threading.Lock()
        button.when_held = self._held_cb
        if self._bounce_s:
            button.when_pressed = button.when_released = self._edge
        else:
            button.when_pressed = self._pressed
            button.when_released = self._released

    def _edge(self) -> None:
        """Any edge: the level is taken once it has stayed put ``bounce_s``.

        gpiozero hands ``bounce_time`` to the pin library, and lgpio 0.2.2.0 does not apply
        it (joan2937/lg issue 19, open: ``lgPthAlerts.c`` ``xDebWatEvt`` compares the
        kernel's monotonic event stamps with ``lguTimestamp``'s real-time clock), so a
        switch's chatter reached the table as several presses."""
        timer = threading.Timer(self._bounce_s, self._settle)
        timer.daemon = True
        with self._lock:
            if self._settling is not None:
                self._settling.cancel()
            self._settling = timer
        timer.start()

    def _settle(self) -> None:
        with self._settle_lock:
            pressed = bool(self.button.is_pressed)
            if pressed == self._steady:
                return  # a glitch shorter than the debounce, or chatter ending where it began
            self._steady = pressed
            if pressed:
                self._pressed()
            else:
                self._released()

    def close(self) -> None:
        """Stop a pending debounce and release the pin."""
        with self._lock:
            if self._settling is not None:
                self._settling.cancel()
        self.button.close()

    def _pressed(self) -> None:
        with self._lock:
            self._held, self._down = 0, True
            if self._repeat:
                self._post(ButtonPressed(self.name))

    def _held_cb(self) -> None:
        if self._bounce_s and not self._down and self.button.is_pressed:
            # gpiozero times the hold from the last raw edge, as the settle timer does, and
            # the hold time is over twice the debounce: steady, whichever thread comes first
            self._settle()
        held = self.button.active_time
        with self._lock:
            if not self._down:
                return  # released already: its short press (or its last repeat) stands
            self._held += 1
            count = self._held
            if self._repeat and held is not None and held >= STUCK_AFTER_S:
                return  # stuck (a fault, TableInputs.stuck): its repeats would spin the cursor
            if self._repeat:
                self._post(ButtonRepeated(self.name, count))
            elif count == 1:
                self._post(ButtonPressed(self.name, long=True))

    def _released(self) -> None:
        with self._lock:
            held, self._held, self._down = self._held, 0, False
            if not self._repeat and not held:
                self._post(ButtonPressed(self.name))


class TableInputs:
    """The table's buttons and encoder, posting events to ``events``.

    A context manager; :meth:`close` releases the pins (idempotent).
    """

    def __init__(
        self,
        config: ControlsConfig,
        events: queue.Queue[Any],
        pin_factory: Any = None,
    ) -> None:
        from gpiozero import Button, RotaryEncoder

        self.config = config
        self._events = events
        self.failed: list[ControlUnavailableError] = []
        self.buttons: dict[ButtonName, _ButtonWatch] = {}
        self._said_stuck: set[str] = set()
        self.encoder: Any = None
        errors = gpio_errors()
        for name, pin in config.buttons.items():
            repeat = name in config.repeat
            try:
                button = Button(  # debounced by _ButtonWatch, not the pin library
                    pin,
                    pull_up=config.pull_up,
                    hold_time=config.repeat_s if repeat else config.hold_seconds,
                    hold_repeat=repeat,
                    pin_factory=pin_factory,
                )
            except errors as exc:
                self.failed.append(describe_gpio_error(f"button '{name.value}'", f"GPIO{pin}", exc))
                continue
            self.buttons[name] = _ButtonWatch(name, button, self._post, repeat, config.bounce_s)
        if config.encoder_a is not None and config.encoder_b is not None:
            try:
                self.encoder = RotaryEncoder(
                    config.encoder_a,
                    config.encoder_b,
                    bounce_time=config.bounce_s,
                    max_steps=0,
                    pin_factory=pin_factory,
                )
            except errors as exc:
                pins = f"GPIO{config.encoder_a}/GPIO{config.encoder_b}"
                self.failed.append(describe_gpio_error("rotary encoder", pins, exc))
            else:
                self.encoder.when_rotated_clockwise = lambda: self._post(EncoderTurned(1))
                self.encoder.when_rotated_counter_clockwise = lambda: self._post(EncoderTurned(-1))

    def _post(self, event: Any) -> None:
        self._events.put(event)

    def stuck(self) -> dict[str, str]:
        """The buttons held down past :data:`STUCK_AFTER_S`, as faults (``controls:<name>``
        -> what to say): a stuck switch, or something lying on it, acts once (a long
        press) and then leaves the button dead without a word (gpiozero 2.0's
        ``HoldMixin`` fires ``when_held`` once without ``hold_repeat``); each is said in
        the log once while it stays down."""
        out: dict[str, str] = {}
        for name, watch in self.buttons.items():
            held = watch.button.active_time  # gpiozero: seconds active, None when not
            if held is not None and held >= STUCK_AFTER_S:
                out[f"controls:{name.value}"] = (
                    f"button '{name.value}' held down {held:.0f} s: stuck, or something on it?"
                )
        for fault in out.keys() - self._said_stuck:
            log.warning("%s", out[fault])
        self._said_stuck = set(out)
        return out

    def __enter__(self) -> TableInputs:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Release every pin (idempotent)."""
        for watch in self.buttons.values():
            watch.close()
        self.buttons = {}
        if self.encoder is not None:
            self.encoder.close()
            self.encoder = None
