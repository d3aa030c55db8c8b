"""Fake ``machine`` module: ``Pin`` on a simulated wiring bus, ``WDT`` on the simulated clock.

Semantics taken from the MicroPython docs (``machine.Pin``, ``machine.WDT``) and
the rp2 port (``ports/rp2/machine_pin.c``, MicroPython 1.22 to 1.24):

* ``Pin(id)`` alone changes nothing (``mp_pin_make_new`` configures only when
  given more); ``Pin(id, mode=None, pull=None, *, value=None)`` and ``init``
  (``machine_pin_obj_init_helper``) set the mode only when given, but the pull
  every time ("unconditionally because None means no-pull"). ``value`` is the
  output level, set before the mode changes (no glitch), and is used only with
  ``Pin.OUT`` and ``Pin.OPEN_DRAIN``; an open-drain pin given no value starts
  released. Another mode selects the alternate function ``alt`` (SIO by
  default: the pin keeps its direction). A pin starts as an input without pull.
  The rp2's ``Pin`` has ``init``, ``value``/``__call__``, ``low``/``high``,
  ``off``/``on``, ``toggle`` and ``irq``: no ``mode()`` nor ``pull()``.
* ``value()`` reads the level on the pin: an input reads what drives it from
  outside, else its pull resistor; with neither it floats, which the fake
  refuses (``FloatingPinError``) instead of returning noise. ``value(x)`` sets the
  output latch (any truthy ``x`` is 1), driven only in an output mode. An
  open-drain pin drives 0 and lets go at 1 (then reads like an input).
* ``WDT(timeout=ms)``: once started it cannot be stopped; if ``feed()`` is
  not called within ``timeout`` ms the board resets (``WatchdogResetError``). On the
  rp2 the timeout is at most 8388 ms.

``attach(bus, clock)`` gives the module the wiring and clock of one simulated
board (``tests.firmware.fakes.pico.Pico`` does it).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.firmware.fakes.clock import Clock


class FloatingPinError(RuntimeError):
    """An input read with nothing driving it and no pull resistor: noise on real hardware."""


class WatchdogResetError(Exception):
    """The watchdog was not fed in time: the real board would restart here."""


class MachineResetError(Exception):
    """``machine.reset()`` was called."""


class PinState:
    """One GPIO's configuration: mode, pull and output latch."""

    def __init__(self) -> None:
        self.mode = Pin.IN
        self.pull: int | None = None
        self.out = 0


class Bus:
    """The board's wiring: the Pico's pins, what drives them from outside, who listens to them."""

    def __init__(self) -> None:
        self.pins: dict[int, PinState] = {}
        self._drivers: dict[int, Callable[[], int | None]] = {}
        self._listeners: dict[int, list[Callable[[int | None], None]]] = {}
        self._driven: dict[int, int | None] = {}

    def state(self, pin: int) -> PinState:
        """The configuration of GPIO ``pin``."""
        if pin not in self.pins:
            self.pins[pin] = PinState()
        return self.pins[pin]

    def drive(self, pin: int, source: Callable[[], int | None]) -> None:
        """Connect an outside signal to ``pin``: ``source()`` gives its level, or None (released)."""
        self._drivers[pin] = source

    def watch(self, pin: int, callback: Callable[[int | None], None]) -> None:
        """Call ``callback(level)`` whenever the level the Pico drives on ``pin`` changes."""
        self._listeners.setdefault(pin, []).append(callback)

    def output(self, pin: int) -> int | None:
        """The level the Pico drives on ``pin``; None when it does not drive it."""
        state = self.state(pin)
        if state.mode == Pin.OUT:
            return state.out
        if state.mode == Pin.OPEN_DRAIN and state.out == 0:
            return 0
        return None

    def level(self, pin: int) -> int:
        """The level the Pico reads on ``pin``.

        Raises:
            FloatingPinError: nothing drives it and it has no pull resistor.
        """
        own = self.output(pin)
        if own is not None:
            return own
        source = self._drivers.get(pin)
        outside = source() if source is not None else None
        if outside is not None:
            return 1 if outside else 0
        pull = self.state(pin).pull
        if pull == Pin.PULL_UP:
            return 1
        if pull == Pin.PULL_DOWN:
            return 0
        raise FloatingPinError(f"GPIO{pin} is an input that nothing drives and has no pull")

    def changed(self, pin: int) -> None:
        """Tell the listeners of ``pin`` if the level the Pico drives on it changed."""
        now = self.output(pin)
        if self._driven.get(pin) == now and pin in self._driven:
            return
        self._driven[pin] = now
        for callback in self._listeners.get(pin, []):
            callback(now)


_NOT_GIVEN: Any = object()
"""An argument left out (``Pin(id)`` alone configures nothing)."""
_bus = Bus()
_clock = Clock()
watchdogs: list[WDT] = []  # started on the current board


def attach(bus: Bus, clock: Clock) -> None:
    """Use this wiring and clock from now on (one simulated board)."""
    global _bus, _clock
    _bus = bus
    _clock = clock
    watchdogs.clear()


class Pin:
    """``machine.Pin`` of the rp2 port, on the simulated bus."""

    IN = 0
    OUT = 1
    OPEN_DRAIN = 2
    ALT = 3
    PULL_UP = 1
    PULL_DOWN = 2
    IRQ_FALLING = 4
    IRQ_RISING = 8
    _PULLS = (None, PULL_UP, PULL_DOWN)

    def __init__(
        self, id: int, mode: Any = _NOT_GIVEN, pull: Any = _NOT_GIVEN, *, value: Any = _NOT_GIVEN
    ) -> None:
        if not isinstance(id, int) or not 0 <= id <= 29:
            raise ValueError("invalid pin")
        self.id = id
        self._bus = _bus
        args = (("mode", mode), ("pull", pull), ("value", value))
        given = {name: arg for name, arg in args if arg is not _NOT_GIVEN}
        if given:  # mp_pin_make_new: "pin mode given, so configure this GPIO"
            self.init(**given)

    def init(
        self, mode: int | None = None, pull: int | None = None, *, value: object = None
    ) -> None:
        """Reconfigure: the mode if given, the pull always (None: no pull)."""
        state = self._bus.state(self.id)
        if mode == Pin.OUT:
            if value is not None:
                state.out = 1 if value else 0  # before the mode: no glitch
            state.mode = mode
        elif mode == Pin.OPEN_DRAIN:
            state.out = 1 if value is None or value else 0  # released unless told
            state.mode = mode
        elif mode == Pin.IN:
            state.mode = mode
        if pull not in self._PULLS:
            raise ValueError(f"invalid pull: {pull!r}")
        state.pull = pull
        self._bus.changed(self.id)

    def value(self, x: object = None) -> int | None:
        """Read the pin's level (no argument) or set its output latch (and return None)."""
        if x is None:
            return self._bus.level(self.id)
        self._bus.state(self.id).out = 1 if x else 0
        self._bus.changed(self.id)
        return None

    __call__ = value

    def on(self) -> None:
        self.value(1)

    def off(self) -> None:
        self.value(0)

    high = on
    low = off

    def toggle(self) -> None:
        state = self._bus.state(self.id)
        self.value(0 if state.out else 1)

    def __repr__(self) -> str:
        return f"Pin(GPIO{self.id})"


class WDT:
    """``machine.WDT``: resets the board unless fed every ``timeout`` ms; cannot be stopped."""

    MAX_TIMEOUT = 8388  # rp2

    def __init__(self, id: int = 0, timeout: int = 5000) -> None:
        if id != 0:
            raise ValueError("invalid WDT id")
        if not 1 <= timeout <= self.MAX_TIMEOUT:
            raise ValueError("WDT timeout too long")
        self.timeout = timeout
        self.clock = _clock
        self.fed_at = self.clock.elapsed
        self.feeds = 0
        self.longest = 0  # the longest time it went unfed, ms
        self.clock.every_ms(self._check)
        watchdogs.append(self)

    def feed(self) -> None:
        """Restart the countdown."""
        self.fed_at = self.clock.elapsed
        self.feeds += 1

    def _check(self) -> None:
        self.longest = max(self.longest, self.clock.elapsed - self.fed_at)
        if self.clock.elapsed - self.fed_at > self.timeout:
            raise WatchdogResetError(
                f"watchdog not fed for {self.clock.elapsed - self.fed_at} ms"
                f" (timeout {self.timeout})"
            )


def reset() -> None:
    """``machine.reset()``: a hard reset of the board."""
    raise MachineResetError("machine.reset()")


def freq() -> int:
    """The CPU frequency (the RP2040's default)."""
    return 125_000_000


def unique_id() -> bytes:
    """A fixed board id."""
    return b"\xe6\x61\x38\x52\x83\x2c\x7a\x2b"
