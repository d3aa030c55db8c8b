"""The dice tray of the demo's world: the hands throw into it, the table's camera reads it.

:class:`Tray` stands in for the config's synthetic camera
(``TableDevices(..., tray=...)``): the world places the dice of each frame of a
throw (kept dice stay where they lay, rerolled ones land elsewhere) and the
camera thread draws it with the synthetic renderer when it reads it, as the
package's synthetic source draws its frames, through a :class:`TraySource`.
While dice tumble the camera takes every frame in turn and the world waits until
the reader has taken each in (none is skipped or seen twice, and the renderer's
seeded generator is used in one order, so a seeded demo reads the same throws
every time; the world's drawing never competes with the reading). A still tray
the camera sees again and again at its frame rate.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
from numpy.typing import NDArray

from controller.core.errors import TopTableError
from controller.core.symbols import Symbol
from controller.demo.watch import WatchTimeoutError
from vision.settings import CameraConfig
from vision.sources.source import FrameSource
from vision.synth.die import PlacedDie
from vision.synth.scenes import Renderer, Settings

FACES: tuple[Symbol, ...] = tuple(Symbol)
MOVING_FRAMES = 4
STILL_FRAMES = 6
EMPTY_FRAMES = 3
FPS = 30.0
STALL_S = 10.0  # a camera that takes no frame for this long has stalled


class TrayTimeoutError(WatchTimeoutError):
    """The camera did not read the tray in time (its thread stalled)."""


Shot = Callable[[], NDArray[Any]]
"""One frame of a throw, drawn when the camera reads it."""


class TraySource:
    """The camera's view of the tray: a frame source the table's camera thread reads.

    While dice tumble the camera waits for each frame the world shows (a
    :data:`Shot`, drawn by the camera's thread when it reads it; none is skipped or
    seen twice); when the tray is still it sees the same picture again at its frame
    rate, as a camera over a still tray does.
    """

    name = "simulated tray"

    def __init__(self, fps: float, still: NDArray[Any]) -> None:
        self.period = 1.0 / fps
        self._cond = threading.Condition()
        self._next: Shot | None = None
        self._still = still  # what the tray shows while nothing moves
        self.moving = False  # a throw is under way: every frame is waited for
        self._reads = 0  # the camera's reads so far
        self._taken_at = 0  # the read that took the last frame shown
        self._closed = False

    def read(self) -> NDArray[Any] | None:
        """The next frame: the world's next (drawn now), or (the tray still) the same again."""
        with self._cond:
            self._reads += 1  # the frame handed before has gone through the reader
            self._cond.notify_all()
            end = time.monotonic() + self.period
            while self._next is None and not self._closed:
                left = STALL_S if self.moving else end - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            if self._next is None:
                return self._still
            shot, self._next = self._next, None
        frame = shot()  # outside the lock: drawing takes a while
        with self._cond:
            self._still, self._taken_at = frame, self._reads
        return frame

    def show(self, shot: Shot) -> None:
        """Put the frame ``shot`` draws before the camera and wait until the camera has read
        it and the reader has taken it in (the world's thread).

        Raises:
            TrayTimeoutError: the camera did not within :data:`STALL_S` seconds.
        """
        with self._cond:
            self._next = shot
            self._cond.notify_all()
        self.seen()

    def seen(self) -> None:
        """Wait until the camera has read every frame shown and the reader has taken it in.

        Raises:
            TrayTimeoutError: it did not within :data:`STALL_S` seconds.
        """

        def done() -> bool:
            taken = self._next is None and self._taken_at > 0
            return self._closed or (taken and self._reads > self._taken_at)

        with self._cond:
            if not self._cond.wait_for(done, STALL_S):
                raise TrayTimeoutError(f"the camera did not read the tray within {STALL_S} s")

    def close(self) -> None:
        """The camera is closed (idempotent): a read returns the still tray at once."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    def reopen(self) -> None:
        """The camera is opened again."""
        with self._cond:
            self._closed = False


class Tray:
    """The dice tray under the camera: the hands throw into it, the camera reads it.

    Stands in for the config's synthetic camera (``TableDevices(..., tray=...)``):
    :meth:`open_source` makes the renderer for the camera's size and gives the
    camera its :class:`TraySource`.
    """

    def __init__(self, seed: int, faces: Sequence[Symbol] = FACES) -> None:
        """``faces``: the symbols on the table's dice (the data's ``[die]``)."""
        self.seed = seed
        self.die_faces = tuple(faces)
        self.dice: list[PlacedDie] = []
        self.renderer: Renderer | None = None
        self.source: TraySource | None = None

    def open_source(self, settings: CameraConfig) -> FrameSource:
        """The camera's source (the same one again when the camera is reopened)."""
        if self.source is None:
            size = Settings(width=settings.width, height=settings.height)
            self.renderer = Renderer(size, seed=self.seed, faces=self.die_faces)
            self.source = TraySource(settings.fps or FPS, self.renderer.render([]))
        self.source.reopen()
        return self.source

    def _parts(self) -> tuple[Renderer, TraySource]:
        if self.renderer is None or self.source is None:
            raise TopTableError("the tray has no camera: open the table's devices first")
        return self.renderer, self.source

    def faces(self) -> tuple[Symbol, ...]:
        """The faces showing now."""
        return tuple(d.symbol for d in self.dice)

    def throw(self, faces: Sequence[Symbol], keep: Sequence[int], key: str) -> int:
        """Show a throw: dice at ``keep`` stay, the others tumble and land showing ``faces``.
        ``key`` seeds the drawing. Returns the frames shown, once the camera has read them.

        Raises:
            TrayTimeoutError: the camera stalled.
        """
        renderer, source = self._parts()
        renderer.rng = np.random.default_rng(_seed(f"{self.seed}:{key}"))  # same pictures
        look = renderer.draw_look()
        kept = [self.dice[i] for i in keep]
        frames = 0
        source.moving = True
        try:
            if not keep:
                for _ in range(EMPTY_FRAMES):
                    source.show(partial(renderer.render, [], look=look))
                    frames += 1
            new = renderer.place(list(faces), fixed=kept)
            for _ in range(MOVING_FRAMES):
                faces_up = renderer.faces
                tumbling = renderer.place(
                    [faces_up[i % len(faces_up)] for i in range(len(new))], fixed=kept
                )
                source.show(partial(renderer.render, kept, moving=tumbling, look=look))
                frames += 1
            dice = self.dice = kept + new
            for _ in range(STILL_FRAMES):
                source.show(partial(renderer.render, dice, look=look))
                frames += 1
        finally:
            source.moving = False
        return frames

    def lay(self, faces: Sequence[Symbol], key: str) -> None:
        """Put dice down by hand, showing ``faces`` (no throw: nothing moves for the camera)."""
        renderer, _ = self._parts()
        renderer.rng = np.random.default_rng(_seed(f"{self.seed}:{key}:lay"))
        self.dice = renderer.place(list(faces))

    def close(self) -> None:
        """The world ends: the camera is not kept waiting."""
        if self.source is not None:
            self.source.close()


def _seed(text: str) -> int:
    return random.Random(text).getrandbits(32)
