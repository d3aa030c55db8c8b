"""The config reader every section's schema uses: Klipper-style messages, all problems at once.

Each package that owns a config section (``vision.settings`` for ``[camera]``,
``hardware.board.settings`` for ``[board]``, ...) writes a small ``parse_*``
function over a :class:`Section`; :mod:`controller.config` composes them. The
reader never stops at the first mistake: each option's problem is noted (in the
one problem collector, :class:`~controller.core.checked.Problems`) and its default
used, so a person sees every problem in one pass, worded the way Klipper words them::

    Option 'address' in section 'displays.screen[1]' must be one of 0x3C, 0x3D (got 0x3E)

Options a section does not read are rejected with a "did you mean". The
converters (:func:`integer`, :func:`number`, :func:`choice`, ...) raise
:class:`InvalidOptionError` carrying the tail of that message.

The Raspberry Pi header facts that several sections check against (the BCM
pin range, the pins the I2C1 and SPI0 buses take) live here too.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from controller.core.checked import UNKNOWN_SHOWN, Problems
from controller.core.errors import DataProblem
from controller.core.quoting import VALUE_LIMIT, printable, short_repr

T = TypeVar("T")
E = TypeVar("E", bound=StrEnum)
N = TypeVar("N", int, float)

Convert = Callable[[Any], T]
"""An option's converter: the TOML value in, the typed value out, or InvalidOptionError."""

MAX_BCM_PIN = 27  # GPIO0..GPIO27 on the Pi's 40-pin header
I2C1_PINS = (2, 3)  # SDA, SCL of /dev/i2c-1 on the header
SPI0_PINS = (7, 8, 9, 10, 11)  # CE1, CE0, MISO, MOSI, SCLK
SPI1_PINS = (19, 20, 21)  # MISO, MOSI, SCLK of SPI1 (dtoverlay=spi1-1cs and on)
SPI1_CHIP_SELECTS = (18, 17)  # CE0, CE1 of SPI1: spi1-1cs claims CE0, spi1-2cs both


NOT_IN_FILE: Mapping[str, bool] = {"option": False}
"""``field(metadata=NOT_IN_FILE)``: a settings field code sets, not an option of the file."""


def options_of(cls: type) -> tuple[str, ...]:
    """The file options of a section's dataclass: its fields, less those marked NOT_IN_FILE."""
    return tuple(
        f.name for f in dataclasses.fields(cls) if f.metadata.get("option", True) is not False
    )


@dataclass(frozen=True)
class ConfigProblem(DataProblem):
    """A DataProblem worded the Klipper way: "Option 'k' in section 's' ..."."""

    def __str__(self) -> str:
        # one line, as DataProblem's: the names escaped and cut short, the message escaped
        option, section = printable(self.field), printable(self.entry)
        if self.field:
            where = f"Option '{option}' in section '{section}'"
        elif self.entry:
            where = f"Section '{section}'"
        else:
            where = ""
        message = printable(self.message, None)
        text = f"{where} {message}" if where else message
        return f"{printable(self.file, None)}: {text}" if self.file else text


class InvalidOptionError(Exception):
    """One option's value is wrong; the message is the problem's text after the option's name.

    Internal to the readers: :meth:`Section.get` turns it into a :class:`ConfigProblem`.
    """


def hex_byte(value: int) -> str:
    """An I2C address as people write it: ``0x3C``."""
    return f"0x{value:02X}"


def did_you_mean(name: str, known: Sequence[str]) -> str:
    """`` (did you mean 'x'?)`` for the closest known name, or ''."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def shown(value: Any) -> str:
    """A TOML value as the person wrote it, near enough, and cut short when long
    (:func:`~controller.core.quoting.short_repr`)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    if isinstance(value, str | list) or type(value) in (int, float):  # str is repr for these
        return short_repr(value)
    return printable(str(value), VALUE_LIMIT)


def config_problems(file: str) -> Problems:
    """The problem collector of a config file: its problems worded the Klipper way."""
    return Problems(file, ConfigProblem)


class Section:
    """Reads one TOML table option by option, collecting problems instead of stopping.

    ``name`` is how messages name the section (``displays.screen[2]``);
    ``problems`` collects them (:func:`config_problems`; the caller checks it at the end);
    ``base_dir`` is where relative paths resolve (the config file's folder).
    """

    def __init__(self, name: str, data: Any, problems: Problems, base_dir: Path) -> None:
        self.file = problems.file
        self.name = name
        self.problems = problems
        self.base_dir = base_dir
        self.used: list[str] = []
        if isinstance(data, Mapping):
            self.data: Mapping[str, Any] = data
        else:
            self.data = {}
            self.problem("", f"must be a table (got {shown(data)})")

    def problem(self, key: str, message: str) -> None:
        """Note a problem with option ``key`` ('' for the section itself)."""
        self.problems.add(self.name, key, message)

    def has(self, key: str) -> bool:
        """Whether the file sets option ``key``."""
        return key in self.data

    def get(self, key: str, default: T, convert: Convert[T]) -> T:
        """The option converted, or ``default`` if absent or wrong (the problem is noted)."""
        self.used.append(key)
        if key not in self.data:
            return default
        try:
            return convert(self.data[key])
        except InvalidOptionError as exc:
            self.problem(key, str(exc))
            return default

    def sub(self, name: str, data: Any) -> Section:
        """A section nested in this one (an item of an array of tables), sharing its problems."""
        return Section(name, data, self.problems, self.base_dir)

    def finish(self) -> None:
        """Note every option this section does not know: the first :data:`UNKNOWN_SHOWN`,
        then how many more there are."""
        valid = f"valid options: {', '.join(self.used)}"
        unknown = [key for key in self.data if key not in self.used]
        for key in unknown[:UNKNOWN_SHOWN]:
            self.problem(key, f"is not a valid option{did_you_mean(key, self.used)}; {valid}")
        if len(unknown) > UNKNOWN_SHOWN:
            more = len(unknown) - UNKNOWN_SHOWN
            self.problem("", f"has {more} more options that are not valid; {valid}")


# --- converters: each raises InvalidOptionError with the Klipper-style tail of the message


def _within(value: N, lo: N | None, hi: N | None, show: Callable[[N], str] = shown) -> N:
    """``value`` when it is within ``lo..hi`` (either bound may be None)."""
    if lo is not None and value < lo:
        raise InvalidOptionError(f"must have minimum of {show(lo)} (got {show(value)})")
    if hi is not None and value > hi:
        raise InvalidOptionError(f"must have maximum of {show(hi)} (got {show(value)})")
    return value


def _not_one_of(allowed: Sequence[object], got: str) -> InvalidOptionError:
    return InvalidOptionError(f"must be one of {', '.join(map(str, allowed))} (got {got})")


def integer(lo: int | None = None, hi: int | None = None) -> Convert[int]:
    """An integer within ``lo..hi`` (either bound may be None)."""

    def convert(value: Any) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidOptionError(f"must be an integer (got {shown(value)})")
        return _within(value, lo, hi)

    return convert


def number(lo: float, hi: float) -> Convert[float]:
    """A number (integer or float, not NaN) within ``lo..hi``."""

    def convert(value: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise InvalidOptionError(f"must be a number (got {shown(value)})")
        if isinstance(value, float) and math.isnan(value):
            raise InvalidOptionError(f"must be a number (got {shown(value)})")
        # TOML's integers have no bound: one past a float's range is compared as it is
        _within(value, lo, hi, _number_text)
        return float(value)

    return convert


def _number_text(x: float) -> str:
    return f"{x:g}" if isinstance(x, float) or abs(x) < 10**15 else shown(x)


def boolean(value: Any) -> bool:
    """``true`` or ``false``."""
    if not isinstance(value, bool):
        raise InvalidOptionError(f"must be true or false (got {shown(value)})")
    return value


def choice(enum: type[E]) -> Convert[E]:
    """One of an enum's values, written as its string."""
    names = [m.value for m in enum]

    def convert(value: Any) -> E:
        if not isinstance(value, str) or value not in names:
            raise _not_one_of(names, shown(value))
        return enum(value)

    return convert


def choice_int(allowed: Sequence[int]) -> Convert[int]:
    """One of a few integers."""

    def convert(value: Any) -> int:
        if isinstance(value, bool) or value not in allowed:
            raise _not_one_of(allowed, shown(value))
        return int(value)

    return convert


def address(allowed: Sequence[int]) -> Convert[int]:
    """An I2C address among ``allowed``, as an integer (``0x3C``) or a string (``"0x3C"``)."""
    names = [hex_byte(a) for a in allowed]

    def convert(value: Any) -> int:
        found: int | None = None
        if isinstance(value, int) and not isinstance(value, bool):
            found = value
        elif isinstance(value, str):
            try:
                found = int(value, 0)
            except ValueError:
                found = None
        if found is None or found not in allowed:
            got = hex_byte(found) if found is not None and found >= 0 else shown(value)
            raise _not_one_of(names, got)
        return found

    return convert


def text(value: Any) -> str:
    """A string."""
    if not isinstance(value, str):
        raise InvalidOptionError(f"must be a string (got {shown(value)})")
    return value


def device_path(value: Any) -> str:
    """A device node path under ``/dev/``."""
    path = text(value)
    if "\x00" in path:
        raise InvalidOptionError("must not hold a NUL character (\\u0000)")
    if not path.startswith("/dev/"):
        raise InvalidOptionError(f"must be a device path under /dev/ (got {short_repr(path)})")
    return path


def path_in(base_dir: Path) -> Convert[Path]:
    """A file or folder path; ``~`` expands, a relative one resolves against ``base_dir``."""

    def convert(value: Any) -> Path:
        written = text(value)
        if not written:
            raise InvalidOptionError("must not be empty (leave the option out for the default)")
        if "\x00" in written:  # no file is named so: the OS refuses it (ValueError)
            raise InvalidOptionError("must not hold a NUL character (\\u0000)")
        try:
            path = Path(written).expanduser()
        except RuntimeError:  # Python 3.11's pathlib: "Could not determine home directory."
            user = written[1:].split("/", 1)[0]
            who = f"no user {short_repr(user)} here" if user else "no home folder is known"
            raise InvalidOptionError(f"{short_repr(written)}: ~ names {who}") from None
        path = path if path.is_absolute() else base_dir / path
        _check_path_size(path)
        return path

    return convert


NAME_MAX = 255
"""The longest file or folder name Linux takes, in bytes (``NAME_MAX``, limits.h)."""
PATH_MAX = 4096
"""The longest path Linux takes, in bytes with its end (``PATH_MAX``, limits.h)."""


def _check_path_size(path: Path) -> None:
    """Refuse a path no file can have: every use of it would fail with "File name too
    long" (``OSError``, from ``Path.is_file`` too).

    Raises:
        InvalidOptionError: a name of more than :data:`NAME_MAX` bytes, or a path of
            :data:`PATH_MAX` bytes or more.
    """
    for part in path.parts:
        if (size := len(os.fsencode(part))) > NAME_MAX:
            raise InvalidOptionError(
                f"names a file or folder {short_repr(part)} of {size} bytes; a name takes at "
                f"most {NAME_MAX}"
            )
    if (size := len(os.fsencode(str(path)))) >= PATH_MAX:
        raise InvalidOptionError(f"is a path of {size} bytes; a path takes fewer than {PATH_MAX}")


pin: Convert[int] = integer(0, MAX_BCM_PIN)
"""A BCM pin number on the Pi's header."""


def optional_pin(value: Any) -> int | None:
    """A BCM pin, or ``false`` (None) for a part that is not fitted."""
    if value is False:
        return None
    try:
        return pin(value)
    except InvalidOptionError as exc:
        raise InvalidOptionError(f"{exc}; write false if it is not fitted") from None


def pin_list(value: Any) -> tuple[int, ...]:
    """A list of BCM pins."""
    if not isinstance(value, list):
        raise InvalidOptionError(f"must be a list of BCM pin numbers (got {shown(value)})")
    pins = []
    for i, item in enumerate(value, start=1):
        try:
            pins.append(pin(item))
        except InvalidOptionError as exc:
            raise InvalidOptionError(f"item {i} {exc}") from None
    return tuple(pins)
