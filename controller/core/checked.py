"""The one way to check a data file, a config file or a script: collect every problem, then
raise them together.

A reader makes one :class:`Problems` per file, reports what it finds as it goes
(:meth:`Problems.add`, or a helper that checks one value and returns it, or None when
it is wrong) and ends with :meth:`Problems.check`, which raises one
:class:`~controller.core.errors.DataError` holding every problem, each naming the file,
the entry and the field. A person fixes a file in one pass.

Every reader uses it: the game data (:mod:`controller.gamedata`), the config sections
(:class:`controller.core.config_schema.Section` notes its problems here, worded the
Klipper way by :class:`~controller.core.config_schema.ConfigProblem`), the companion
modes' data files and scripts (:mod:`controller.companion.datafile`,
:func:`controller.companion.base.read_action`) and the screens' view files.

Example::

    problems = Problems("board.toml")
    problems.unknown_keys(data, {"name", "size"})
    n = problems.whole_number(data.get("size"), "", "size", low=1)
    problems.check()

A value that is absent (None: TOML has no null) is reported as ``missing``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from enum import Enum
from typing import Any, TypeGuard, TypeVar

from controller.core.errors import DataError, DataProblem
from controller.core.quoting import short_repr

E = TypeVar("E", bound=Enum)
T = TypeVar("T")

UNKNOWN_SHOWN = 5
"""The most unknown keys of one table, or wrong items of one list, noted one by one; past
them, one problem says how many more there are (10,000 of them are not 10,000 lines)."""


def name_key(name: str) -> str:
    """The key under which two names a player would take for one are the same: case and
    spaces aside (``" jiren  Blast"`` is ``"Jiren Blast"``); what a data file may not give
    twice."""
    return " ".join(name.casefold().split())


def name_problem(name: str) -> str | None:
    """What is wrong with ``name``, text a file or a script gives as a name (non-empty: its
    reader says so), or None: a NUL character, which no one types and which the journal, the
    scoreboard and the screens would carry on (the config's paths refuse it too)."""
    if "\x00" in name:
        return f"expected a name without a NUL character (\\u0000), got {short_repr(name)}"
    return None


SHOWN_NAME_LIMIT = 64
"""The longest warrior or form name, in characters: the game's events carry these names to
the room's scoreboard, which drops a state holding a longer text (its ``MAX_TEXT`` is this):
the table published, and never showed."""


def shown_name_problem(name: str) -> str | None:
    """:func:`name_problem`, or a name (as stripped) longer than :data:`SHOWN_NAME_LIMIT`."""
    if (why := name_problem(name)) is not None:
        return why
    size = len(name.strip())
    if size > SHOWN_NAME_LIMIT:
        return (
            f"a name of {size} characters; the scoreboard shows at most {SHOWN_NAME_LIMIT}: "
            "shorten it (a longer one may stay as an alias)"
        )
    return None


class Problems:
    """The problems found so far in one file (``file``: its name, as messages show it).

    ``kind`` words each problem (:class:`DataProblem`, or a subclass such as the config's
    Klipper-worded one).
    """

    def __init__(self, file: str = "", kind: type[DataProblem] = DataProblem) -> None:
        self.file = file
        self.kind = kind
        self._found: list[DataProblem] = []

    # ------------------------------------------------------------ collecting
    def add(self, entry: str, field: str, message: str, *, file: str | None = None) -> None:
        """One problem in ``entry`` (e.g. ``warrior 'Goku'``, '' for the file's top level)
        at ``field`` ('' for the entry as a whole); ``file``: another file than this one's."""
        self._found.append(self.kind(self.file if file is None else file, entry, field, message))

    def extend(self, problems: Iterable[DataProblem]) -> None:
        """Problems found by another reader (e.g. a :class:`DataError`'s)."""
        self._found.extend(problems)

    def unknown_keys(
        self, raw: Mapping[str, object], allowed: Collection[str], entry: str = ""
    ) -> None:
        """A problem for each key of ``raw`` not in ``allowed`` (for the first
        :data:`UNKNOWN_SHOWN`; then one saying how many more there are)."""
        expected = f"expected one of {', '.join(sorted(allowed))}"
        unknown = [key for key in raw if key not in allowed]
        for key in unknown[:UNKNOWN_SHOWN]:
            self.add(entry, key, f"unknown key; {expected}")
        if len(unknown) > UNKNOWN_SHOWN:
            self.add(entry, "", f"{len(unknown) - UNKNOWN_SHOWN} more unknown keys; {expected}")

    def missing(self, entry: str, field: str) -> None:
        """The problem of a value that must be given and is not."""
        self.add(entry, field, "missing")

    def whole_number(
        self, raw: object, entry: str, field: str, low: int | None = None, high: int | None = None
    ) -> int | None:
        """``raw`` when it is a whole number within ``low..high`` (either end open when None)."""
        if (value := _within(raw, low, high)) is not None:
            return value
        if raw is None:
            self.missing(entry, field)
        else:
            self.add(entry, field, f"expected {_whole_number(low, high)}, got {short_repr(raw)}")
        return None

    def whole_numbers(
        self,
        raw: object,
        entry: str,
        field: str,
        length: int | None = None,
        low: int | None = None,
        high: int | None = None,
    ) -> tuple[int, ...] | None:
        """``raw`` when it is a list of ``length`` (any when None) whole numbers within
        ``low..high``; each wrong item is its own problem (``field[i]``), for the first
        :data:`UNKNOWN_SHOWN` of them; then one says how many more there are."""
        if raw is None:
            self.missing(entry, field)
            return None
        if not isinstance(raw, list):
            self.add(entry, field, f"expected a list, got {short_repr(raw)}")
            return None
        if length is not None and len(raw) != length:
            self.add(entry, field, f"expected {length} numbers, got {len(raw)}")
            return None
        wrong = [i for i, x in enumerate(raw) if _within(x, low, high) is None]
        for i in wrong[:UNKNOWN_SHOWN]:
            self.whole_number(raw[i], entry, f"{field}[{i}]", low, high)
        if len(wrong) > UNKNOWN_SHOWN:
            more = len(wrong) - UNKNOWN_SHOWN
            self.add(entry, field, f"{more} more wrong items; expected {_whole_number(low, high)}")
        return None if wrong else tuple(raw)

    def boolean(self, raw: object, entry: str, field: str) -> bool | None:
        """``raw`` when it is true or false."""
        if isinstance(raw, bool):
            return raw
        if raw is None:
            self.missing(entry, field)
        else:
            self.add(entry, field, "expected true or false")
        return None

    def text(self, raw: object, entry: str, field: str) -> str | None:
        """``raw`` when it is a string."""
        if isinstance(raw, str):
            return raw
        if raw is None:
            self.missing(entry, field)
        else:
            self.add(entry, field, f"expected text, got {short_repr(raw)}")
        return None

    def optional_text(
        self,
        raw: Mapping[str, object],
        key: str,
        entry: str = "",
        field: str = "",
        *,
        file: str | None = None,
    ) -> str | None:
        """``raw[key]`` when it is a string, None when it is left out; anything else is a
        problem at ``field`` (default ``key``; ``file``: another file than this one's).
        For text that may be left out, read or not: a data file's ``note`` is for people,
        yet a number there is a slip to name, not to keep."""
        if key not in raw:
            return None
        value = raw[key]
        if isinstance(value, str):
            return value
        self.add(entry, field or key, f"expected text, got {short_repr(value)}", file=file)
        return None

    def table(self, raw: object, entry: str, field: str) -> Mapping[str, Any] | None:
        """``raw`` when it is a table (a TOML table, a JSON object)."""
        if isinstance(raw, Mapping):
            return raw
        if raw is None:
            self.missing(entry, field)
        else:
            self.add(entry, field, f"expected a table, got {short_repr(raw)}")
        return None

    def choice(self, raw: object, enum: type[E], entry: str, field: str) -> E | None:
        """The member of ``enum`` whose value is ``raw`` (a problem names the choices)."""
        for member in enum:
            if member.value == raw:
                return member
        if raw is None:
            self.missing(entry, field)
        else:
            names = ", ".join(str(m.value) for m in enum)
            self.add(entry, field, f"expected one of {names}, got {short_repr(raw)}")
        return None

    # ------------------------------------------------------------ looking
    def mark(self) -> int:
        """A bookmark: :meth:`since` says whether problems were found after it."""
        return len(self._found)

    def since(self, mark: int) -> bool:
        """Whether a problem was found after :meth:`mark` returned ``mark``."""
        return len(self._found) > mark

    def __len__(self) -> int:
        return len(self._found)

    def __bool__(self) -> bool:
        return bool(self._found)

    def __iter__(self) -> Iterator[DataProblem]:
        return iter(self._found)

    def checked(self, value: T | None) -> T:
        """``value``, a result of this file's checks, once they all passed: call it after
        them (a value is None only when its problem was noted).

        Raises:
            DataError: every problem found, when there is one.
        """
        self.check()
        if value is None:  # a reader that noted no problem for a value it could not read
            raise TypeError("a value was not read, yet no problem was noted")
        return value

    def error(self) -> DataError:
        """The error holding every problem found (for a reader that cannot go on)."""
        return DataError(self._found)

    def check(self) -> None:
        """Raises:
        DataError: every problem found, when there is one.
        """
        if self._found:
            raise DataError(self._found)


def _within(raw: object, low: int | None, high: int | None) -> int | None:
    if _is_whole(raw) and (low is None or raw >= low) and (high is None or raw <= high):
        return raw
    return None


def _is_whole(raw: object) -> TypeGuard[int]:
    return isinstance(raw, int) and not isinstance(raw, bool)


def _whole_number(low: int | None, high: int | None) -> str:
    if low is not None and high is not None:
        return f"a whole number {low}..{high}"
    if low is not None:
        return f"a whole number >= {low}"
    if high is not None:
        return f"a whole number <= {high}"
    return "a whole number"


__all__ = ["Problems"]
