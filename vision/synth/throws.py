"""A scripted attack rendered as camera frames: dice tumbling, then still; kept dice
stay exactly where they lay (:func:`render_throws`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from numpy.typing import NDArray

from controller.core.symbols import Symbol
from vision.synth.die import PlacedDie
from vision.synth.scenes import Renderer


@dataclass(frozen=True)
class Throw:
    """One throw of an attack: the faces shown after it and which dice were kept.

    ``kept`` are indices into the previous throw's dice (which stay put); the
    other dice are rerolled and land elsewhere showing ``faces`` in order.
    """

    faces: tuple[Symbol, ...]
    kept: tuple[int, ...] = ()


@dataclass
class Frame:
    """A rendered camera frame, its time stamp and the dice settled in it (if still)."""

    image: NDArray[Any]
    t: float
    dice: list[PlacedDie] = field(default_factory=list)
    settled: bool = False


def render_throws(
    throws: Sequence[Throw],
    renderer: Renderer | None = None,
    fps: float = 30.0,
    moving_frames: int = 6,
    still_frames: int = 8,
    empty_frames: int = 3,
) -> list[Frame]:
    """Frames of a whole attack: an empty tray, then per throw dice tumbling, then still.

    The dice of throw k are the kept dice of throw k-1 (same place, same face)
    followed by the rerolled ones (new places, ``throw.faces`` in order).

    Raises:
        ValueError: a kept index names no die of the previous throw.
    """
    r = renderer or Renderer()
    frames: list[Frame] = []
    t = 0.0
    look = r.draw_look()
    for _ in range(empty_frames):
        frames.append(Frame(r.render([], look=look), t))
        t += 1 / fps
    previous: list[PlacedDie] = []
    for n, throw in enumerate(throws):
        bad = [k for k in throw.kept if not 0 <= k < len(previous)]
        if bad:
            raise ValueError(f"throw {n + 1}: kept die {bad[0]} is not in the previous throw")
        kept = [previous[k] for k in throw.kept]
        new = r.place(throw.faces, fixed=kept)
        for _ in range(moving_frames):
            tumbling = r.place(r.random_faces(len(new)), fixed=kept)
            frames.append(Frame(r.render(kept, moving=tumbling, look=look), t))
            t += 1 / fps
        dice = kept + new
        for _ in range(still_frames):
            frames.append(Frame(r.render(dice, look=look), t, list(dice), settled=True))
            t += 1 / fps
        previous = dice
    return frames
