"""hardware/board/firmware_config.py: a board's config.py is refused for what stops the
firmware at boot, and for nothing else. ``firmware/`` is the source of truth: each limit is
tried at its edge, the last value the firmware runs with and the first it does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.cli.main import main
from controller.core.errors import DataError
from firmware.scanner import Scanner
from hardware.board.firmware_config import check_board_config
from tests.firmware.fakes.clock import ticks_add
from tests.firmware.fakes.machine import WDT
from tests.paths import REPO

BUNDLED = (REPO / "firmware" / "config.py").read_text(encoding="utf-8")
MUX = 'DRIVER = "4067"\nSENSORS = 16\nPINS_SIGNAL = (10,)'
DEBOUNCE_MAX = 256


def _with(*settings: str) -> str:
    """The bundled config with ``settings`` (``NAME = value`` lines) added at its end:
    Python keeps the last value, and so does the check."""
    return BUNDLED + "\n".join(settings) + "\n"


def _problems(source: str) -> list[str]:
    try:
        check_board_config(source, "cfg.py")
    except DataError as err:
        return [str(p) for p in err.problems]
    return []


@pytest.mark.parametrize(
    ("setting", "accepted", "refused", "expected"),
    [
        ("SENSORS", "128", "129", "a whole number 1..128"),
        ("SENSORS", "1", "0", "a whole number 1..128"),
        ("DEBOUNCE", "256", "257", "a whole number 1..256"),
        ("DEBOUNCE", "1", "0", "a whole number 1..256"),
        ("WATCHDOG_MS", "8388", "8389", "a whole number 100..8388"),
        ("WATCHDOG_MS", "100", "2", "a whole number 100..8388"),  # seconds for milliseconds
        ("SCAN_MS", "1", "0", "a whole number 1..536870911"),
        ("SCAN_MS", "536870911", "536870912", "a whole number 1..536870911"),
        ("HEARTBEAT_MS", "1", "0", "a whole number 1..1000"),
        ("HEARTBEAT_MS", "1000", "5000", "a whole number 1..1000"),  # the host listens 3 s
        ("BOOT_GRACE_MS", "0", "-1", "a whole number 0..1000"),
        ("BOOT_GRACE_MS", "1000", "5000", "a whole number 0..1000"),  # outlasts the listening
        ("PIN_MAINTENANCE", "29", "30", "a whole number 0..29"),
        ("PIN_MAINTENANCE", "0", "-1", "a whole number 0..29"),
        ("PIN_LOAD", "29", "30", "a whole number 0..29"),
        ("PIN_CLOCK", "0", "-1", "a whole number 0..29"),
        ("PIN_DATA", "29", "30", "a whole number 0..29"),
        ("ACTIVE_LOW", "1", "2", "True or False (or 1 or 0)"),
        ("ACTIVE_LOW", "0", "-1", "True or False (or 1 or 0)"),
    ],
)
def test_each_limit_at_its_edge(setting: str, accepted: str, refused: str, expected: str) -> None:
    assert _problems(_with(f"{setting} = {accepted}")) == []
    line = BUNDLED.count("\n") + 1
    assert _problems(_with(f"{setting} = {refused}")) == [
        f"cfg.py: line {line}: field '{setting}': expected {expected}, got {refused}"
    ]


@pytest.mark.parametrize(
    ("setting", "accepted", "refused", "expected"),
    [
        ("PINS_SIGNAL", "(10, 11, 12, 13, 14, 15, 16, 17)", "(10, 11, 12, 13, 14, 15, 16, 17, 18)",
         "a tuple of 1..8 GPIO numbers 0..29"),
        ("PINS_SIGNAL", "(10,)", "()", "a tuple of 1..8 GPIO numbers 0..29"),
        ("PINS_SIGNAL", "(29,)", "(30,)", "a tuple of 1..8 GPIO numbers 0..29"),
        ("PINS_SELECT", "(0, 1, 2, 29)", "(0, 1, 2, 30)", "a tuple of 4 GPIO numbers 0..29"),
        ("PINS_SELECT", "(0, 1, 2, 3)", "(-1, 1, 2, 3)", "a tuple of 4 GPIO numbers 0..29"),
        ("PINS_SELECT", "(6, 7, 8, 9)", "(6, 7, 8)", "a tuple of 4 GPIO numbers 0..29"),
    ],
)  # fmt: skip
def test_each_multiplexer_limit_at_its_edge(
    setting: str, accepted: str, refused: str, expected: str
) -> None:
    assert _problems(_with(MUX, f"{setting} = {accepted}")) == []
    line = BUNDLED.count("\n") + 4
    assert _problems(_with(MUX, f"{setting} = {refused}")) == [
        f"cfg.py: line {line}: field '{setting}': expected {expected}, got {refused}"
    ]


def test_the_limits_are_the_firmwares() -> None:
    """DEBOUNCE: the scanner keeps up to DEBOUNCE - 1 agreeing samples in a bytearray, so
    256 runs and 257 stops the scan; WATCHDOG_MS: machine.WDT's rp2 maximum (the fake
    follows ports/rp2/machine_wdt.c). The check draws the line where the firmware does."""
    scanner = Scanner(1, DEBOUNCE_MAX)
    scanner.prime(b"\x00")
    changes = [scanner.update(b"\x01") for _ in range(DEBOUNCE_MAX)]
    assert changes[-1] == [(0, 1)] and not any(changes[:-1])
    assert _problems(_with(f"DEBOUNCE = {DEBOUNCE_MAX}")) == []
    scanner = Scanner(1, DEBOUNCE_MAX + 1)
    scanner.prime(b"\x00")
    with pytest.raises(ValueError, match="byte must be in range"):
        for _ in range(DEBOUNCE_MAX):
            scanner.update(b"\x01")
    assert _problems(_with(f"DEBOUNCE = {DEBOUNCE_MAX + 1}")) != []
    assert WDT.MAX_TIMEOUT == 8388  # RP2040: 0xffffff / 2 ticks per microsecond / 1000
    assert _problems(_with(f"WATCHDOG_MS = {WDT.MAX_TIMEOUT}")) == []
    assert _problems(_with(f"WATCHDOG_MS = {WDT.MAX_TIMEOUT + 1}")) != []


@pytest.mark.parametrize(
    ("driver", "unread"),
    [
        ('"165"', ["PINS_SELECT = ()", "PINS_SIGNAL = (40, 41)"]),
        ('"4067"', ["PIN_LOAD = -1", 'PIN_CLOCK = "3"', "PIN_DATA = 99"]),
    ],
)
def test_only_the_chosen_drivers_pins_are_checked(driver: str, unread: list[str]) -> None:
    """firmware/main.py reads PINS_SELECT and PINS_SIGNAL for DRIVER "4067" only, and
    PIN_LOAD, PIN_CLOCK, PIN_DATA for "165" only: the other driver's are never used."""
    assert _problems(_with(f"DRIVER = {driver}", *unread)) == []
    other = '"4067"' if driver == '"165"' else '"165"'
    found = _problems(_with(f"DRIVER = {other}", *unread))
    assert len(found) == len(unread)
    # a DRIVER the firmware does not know is told alone: which pins it reads is unknown
    assert _problems(_with('DRIVER = "74165"', *unread)) == [
        f"cfg.py: line {BUNDLED.count(chr(10)) + 1}: field 'DRIVER': expected \"165\" or "
        "\"4067\", got '74165'"
    ]


def test_a_165_board_with_no_multiplexer_pins_is_deployed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The review's case: refused with 'field PINS_SELECT: expected a tuple of 4 GPIO
    numbers', on a board that has no multiplexer."""
    mine = tmp_path / "cfg.py"
    mine.write_text(BUNDLED.replace("PINS_SELECT = (6, 7, 8, 9)", "PINS_SELECT = ()"))
    assert main(["firmware", "deploy", "--dry-run", "--config", str(mine)]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("value", ["True", "False", "1", "0"])
def test_active_low_is_what_the_firmware_reads_as_true_or_false(value: str) -> None:
    """hw_165.py and hw_4067.py read it as ``1 if active_low else 0``."""
    assert _problems(_with(f"ACTIVE_LOW = {value}")) == []
    assert _problems(_with(MUX, f"ACTIVE_LOW = {value}")) == []


def test_the_longest_scan_and_heartbeat_steps_are_the_ticks_clock_s() -> None:
    """The firmware steps its scan and heartbeat deadlines by ``ticks_add``, which refuses a
    step of half its period or more: the check's limit is the last step it takes."""
    from hardware.board.firmware_config import TICKS_STEP_MAX_MS

    assert ticks_add(0, TICKS_STEP_MAX_MS) == TICKS_STEP_MAX_MS
    with pytest.raises(OverflowError):
        ticks_add(0, TICKS_STEP_MAX_MS + 1)
