"""One way to read a data or config file: collect every problem, then raise them together.

A reader makes one :class:`Problems` per file, reports what it finds as it goes
(:meth:`Problems.add`, or a helper that checks one value and returns it, or None when
it is wrong) and ends with :meth:`Problems.check`, which raises one
:class:`~controller.core.errors.DataError` holding every problem, each naming the file,
the entry and the field. A person fixes a file in one pass.

Example::

    problems = Problems("board.toml")
    problems.unknown_keys(data, {"name", "space"})
    n = problems.whole_number(data.get("size"), "", "size", low=1)
    problems.check()
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from enum import Enum
from typing import TypeVar

from controller.core.errors import DataError, DataProblem

E = TypeVar("E", bound=Enum)


class Problems:
    """The problems found so far in one file (``file``: its name, as messages show it)."""

    def __init__(self, file: str = "") -> None:
        self.file = file
        self._found: list[DataProblem] = []

    # ------------------------------------------------------------ collecting
    def add(self, entry: str, field: str, message: str, *, file: str | None = None) -> None:
        """One problem in ``entry`` (e.g. ``warrior 'Goku'``, '' for the file's top level)
        at ``field`` ('' for the entry as a whole); ``file``: another file than this one's."""
        self._found.append(DataProblem(self.file if file is None else file, entry, field, message))

    def extend(self, problems: Iterable[DataProblem]) -> None:
        """Problems found by another reader."""
        self._found.extend(problems)

    def unknown_keys(
        self, raw: Mapping[str, object], allowed: Collection[str], entry: str = ""
    ) -> None:
        """A problem for each key of ``raw`` not in ``allowed``."""
        for key in raw:
            if key not in allowed:
                self.add(entry, key, f"unknown key; expected one of {', '.join(sorted(allowed))}")

    def whole_number(
        self, raw: object, entry: str, field: str, low: int | None = None, high: int | None = None
    ) -> int | None:
        """``raw`` when it is a whole number within ``low..high`` (either end open when None)."""
        if (
            isinstance(raw, int)
            and not isinstance(raw, bool)
            and (low is None or raw >= low)
            and (high is None or raw <= high)
        ):
            return raw
        if low is not None and high is not None:
            expected = f"a whole number {low}..{high}"
        elif low is not None:
            expected = f"a whole number >= {low}"
        elif high is not None:
            expected = f"a whole number <= {high}"
        else:
            expected = "a whole number"
        self.add(entry, field, f"expected {expected}, got {raw!r}")
        return None

    def boolean(self, raw: object, entry: str, field: str) -> bool | None:
        """``raw`` when it is true or false."""
        if isinstance(raw, bool):
            return raw
        self.add(entry, field, "expected true or false")
        return None

    def choice(self, raw: object, enum: type[E], entry: str, field: str) -> E | None:
        """The member of ``enum`` whose value is ``raw`` (a problem names the choices)."""
        for member in enum:
            if member.value == raw:
                return member
        names = ", ".join(str(m.value) for m in enum)
        message = f"expected one of {names}, got {raw!r}" if raw is not None else f"missing {field}"
        self.add(entry, field, message)
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

    def error(self) -> DataError:
        """The error holding every problem found (for a reader that cannot go on)."""
        return DataError(self._found)

    def check(self) -> None:
        """Raises:
        DataError: every problem found, when there is one.
        """
        if self._found:
            raise DataError(self._found)


__all__ = ["Problems"]
