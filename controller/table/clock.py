"""The 45-minute game's clock: the time left, kept across restarts, paused when asked.

A timed game runs on the wall clock (the players go on while the table
restarts), from the moment the first round starts. That start is kept in a
small file beside the journal, so a restarted table shows the time really left.
A pause stops the clock; on resume the start moves on by the pause's length
(and is kept again). :meth:`GameClock.tick` is called on the loop's ticks and
says what changed: nothing, the seconds shown, or the time running out.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from enum import Enum
from pathlib import Path

from controller.game.state import GameState, Length, Phase

log = logging.getLogger(__name__)

GAME_SECONDS = 45 * 60


class ClockChange(Enum):
    """What a tick of the game clock changed."""

    NONE = "none"
    SHOWN = "shown"  # the seconds on screen changed
    TIME_UP = "time up"  # the time ran out: the game ends after this round


class GameClock:
    """The time left in a 45-minute game. ``wall`` reads the wall clock (injectable);
    ``file`` keeps the start across restarts (None: not kept); ``start`` overrides it."""

    def __init__(
        self,
        wall: Callable[[], float] = time.time,
        file: Path | None = None,
        start: float | None = None,
    ) -> None:
        self.wall = wall
        self.file = file
        self.start = start if start is not None else self._saved_start()
        self.now = self.start or 0.0
        self.paused_at: float | None = None
        self._shown: int | None = None

    def tick(self, state: GameState) -> ClockChange:
        """Read the wall clock for ``state``'s game (starting the clock on round 1)."""
        if state.config.length is not Length.MINUTES45 or state.round < 1:
            return ClockChange.NONE  # nothing on screen depends on the time
        if self.paused_at is not None:
            return ClockChange.NONE
        self.now = self.wall()
        if self.start is None:
            self.start = self.now
            self._save()
        left = self.seconds_left(state)
        if left == 0 and not state.time_up and state.phase is not Phase.OVER:
            return ClockChange.TIME_UP
        if left != self._shown:
            self._shown = left
            return ClockChange.SHOWN
        return ClockChange.NONE

    def seconds_left(self, state: GameState) -> int | None:
        """Seconds left in ``state``'s game (None: not timed, or not started)."""
        if state.config.length is not Length.MINUTES45 or self.start is None:
            return None
        return max(0, int(GAME_SECONDS - (self.now - self.start)))

    @property
    def paused(self) -> bool:
        """Whether the clock is paused."""
        return self.paused_at is not None

    def pause(self) -> None:
        """Stop the clock (idempotent)."""
        if self.paused_at is None:
            self.paused_at = self.wall()

    def resume(self) -> None:
        """Run the clock again: the pause does not count (idempotent)."""
        if self.paused_at is None:
            return
        paused_for = self.wall() - self.paused_at
        self.paused_at = None
        if self.start is not None:
            self.start += paused_for
            self._save()

    def _saved_start(self) -> float | None:
        if self.file is None:
            return None
        try:
            return float(self.file.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return None

    def _save(self) -> None:
        if self.file is None or self.start is None:
            return
        try:
            self.file.write_text(f"{self.start}\n", encoding="utf-8")
        except OSError as exc:
            log.warning("cannot keep the game clock in %s: %s", self.file, exc.strerror)
