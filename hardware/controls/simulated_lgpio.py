"""A simulated ``lgpio`` module: the Pi's GPIO lines below gpiozero's real ``LGPIOFactory``.

gpiozero's ``MockFactory`` replaces gpiozero's pin layer, so it cannot show what
the pin library under it does on a Pi; this module stands in for that library
instead (as the package's picamera2 simulation stands in for libcamera), so
gpiozero 2.0.1's own ``gpiozero/pins/lgpio.py`` runs over it unchanged (tests put
it in ``sys.modules["lgpio"]``). Written after lgpio 0.2.2.0 (``PY_LGPIO/lgpio_extra.py``
and ``lgErr.c`` of joan2937/lg; Bookworm's ``python3-lgpio`` is the same release):

- every failure is ``lgpio.error`` (``_u2i``: ``raise error(error_text(status))``),
  a plain ``Exception``, not an ``OSError``: ``str()`` is the ``repr`` of
  lgErr.c's text ("'GPIO busy'", "'can not open gpiochip'");
- ``gpiochip_open`` fails ("can not open gpiochip") when the user may not open
  ``/dev/gpiochipN`` (no ``gpio`` group, a unit's ``DeviceAllow=``): lgGpio.c
  ``lgGpiochipOpen``, ``open()`` failing;
- a claim (``gpio_claim_input``/``_output``/``_alert``) of a line another
  process or a kernel driver holds fails "GPIO busy" (lgGpio.c
  ``xGpioHandleRequest``: the kernel's line request answers EBUSY); the same
  handle may claim its own line again, and claiming an input that is already one
  (an output already one) does nothing, new flags included (``xSetAsInput``,
  ``xSetAsOutput``: "nothing to do"), hence gpiozero frees a line before it
  changes its pull;
- ``gpio_set_debounce_micros`` is taken and does not debounce: with it set,
  lgPthAlerts.c (``lgPthAlert``, ``xDebWatEvt``) reports an edge once its 0.5 ms
  ``ppoll`` passes with no other (without it, at once), comparing the kernel's monotonic event stamp with ``lguTimestamp``'s
  real-time clock (joan2937/lg issue 19, open since 2023): each edge of a switch's
  chatter more than 0.5 ms apart is reported, the debounce set or not;
- ``callback(handle, gpio, edge, func)``: ``func(chip, gpio, level, tick)`` runs
  on lgpio's one notification thread (``_callback_thread``), never the caller's.

The physical world's knobs: :data:`CHIPS` (the chips this user may open),
:data:`HELD_ELSEWHERE` (lines someone else holds), :func:`drive` (a level on an
input line, as a button or encoder sets it).
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable
from typing import Any

SET_ACTIVE_LOW = 4
SET_OPEN_DRAIN = 8
SET_OPEN_SOURCE = 16
SET_BIAS_PULL_UP = SET_PULL_UP = 32
SET_BIAS_PULL_DOWN = SET_PULL_DOWN = 64
SET_BIAS_DISABLE = SET_PULL_NONE = 128
RISING_EDGE = 1
FALLING_EDGE = 2
BOTH_EDGES = 3
CANNOT_OPEN_CHIP = -78
GPIO_BUSY = -79
_TEXT = {CANNOT_OPEN_CHIP: "can not open gpiochip", GPIO_BUSY: "GPIO busy"}  # lgErr.c
_MODE_OUT, _LG_INPUT, _LG_OUTPUT, _LG_ALERT = 2, 256, 512, 1024  # gpio_get_mode's bits

CHIPS: set[int] = {0}
"""The gpiochips this user may open."""
HELD_ELSEWHERE: set[int] = set()
"""Lines another process or a kernel driver holds: claiming them fails "GPIO busy"."""


class error(Exception):  # noqa: N801, N818 - lgpio's name
    """lgpio's only exception (``lgpio_extra.py``): ``str()`` is the repr of the text."""

    def __init__(self, value: str) -> None:
        self.value = value

    def __str__(self) -> str:
        return repr(self.value)


class _Line:
    def __init__(self) -> None:
        self.mode = 0
        self.level = 1  # what the pin reads: the outside's level, else its bias
        self.driven: int | None = None  # the level drive() put on it, if any
        self.reported = 1
        self.debounce_s = 0.0
        self.timer: threading.Timer | None = None


_lines: dict[int, _Line] = {}
_callbacks: list[tuple[int, int, Callable[[int, int, int, int], Any]]] = []
_lock = threading.Lock()
_notices: queue.Queue[tuple[int, int, int]] = queue.Queue()


def _notify_thread() -> None:
    """lgpio's ``_callback_thread.run``: each report to the callbacks of its line."""
    while True:
        gpio, level, tick = _notices.get()
        with _lock:
            funcs = [f for _, g, f in _callbacks if g == gpio]
        for func in funcs:
            func(0, gpio, level, tick)


threading.Thread(target=_notify_thread, name="lgpio-notify", daemon=True).start()


def _fail(code: int) -> error:
    return error(_TEXT[code])


def gpiochip_open(gpiochip: int) -> int:
    """A handle to ``/dev/gpiochipN``; raises :class:`error` when it cannot be opened."""
    if gpiochip not in CHIPS:
        raise _fail(CANNOT_OPEN_CHIP)
    return gpiochip << 16


def gpiochip_close(handle: int) -> int:
    """Close the chip: its lines are freed."""
    with _lock:
        _lines.clear()
    return 0


def _claim(gpio: int, mode: int) -> int:
    if gpio in HELD_ELSEWHERE:
        raise _fail(GPIO_BUSY)
    with _lock:
        line = _lines.setdefault(gpio, _Line())
        line.mode = mode
        if line.driven is None and mode & (SET_PULL_UP | SET_PULL_DOWN):  # an idle input
            line.level = line.reported = int(bool(mode & SET_PULL_UP))
    return 0


def _already(gpio: int, bit: int) -> bool:
    line = _lines.get(gpio)
    return line is not None and bool(line.mode & bit) and not line.mode & _LG_ALERT


def gpio_claim_input(handle: int, gpio: int, lFlags: int = 0) -> int:  # noqa: N803
    """Claim ``gpio`` as an input; raises :class:`error` ("GPIO busy") if held elsewhere."""
    if _already(gpio, _LG_INPUT):
        return 0  # xSetAsInput: "nothing to do, already an input"
    return _claim(gpio, _LG_INPUT | lFlags)


def gpio_claim_output(handle: int, gpio: int, level: int = 0, lFlags: int = 0) -> int:  # noqa: N803
    """Claim ``gpio`` as an output at ``level``; raises :class:`error` if held elsewhere."""
    if _already(gpio, _LG_OUTPUT):
        return 0  # xSetAsOutput: "nothing to do, already an output"
    _claim(gpio, _LG_OUTPUT | _MODE_OUT | lFlags)
    _lines[gpio].level = int(bool(level))
    return 0


def gpio_claim_alert(handle: int, gpio: int, eFlags: int, lFlags: int = 0, notify: int = -1) -> int:  # noqa: N803
    """Claim ``gpio`` as an input that reports edges (to :func:`callback` functions).

    lgGpio.c ``lgGpioClaimAlert``: always freed and claimed again, its mode the
    alert bit alone (``gpio_get_mode`` shows 1024, not the input bit, plus the flags).
    """
    with _lock:
        _lines.setdefault(gpio, _Line()).mode = 0
    return _claim(gpio, _LG_ALERT | lFlags)


def gpio_free(handle: int, gpio: int) -> int:
    """Free ``gpio``."""
    with _lock:
        line = _lines.get(gpio)
        if line is not None:
            line.mode = 0
    return 0


def gpio_get_mode(handle: int, gpio: int) -> int:
    """The line's mode bits (kernel flags, then lgpio's input/output/alert)."""
    return _lines.get(gpio, _Line()).mode


def gpio_read(handle: int, gpio: int) -> int:
    """The line's level."""
    return _lines.get(gpio, _Line()).level


def gpio_write(handle: int, gpio: int, level: int) -> int:
    """Set an output's level."""
    _lines.setdefault(gpio, _Line()).level = int(bool(level))
    return 0


ALERT_POLL_S = 0.0005
"""lgPthAlerts.c's ``ppoll`` timeout: an edge is reported once this passes with no other."""


def gpio_set_debounce_micros(handle: int, gpio: int, debounce_micros: int) -> int:
    """Take ``debounce_micros`` (kept, not applied: see the module's docstring)."""
    _lines.setdefault(gpio, _Line()).debounce_s = debounce_micros / 1e6
    return 0


def tx_pwm(handle: int, gpio: int, pwm_frequency: float, pwm_duty_cycle: float, *_: int) -> int:
    """Software PWM (not simulated beyond accepting it)."""
    return 0


class callback:  # noqa: N801 - lgpio's name
    """``func(chip, gpio, level, tick)`` for each reported edge of ``gpio``, on lgpio's thread."""

    def __init__(self, chip: int, gpio: int, edge: int = RISING_EDGE, func: Any = None) -> None:
        self._entry = (edge, gpio, func)
        with _lock:
            _callbacks.append(self._entry)

    def cancel(self) -> None:
        """Stop calling the function."""
        with _lock:
            if self._entry in _callbacks:
                _callbacks.remove(self._entry)


def _report(gpio: int, level: int) -> None:
    with _lock:
        line = _lines[gpio]
        if line.level != level or line.reported == level or not line.mode & _LG_ALERT:
            return  # it moved again within the poll, or nothing changed
        line.reported = level
    _notices.put((gpio, level, time.monotonic_ns()))


def drive(gpio: int, level: int) -> None:
    """The physical world: the input ``gpio`` now reads ``level`` (a button, an encoder)."""
    with _lock:
        line = _lines.setdefault(gpio, _Line())
        line.level = line.driven = int(bool(level))
        if line.timer is not None:
            line.timer.cancel()
            line.timer = None
        if line.debounce_s > 0:  # xDebWatEvt: reported at the first quiet poll
            line.timer = threading.Timer(ALERT_POLL_S, _report, (gpio, line.level))
            line.timer.daemon = True
            line.timer.start()
            return
    _report(gpio, int(bool(level)))  # no debounce: "report straightaway"


def reset() -> None:
    """Forget every line, callback and knob (between tests)."""
    with _lock:
        for line in _lines.values():
            if line.timer is not None:
                line.timer.cancel()
        _lines.clear()
        _callbacks.clear()
    CHIPS.clear()
    CHIPS.add(0)
    HELD_ELSEWHERE.clear()
