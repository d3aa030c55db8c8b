"""The project's exception tree.

Every exception the project raises on purpose derives from :class:`TopTableError`;
each package (vision, hardware, firmware link) subclasses it for its own root.
Leaves also derive from a builtin (``ValueError``, ``OSError``...) so callers who
do not know our tree can still catch them sensibly.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from controller.core.quoting import printable

MAX_LISTED = 50
"""The most problems a :class:`DataError`'s message lists (its ``problems`` hold them all)."""


class TopTableError(Exception):
    """Root of every error toptable raises on purpose."""


@dataclass(frozen=True)
class DataProblem:
    """One thing wrong in a data file: where it is and what was expected."""

    file: str
    entry: str
    field: str
    message: str

    def __str__(self) -> str:
        # one line whatever the input holds: names escaped and cut short (a key may hold
        # a newline), the message escaped too
        where = printable(self.file, None)
        if self.entry:
            where += f": {printable(self.entry)}"
        if self.field:
            where += f": field '{printable(self.field)}'"
        return f"{where}: {printable(self.message, None)}"


class TableHaltedError(TopTableError, RuntimeError):
    """The table cannot go on (its journal cannot be written): raised by a handler, it stops
    the loop; the message, one line, says what failed and what is needed."""


class DataError(TopTableError, ValueError):
    """A data file (warriors, board, cards, story, config...) is malformed.

    Carries every problem found, so a person can fix them all in one pass; its message
    lists them one a line, the first :data:`MAX_LISTED` of them.
    """

    def __init__(self, problems: Iterable[DataProblem]) -> None:
        self.problems: tuple[DataProblem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("DataError needs at least one problem")
        n = len(self.problems)
        lines = [str(p) for p in self.problems[:MAX_LISTED]]
        if n > MAX_LISTED:
            lines.append(f"... and {n - MAX_LISTED} more")
        if n == 1:
            text = lines[0]
        else:
            text = f"{n} problems:\n  " + "\n  ".join(lines)
        super().__init__(text)

    @classmethod
    def single(cls, file: str, entry: str, field: str, message: str) -> DataError:
        """A DataError with one problem."""
        return cls([DataProblem(file, entry, field, message)])


class IllegalActionError(TopTableError, ValueError):
    """An action the rules do not allow at this point; the message says why."""


class InvalidThrowError(TopTableError, ValueError):
    """A dice throw that cannot have happened (wrong dice count, unknown symbol...)."""


class UnknownNameError(TopTableError, KeyError):
    """A warrior, card or other named thing that the data does not hold."""

    def __str__(self) -> str:  # KeyError quotes its argument; we want the sentence.
        return str(self.args[0]) if self.args else ""
