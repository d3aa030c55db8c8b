"""The daemon's camera pieces: a reader fed from the camera thread, a source that reports loss."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from vision.errors import CameraError
from vision.events import ThrowSettled
from vision.reading.reader import DiceReader
from vision.sources.source import FrameSource


class HandoffReader(DiceReader):
    """A :class:`DiceReader` whose :meth:`request_new_attack` may be called from any thread.

    The request is handed to the camera thread, which applies it before the next
    frame, so the tracker is only ever touched by that thread.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # the table's photos: a folder per game in JOURNAL.frames/, the oldest deleted first
        kwargs.setdefault("prune_older_games", True)
        super().__init__(*args, **kwargs)
        self._handoff = threading.Lock()
        self._pending: list[int | None] = []

    def request_new_attack(self, pool: int | None) -> None:
        """The next throw starts a new attack of ``pool`` dice (None: any count; 0: the
        roll is over, no throw is awaited: :meth:`DiceReader.roll_over`)."""
        with self._handoff:
            self._pending.append(pool)

    def feed(self, frame: np.ndarray[Any, Any], timestamp: float) -> ThrowSettled | None:
        """Apply a pending new attack, then take the frame (see :meth:`DiceReader.feed`)."""
        with self._handoff:
            pending, self._pending = self._pending, []
        for pool in pending:
            if pool == 0:
                self.roll_over()
            else:
                self.new_attack(pool)
        return super().feed(frame, timestamp)


class WatchedSource:
    """A frame source that reports a camera failure before passing it on."""

    def __init__(self, source: FrameSource, lost: Callable[[str], None]) -> None:
        self.source = source
        self.name = source.name
        self._lost = lost

    def read(self) -> np.ndarray[Any, Any] | None:
        """The source's next frame.

        Raises:
            CameraError: the camera failed (noted as a fault first).
            ImageReadError: a folder image cannot be decoded (passed on).
        """
        try:
            frame = self.source.read()
        except CameraError as exc:
            self._lost(str(exc))
            raise
        if frame is None:  # the worker stops at the end of a file or folder
            self._lost(f"{self.name}: end of the recording")
        return frame

    def close(self) -> None:
        """Close the source (idempotent)."""
        self.source.close()
