"""The 45-minute game's clock: the time left, kept in the journal, paused when asked.

A timed game runs on the wall clock (the players go on while the table
restarts), from the moment the first round starts. The start, each pause and
each resume are journalled as clock events (:class:`~controller.game.events.ClockStarted`,
:class:`~controller.game.events.ClockPaused`, :class:`~controller.game.events.ClockResumed`),
so a resumed or replayed game has its clock back (:meth:`GameClock.restore`):
the time really left, and a pause still standing. The game's rules never see
these events. A journal from before (its start in a ``.clock`` file beside it)
is read once and journalled (:meth:`GameClock.adopt_file`).
:meth:`GameClock.tick` is called on the loop's ticks and says what changed:
nothing, the seconds shown, or the time running out.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable
from enum import Enum
from pathlib import Path

from controller.game.events import (
    ClockEvent,
    ClockPaused,
    ClockResumed,
    ClockStarted,
    GameEvent,
)
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
    ``record`` journals each clock event (None: not kept); ``start`` overrides the start."""

    def __init__(
        self,
        wall: Callable[[], float] = time.time,
        record: Callable[[ClockEvent], None] | None = None,
        start: float | None = None,
    ) -> None:
        self.wall = wall
        self.record = record
        self.start = start
        self.now = self.start or 0.0
        self.paused_at: float | None = None
        self._shown: int | None = None

    # ------------------------------------------------------------ the journal
    def restore(self, events: Iterable[GameEvent]) -> None:
        """Take the clock back from a journal's events (the others are passed over)."""
        for event in events:
            if isinstance(event, ClockStarted):
                self.start, self.paused_at = event.at, None
            elif isinstance(event, ClockPaused):
                if self.paused_at is None:
                    self.paused_at = event.at
            elif isinstance(event, ClockResumed) and self.paused_at is not None:
                if self.start is not None:
                    self.start += event.at - self.paused_at
                self.paused_at = None
        if self.start is not None:
            self.now = self.paused_at if self.paused_at is not None else max(self.start, self.now)
        self._shown = None

    def adopt_file(self, file: Path) -> bool:
        """A journal from before the clock was journalled kept its start in ``file``:
        read it once and journal it (True). Nothing to do when the clock has its start
        already, or there is no such file (False)."""
        if self.start is not None:
            return False
        try:
            start = float(file.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return False
        self.start = start
        self.now = max(self.now, start)
        self._record(ClockStarted(start))
        log.info("game clock: the start kept in %s is journalled now", file)
        return True

    def _record(self, event: ClockEvent) -> None:
        if self.record is not None:
            self.record(event)

    # ------------------------------------------------------------ running
    def tick(self, state: GameState) -> ClockChange:
        """Read the wall clock for ``state``'s game (starting the clock on round 1)."""
        if state.config.length is not Length.MINUTES45 or state.round < 1:
            return ClockChange.NONE  # nothing on screen depends on the time
        if self.paused_at is not None:
            return ClockChange.NONE
        self.now = self.wall()
        if self.start is None:
            self.start = self.now
            self._record(ClockStarted(self.start))
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
        """Stop the clock (idempotent); journalled once the clock has started."""
        if self.paused_at is None:
            self.paused_at = self.wall()
            if self.start is not None:
                self.now = self.paused_at
                self._record(ClockPaused(self.paused_at))

    def resume(self) -> None:
        """Run the clock again: the pause does not count (idempotent)."""
        if self.paused_at is None:
            return
        now = self.wall()
        paused_for = now - self.paused_at
        self.paused_at = None
        if self.start is not None:
            self.start += paused_for
            self._record(ClockResumed(now))
