"""A read the table asks a person about: its dice, the faces offered, how far it got.

A settled throw the reader is not sure of (a cocked die, a face in doubt, more or
fewer dice than the roll has), or the last throw being corrected with ``menu``,
waits as a :class:`ReadCheck` that a person confirms or corrects die by die
(:class:`controller.table.entry.TableEntry`).
"""

from __future__ import annotations

from dataclasses import dataclass

from controller.core.symbols import Symbol
from controller.game.state import GameState
from vision.events import ThrowSettled

FACES: tuple[Symbol, ...] = tuple(Symbol)  # the game's die's faces are offered (die_faces)


def die_faces(state: GameState) -> tuple[Symbol, ...]:
    """The faces the game's die shows (an owner's ``[die]`` may lack some), FACES' order."""
    return tuple(f for f in FACES if f in state.data.die.faces)


@dataclass
class ReadCheck:
    """A read that needs a person: its dice (None: cocked) and how far the correction got."""

    event: ThrowSettled | None  # None: correcting a throw already used
    dice: list[Symbol | None]
    faces: tuple[Symbol, ...] = FACES  # the faces offered: the game's die's
    fixing: int | None = None  # index of the die whose face is being chosen
    seen: int | None = None  # dice the camera read, when not the roll's count (None: as many)
    doubted: tuple[int, ...] = ()  # the dice whose face the reader was unsure of

    def fix(self, index: int | None) -> None:
        """Choose the face of die ``index`` next (None: done); a cocked die starts on a face.
        The dice entered one by one answer a count that did not match."""
        self.fixing = index
        self.seen = None
        if index is not None and self.dice[index] is None:
            self.dice[index] = self.faces[0]
