"""The throws a journalled game settled on, with their camera frames.

A :class:`~controller.game.events.DiceThrown` names the frame the camera read it from
(``evidence``) and the faces the table used: those read sure, which the players let
stand, and those they answered when asked. A later
:class:`~controller.game.events.ThrowCorrected` says what the last throw really showed.
:func:`played_throws` gives each throw with a frame as the players left it, for
:mod:`vision.learning.table_photos` to learn from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.core.pathkind import exists
from controller.game.corrections import fold_corrections
from controller.game.events import DiceThrown, GameEvent, ThrowCorrected


@dataclass(frozen=True)
class PlayedFrame:
    """One throw's frame (as the journal names it) and the faces it showed, die by die."""

    evidence: str
    faces: tuple[str, ...]


def played_throws(events: Sequence[GameEvent]) -> list[PlayedFrame]:
    """Each throw of ``events`` (a journal's effective events: undone throws are gone) that
    has a frame, with the faces of its last correction (one folded into its throw, or one
    left standing after it: either says what the dice showed)."""
    out: list[PlayedFrame | None] = []
    last: int | None = None  # the index in ``out`` of the last throw
    for event in fold_corrections(list(events)):
        if isinstance(event, DiceThrown):
            frame = PlayedFrame(event.evidence, tuple(event.dice)) if event.evidence else None
            out.append(frame)
            last = len(out) - 1
        elif isinstance(event, ThrowCorrected) and last is not None:
            before = out[last]
            if before is not None:
                out[last] = PlayedFrame(event.evidence or before.evidence, tuple(event.dice))
    return [frame for frame in out if frame is not None]


def frame_path(evidence: str, journal: Path, game: str) -> Path:
    """Where the frame ``evidence`` of game ``game`` lies: where the journal names it, or,
    when it is not there (the journal moved with its frames, to another machine or
    folder), in the journal's own frames folder (``JOURNAL.frames/GAME/``, where the table
    keeps them)."""
    path = Path(evidence)
    if exists(path):  # (False for a name the system refuses: left out as a frame gone)
        return path
    moved = journal.with_suffix(".frames") / game / path.name
    return moved if exists(moved) else path
