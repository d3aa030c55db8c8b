"""The 45-minute game's clock: the time left, kept in the journal, paused when asked.

A timed game counts from the moment the first round starts. The start, each pause
and each resume are journalled as clock events (:class:`~controller.game.events.ClockStarted`,
:class:`~controller.game.events.ClockPaused`, :class:`~controller.game.events.ClockResumed`),
so a resumed or replayed game has its clock back (:meth:`GameClock.restore`):
the time really left, and a pause still standing. The game's rules never see
these events. A journal from before (its start in a ``.clock`` file beside it)
is read once and journalled (:meth:`GameClock.adopt_file`).
:meth:`GameClock.tick` is called on the loop's ticks and says what changed:
nothing, the seconds shown, or the time running out.

Two clocks. A Raspberry Pi has no real-time clock: it boots on the last time
it saved, and NTP later steps the wall clock by hours, either way. So:

- While the table runs, the game's time is counted on the **monotonic** clock:
  a step of the wall clock (forward or back) changes nothing. The journal still
  holds wall-clock readings (``at``), as it always has; when a step is seen (the
  wall clock moved more than :data:`STEP_S` away from the monotonic one), the
  clock journals a pause at the old reading and a resume at the new one, a pause
  of no real time, so a replay does not count the step either.
- While the clock runs, a bare :class:`~controller.game.events.ClockResumed` (no
  pause standing: a *mark*) is journalled every :data:`MARK_EVERY_S` and when
  the time runs out: the table was up, its clock running, then. Replayed by an
  older toptable it is passed over.
- Across a restart only the wall clock spans the gap. The time the table was
  down (from the last clock event journalled to the first reading after the
  restart) counts, as it always has (the players go on while the table
  restarts), with two guards: a negative gap (the clock is behind, as it is
  after a power cut until NTP steps it) counts as 0; a gap longer than a whole
  game (:data:`MAX_DOWNTIME_S`), in a journal that keeps marks, counts as 0
  too: no restart the players sit through lasts that long, it is a clock set
  wrong at boot (days ahead before NTP fixes it), and counting it would end the
  game for good the moment the table comes up (``TimeUp`` is never undone). A
  gap not counted in full is journalled as a pause over it. So the time left
  after a restart is never more than the game's length nor more than what was
  left at the last mark, and never less than that minus the gap. A journal
  without marks (an older toptable's) is replayed as before: its last event
  can be long before the table stopped, so its gap is counted in full, only
  never below 0.

The decision is recorded in ``docs/decisions/game-clock.md``.
"""

from __future__ import annotations

import logging
import math
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
from controller.game.state import GameState, Phase

log = logging.getLogger(__name__)

GAME_SECONDS = 45 * 60

STEP_S = 1.0
"""A wall clock further than this from the monotonic one has been stepped (NTP slews
smaller offsets at most 0.5 ms a second)."""

MARK_EVERY_S = 60.0
"""How often a running clock journals that it runs: after a restart with the wall
clock behind, at most this much play is given back."""

MAX_DOWNTIME_S = float(GAME_SECONDS)
"""A restart's gap longer than this (a whole game) is the wall clock's error: not counted."""


def timed(state: GameState) -> bool:
    """Whether ``state``'s game runs on the 45-minute clock (:attr:`GameConfig.timed`)."""
    return state.config.timed


class ClockChange(Enum):
    """What a tick of the game clock changed."""

    NONE = "none"
    SHOWN = "shown"  # the seconds on screen changed
    TIME_UP = "time up"  # the time ran out: the game ends after this round


class GameClock:
    """The time left in a 45-minute game. ``wall`` reads the wall clock, journalled
    (injectable); ``record`` journals each clock event (None: not kept); ``start``
    sets the start on ``wall`` (as a journal's :class:`ClockStarted` would);
    ``monotonic`` counts the game's time while the table runs (injectable; None:
    :func:`time.monotonic` with the system's wall clock, else ``wall`` itself: a
    test's or the demo's fast clock, which is not stepped, times the game too)."""

    def __init__(
        self,
        wall: Callable[[], float] = time.time,
        record: Callable[[ClockEvent], None] | None = None,
        start: float | None = None,
        monotonic: Callable[[], float] | None = None,
    ) -> None:
        self.wall = wall
        if monotonic is None:
            monotonic = time.monotonic if wall is time.time else wall
        self.monotonic = monotonic
        self.record = record
        # The anchor: the seconds left at wall reading ``_at``, monotonic ``_mono``.
        self._left: float | None = None  # None: not started
        self._at = 0.0
        self._mono = 0.0
        self._now_left = 0.0  # the seconds left at the last reading
        self._paused = False
        self._restored = False  # the anchor is a journal's: the next reading measures the gap
        self._marked = False  # the journal keeps marks: its gap is downtime alone
        self._shown: int | None = None
        if start is not None:
            self._restart(float(GAME_SECONDS), start)

    def _restart(self, left: float, at: float) -> None:
        """The clock stood at ``left`` seconds at wall reading ``at`` (a journal's)."""
        self._left = self._now_left = max(0.0, left)
        self._at = at
        self._restored = not self._paused

    # ------------------------------------------------------------ the journal
    def restore(self, events: Iterable[GameEvent]) -> None:
        """Take the clock back from a journal's events (the others are passed over).

        The time between two events counts unless the clock stood between them (a
        wall-clock step back in an older journal counts as 0)."""
        left, at, paused, marked = self._left, self._at, self._paused, False
        for event in events:
            if isinstance(event, ClockStarted):
                left, at, paused = float(GAME_SECONDS), event.at, False
            elif left is None:
                continue
            elif isinstance(event, ClockPaused):
                if not paused:
                    left, at, paused = left - max(0.0, event.at - at), event.at, True
            elif isinstance(event, ClockResumed):
                if not paused:  # a mark: the clock ran until then
                    left, marked = left - max(0.0, event.at - at), True
                at, paused = event.at, False
        self._paused, self._marked, self._shown = paused, marked, None
        if left is not None:
            self._restart(left, at)

    def adopt_file(self, file: Path) -> bool:
        """A journal from before the clock was journalled kept its start in ``file``:
        read it once and journal it (True). Nothing to do when the clock has its start
        already, or there is no such file (False)."""
        if self._left is not None:
            return False
        try:
            start = float(file.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return False
        self._restart(float(GAME_SECONDS), start)
        self._record(ClockStarted(start))
        log.info("game clock: the start kept in %s is journalled now", file)
        return True

    def _record(self, event: ClockEvent) -> None:
        if self.record is not None:
            self.record(event)

    def _retime(self, stood_at: float, wall: float) -> None:
        """Journal that the clock stood from wall reading ``stood_at`` (the old one) to
        ``wall`` (the new one): a replay counts neither a step nor a gap not counted. With
        no time left, a mark at ``stood_at`` says so (no later gap gives time back)."""
        if self._now_left > 0:
            self._record(ClockPaused(stood_at))
            self._record(ClockResumed(wall))
        else:
            self._record(ClockResumed(stood_at))

    # ------------------------------------------------------------ running
    def tick(self, state: GameState) -> ClockChange:
        """Read the clocks for ``state``'s game (starting the clock on round 1)."""
        if not timed(state) or state.round < 1:
            return ClockChange.NONE  # nothing on screen depends on the time
        if self._paused or state.phase is Phase.OVER:  # an ended game journals no marks
            return ClockChange.NONE
        if self._left is None:
            self._anchor(float(GAME_SECONDS), self.wall(), self.monotonic())
            self._record(ClockStarted(self._at))
            self._record(ClockResumed(self._at))  # a mark: the gap guard holds from the start
            self._marked = True
        else:
            self._read(self._left)
        left = self.seconds_left(state)
        if left == 0 and not state.time_up:
            return ClockChange.TIME_UP
        if left != self._shown:
            self._shown = left
            return ClockChange.SHOWN
        return ClockChange.NONE

    def _anchor(self, left: float, wall: float, mono: float) -> None:
        self._left = self._now_left = max(0.0, left)
        self._at, self._mono, self._restored = wall, mono, False

    def _read(self, left: float, mark: bool = True) -> tuple[float, float]:
        """Bring the running clock's time left (``left`` at the anchor) up to now
        (``mark``: journal a mark when due); return the readings (wall, monotonic)."""
        wall, mono = self.wall(), self.monotonic()
        if self._restored:  # the first reading after a restart: the gap
            gap = wall - self._at
            down = self._downtime(gap)
            self._now_left = max(0.0, left - down)
            if down != gap:
                self._retime(self._at + down, wall)
            elif left > 0:
                self._record(ClockResumed(wall))  # a mark: the gap, counted, is kept
            self._anchor(self._now_left, wall, mono)
            return wall, mono
        ran = mono - self._mono
        self._now_left = max(0.0, left - ran)
        step = wall - (self._at + ran)
        if abs(step) > STEP_S:
            log.warning("game clock: the wall clock was stepped by %+.0f s; not counted", step)
            self._retime(self._at + ran, wall)
            self._anchor(self._now_left, wall, mono)
        elif mark and left > 0 and (ran >= MARK_EVERY_S or self._now_left == 0):
            self._record(ClockResumed(wall))  # a mark: the clock ran until now
            self._anchor(self._now_left, wall, mono)
        return wall, mono

    def _downtime(self, gap: float) -> float:
        """The part of a restart's ``gap`` (wall-clock seconds) that counts."""
        if gap < 0:
            log.warning("game clock: the wall clock is %.0f s behind the journal's; "
                        "the time the table was down is not counted", -gap)  # fmt: skip
            return 0.0
        if self._marked and gap > MAX_DOWNTIME_S:
            log.warning("game clock: the table was down %.0f s by the wall clock, longer "
                        "than a game: taken as the clock's error, not counted", gap)  # fmt: skip
            return 0.0
        return gap

    def seconds_left(self, state: GameState) -> int | None:
        """Seconds left in ``state``'s game (None: not timed, or not started)."""
        if not timed(state) or self._left is None:
            return None
        return max(0, math.ceil(self._now_left))  # 0 (time up) only when the time is up

    @property
    def start(self) -> float | None:
        """The wall reading the 45 minutes count from, pauses and steps left out
        (None: not started)."""
        if self._left is None:
            return None
        return self._at - (GAME_SECONDS - self._left)

    @property
    def paused(self) -> bool:
        """Whether the clock is paused."""
        return self._paused

    def pause(self) -> None:
        """Stop the clock (idempotent); journalled once the clock has started."""
        if self._paused:
            return
        if self._left is not None:
            wall, mono = self._read(self._left, mark=False)  # the pause is journalled instead
            self._anchor(self._now_left, wall, mono)
            self._record(ClockPaused(wall))
        self._paused = True

    def resume(self) -> None:
        """Run the clock again: the pause does not count (idempotent)."""
        if not self._paused:
            return
        self._paused = False
        if self._left is not None:
            self._anchor(self._now_left, self.wall(), self.monotonic())
            self._record(ClockResumed(self._at))
