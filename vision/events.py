"""The events the dice reader posts to the table's queue (frozen dataclasses)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from numpy.typing import NDArray

from controller.core.events import Event
from controller.core.symbols import Symbol, parse_symbol

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class ThrowSettled(Event):
    """One settled throw, read once.

    ``faces[i]`` is None for a cocked die (the table asks for a rethrow of it);
    ``unsure`` lists dice whose face a person must confirm; ``count_mismatch``
    says the tray held another number of dice than ``expected``. ``kept`` and
    ``rerolled`` index this throw's dice (kept: it lay where a die of the last
    read lay, same face, an attack's first throw too: none rerolled is no
    throw); ``roll_no`` counts throws in the attack (1 = first roll) and
    ``speed`` is the attack speed it gives.
    """

    faces: tuple[str | None, ...]
    boxes: tuple[Box, ...]
    confidences: tuple[float, ...]
    cocked: tuple[int, ...]
    unsure: tuple[int, ...]
    expected: int | None
    count_mismatch: bool
    roll_no: int
    kept: tuple[int, ...]
    rerolled: tuple[int, ...]
    speed: str
    timestamp: float
    face_set: str
    evidence_path: str | None = None
    frame: NDArray[Any] | None = field(default=None, compare=False, repr=False)

    @property
    def moved(self) -> bool:
        """Whether any die was thrown: False when every die read lay where the last read
        saw one, same face (a hand passed over the tray, or some dice were lifted out)."""
        return bool(self.rerolled)

    @property
    def trustworthy(self) -> bool:
        """True when every die was read flat and sure and the count is as expected."""
        return not (self.cocked or self.unsure or self.count_mismatch)

    def symbols(self) -> tuple[Symbol | None, ...]:
        """The faces as game symbols (for a Tournament of Power face set).

        Raises:
            InvalidThrowError: a face is not a game symbol (another face set).
        """
        return tuple(None if f is None else parse_symbol(f) for f in self.faces)


@dataclass(frozen=True)
class TrayObstructed(Event):
    """The tray stayed still with a hand or an object in it: nothing was read."""

    timestamp: float


@dataclass(frozen=True)
class CameraLost(Event):
    """The camera stopped giving frames (unplugged, end of file...); reading pauses."""

    source: str
    reason: str
    timestamp: float


@dataclass(frozen=True)
class CameraRestored(Event):
    """The camera gives frames again after a :class:`CameraLost`."""

    source: str
    timestamp: float


@dataclass(frozen=True)
class FrameUnreadable(Event):
    """One frame (an image file of a folder source) could not be decoded; it was skipped."""

    source: str
    reason: str
    timestamp: float


@dataclass(frozen=True)
class OutOfDepth(Event):
    """A settled frame lies outside what the face model learned from (another photo size,
    dice much smaller or larger, another camera angle): one line each; the throw is still
    read, but its faces deserve less trust. Posted when a new kind of warning comes, not
    per throw; ``lines`` says the same in a few words each (for a screen)."""

    warnings: tuple[str, ...]
    lines: tuple[str, ...]
    timestamp: float


@dataclass(frozen=True)
class BackInDepth(Event):
    """A settled frame lies within what the face model learned from again, after an
    :class:`OutOfDepth`: its warnings no longer hold."""

    timestamp: float
