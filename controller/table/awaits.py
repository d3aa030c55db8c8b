"""What the table publishes after each change: what it shows and what it waits for.

:class:`TableAwaits` is an immutable snapshot built on the loop's thread (the
game state is never changed in place, so it is shared as is). Whoever acts at
the table from another thread — the demo's bot players — gets these through a
queue and acts on them, posting its acts back as device events; it never reads
the table's live objects.
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.advisor.advisor import Choice
from controller.core.events import Event
from controller.core.symbols import Symbol
from controller.game.state import GameState
from controller.table.chooser import Chooser, ChooserKind
from controller.table.read_check import ReadCheck
from vision.events import ThrowSettled


@dataclass(frozen=True)
class ChooserShown:
    """A chooser as the screens offer it; ``serial`` tells one chooser from another."""

    serial: int
    title: str
    values: tuple[object, ...]
    selected: int
    kind: ChooserKind
    count: int

    @classmethod
    def of(cls, chooser: Chooser[object]) -> ChooserShown:
        """The snapshot of ``chooser``."""
        return cls(
            chooser.serial, chooser.title, tuple(chooser.values), chooser.selected,
            chooser.kind, chooser.count,
        )  # fmt: skip


@dataclass(frozen=True)
class ReadShown:
    """A read being checked: its dice (None: cocked) and the die being corrected."""

    dice: tuple[Symbol | None, ...]
    fixing: int | None
    faces: tuple[Symbol, ...] = tuple(Symbol)  # those offered, in order: the game's die's

    @classmethod
    def of(cls, check: ReadCheck) -> ReadShown:
        """The snapshot of ``check``."""
        return cls(tuple(check.dice), check.fixing, check.faces)


@dataclass(frozen=True)
class TableAwaits(Event):
    """The table after a change: the game, the question on screen, the devices' health.

    ``advice`` is the advisor's best choice for the attack throw on show (None: none);
    ``reads`` counts the throws the camera reported (used or not), ``last_read`` is the
    last of them. ``in_air`` are the spaces whose tokens the board sees lifted (filled in by
    whoever follows the board); ``answer_to`` is the number of the request this answers
    (None: published on a change).
    """

    state: GameState
    chooser: ChooserShown | None
    read_check: ReadShown | None
    camera_ok: bool
    board_ok: bool
    advice: Choice | None
    reads: int
    last_read: ThrowSettled | None
    in_air: frozenset[int] = frozenset()
    answer_to: int | None = None

    @property
    def events_applied(self) -> int:
        """How far the game has got (its events applied)."""
        return self.state.events_applied
