"""The values of a board's ``config.py`` (``firmware/config.py``), checked before it is
deployed: a value the firmware cannot run with stops the board at boot (a ``ValueError``
in ``main.py``, seen by no one: the host only hears that the board never answered), a
``DRIVER`` it does not know is read as the 74HC165 chain without a word, a watchdog
shorter than a loop turn resets every boot, and heartbeats rarer than the host listens
for are a board it never hears.

Only values written as Python literals are checked (``SENSORS = 42``, ``PINS_SELECT = (6,
7, 8, 9)``); one computed (``tuple(range(10, 18))``) is left to the firmware. A driver's
pins are checked only when ``DRIVER`` names that driver (``firmware/main.py`` reads the
other driver's pins not at all).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from controller.core.errors import DataError, DataProblem
from controller.core.quoting import short_repr
from firmware.wire import MAX_SENSORS
from hardware.board.session import LISTEN_TIMEOUT_S

GPIO = range(30)  # the RP2040's GP0..GP29
MUX_CHANNELS = 16  # sensors one 74HC4067 reads
WATCHDOG_MAX_MS = 8388  # the RP2040 watchdog's longest timeout (a 24-bit count of microseconds)
# a loop turn sleeps 1 ms, scans every sensor and reads and writes a few bytes (main.py):
# a watchdog of a few ms (seconds typed for milliseconds) reset every boot after its grace
WATCHDOG_MIN_MS = 100
# before IDENTIFY the host hears a board only by its heartbeats, for LISTEN_TIMEOUT_S
# (hardware/board/session.py) after the port opens: two must fit in it beside a boot's
# grace second, or the host drops the link as "is the toptable firmware deployed?"
HEARTBEAT_MAX_MS = int((LISTEN_TIMEOUT_S - 1) * 1000) // 2
# ... and the grace is that second at most: a longer one (seconds typed for milliseconds)
# outlasts the host's listening after every reset, and the board is never connected
BOOT_GRACE_MAX_MS = int(LISTEN_TIMEOUT_S * 1000) - 2 * HEARTBEAT_MAX_MS
# MicroPython's time.ticks_add refuses a step of half its tick period or more
# ("ticks interval overflow", extmod/modtime.c time_ticks_add); the rp2 port's period is
# 2**30 (its small ints' range), and the firmware's scan and heartbeat steps go through it
TICKS_STEP_MAX_MS = 2**29 - 1
DEBOUNCE_MAX = 256  # firmware/scanner.py keeps up to DEBOUNCE - 1 agreeing samples in a bytearray
DRIVER_PINS = {  # the pins firmware/main.py reads for each DRIVER, and only for it
    "165": ("PIN_LOAD", "PIN_CLOCK", "PIN_DATA"),
    "4067": ("PINS_SELECT", "PINS_SIGNAL"),
}


def _is_whole(v: Any, low: int, high: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and low <= v <= high


def _whole(low: int, high: int) -> tuple[Callable[[Any], bool], str]:
    return (lambda v: _is_whole(v, low, high)), f"a whole number {low}..{high}"


def _pins(count: range) -> tuple[Callable[[Any], bool], str]:
    def ok(v: Any) -> bool:
        return isinstance(v, (tuple, list)) and len(v) in count and all(_GPIO[0](p) for p in v)

    many = f"{count.start}" if len(count) == 1 else f"{count.start}..{count.stop - 1}"
    return ok, f"a tuple of {many} GPIO numbers {GPIO.start}..{GPIO.stop - 1}"


_GPIO = _whole(GPIO.start, GPIO.stop - 1)
SETTINGS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "SENSORS": _whole(1, MAX_SENSORS),  # firmware/scanner.py, the wire format's limit
    "DRIVER": (lambda v: isinstance(v, str) and v in DRIVER_PINS, '"165" or "4067"'),
    # hw_165.py, hw_4067.py: ``1 if active_low else 0``
    "ACTIVE_LOW": (lambda v: isinstance(v, int) and v in (0, 1), "True or False (or 1 or 0)"),
    "PIN_LOAD": _GPIO,
    "PIN_CLOCK": _GPIO,
    "PIN_DATA": _GPIO,
    "PINS_SELECT": _pins(range(4, 5)),
    "PINS_SIGNAL": _pins(range(1, 9)),
    "SCAN_MS": _whole(1, TICKS_STEP_MAX_MS),
    "DEBOUNCE": _whole(1, DEBOUNCE_MAX),
    "HEARTBEAT_MS": _whole(1, HEARTBEAT_MAX_MS),
    "WATCHDOG_MS": _whole(WATCHDOG_MIN_MS, WATCHDOG_MAX_MS),
    "BOOT_FILE": (lambda v: isinstance(v, str) and v.strip() != "", "a file name"),
    "PIN_MAINTENANCE": _GPIO,
    "BOOT_GRACE_MS": _whole(0, BOOT_GRACE_MAX_MS),
}


def unread_pins(driver: Any) -> frozenset[str]:
    """The pins ``firmware/main.py`` does not read for a board whose ``DRIVER`` is
    ``driver``: the other drivers' (every driver's, if it names none of them)."""
    return frozenset(
        name for other, pins in DRIVER_PINS.items() if other != driver for name in pins
    )


def literal_settings(source: str) -> tuple[dict[str, Any], dict[str, int]]:
    """The settings the firmware reads that ``source`` (a board's config.py, valid Python)
    assigns, each as the literal it sets last, and the line it does so on; a value that is
    computed is left out (left to the firmware), its line kept."""
    values: dict[str, Any] = {}
    lines: dict[str, int] = {}
    for statement in ast.parse(source).body:
        if not isinstance(statement, ast.Assign) or len(statement.targets) != 1:
            continue
        target = statement.targets[0]
        if isinstance(target, ast.Name) and target.id in SETTINGS:
            try:
                values[target.id] = ast.literal_eval(statement.value)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                values.pop(target.id, None)  # computed: left to the firmware
            lines[target.id] = statement.lineno
    return values, lines


def driver_of(source: str) -> Any:
    """The ``DRIVER`` ``source`` (a board's config.py, valid Python) sets last, as a
    literal; None when it sets none, or computes it."""
    return literal_settings(source)[0].get("DRIVER")


def check_board_config(source: str, shown: str) -> None:
    """Check the values ``source`` (a board's config.py, valid Python) assigns to the
    settings the firmware reads; ``shown`` names the file in the messages.

    Raises:
        DataError: every value of the wrong kind or out of range, naming the line and
            the setting, and a 74HC4067 board with too few multiplexers for its sensors.
    """
    values, lines = literal_settings(source)
    driver = values.get("DRIVER")
    unread = unread_pins(driver)
    problems = [
        DataProblem(shown, f"line {lines[name]}", name, f"expected {what}, got {short_repr(v)}")
        for name, (ok, what) in SETTINGS.items()
        if name in values and name not in unread and not ok(v := values[name])
    ]
    sensors, signal = values.get("SENSORS"), values.get("PINS_SIGNAL")
    if (
        driver == "4067"
        and not problems
        and isinstance(sensors, int)
        and isinstance(signal, (tuple, list))
        and len(signal) * MUX_CHANNELS < sensors
    ):
        problems.append(
            DataProblem(
                shown,
                f"line {lines['PINS_SIGNAL']}",
                "PINS_SIGNAL",
                f"{len(signal)} multiplexers read {len(signal) * MUX_CHANNELS} sensors, not "
                f"SENSORS = {sensors}: expected one signal pin per {MUX_CHANNELS} sensors",
            )
        )
    if problems:
        raise DataError(problems)
