"""The table's event loop: the one thread that owns the game and every timer (Klipper's reactor).

Device threads (camera, board link, buttons) only ``post`` events; the loop
takes them one at a time and dispatches each to the handlers registered for its
type (or the nearest base class). Timers live on the loop too: :meth:`TableLoop.call_later`
and :meth:`TableLoop.call_every` run a callback on the loop's thread when the
loop's clock (monotonic, injectable for tests) reaches its time, and
:meth:`TableLoop.tick_every` makes the :class:`~controller.daemon.events.Tick`
events the table's clock and the board's move tracker follow. Handlers and
timers run on the loop's thread, so game state needs no locks; timers are set
from that thread (or before :meth:`TableLoop.run` starts). The loop reports its
health through ``heartbeat`` after every turn (an event, a timer or an idle
wake-up), which is what lets the systemd watchdog tell a hung loop from a quiet one.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from controller.core.errors import TableHaltedError
from controller.core.events import Event
from controller.daemon.events import Barrier, Tick

log = logging.getLogger(__name__)

E = TypeVar("E", bound=Event)
Handler = Callable[[Event], None]
Clock = Callable[[], float]


class Timer:
    """A callback the loop runs at :attr:`when`, and every :attr:`period` after (if set)."""

    __slots__ = ("callback", "cancelled", "period", "when")

    def __init__(self, when: float, period: float | None, callback: Callable[[], None]) -> None:
        self.when = when
        self.period = period
        self.callback = callback
        self.cancelled = False

    def cancel(self) -> None:
        """Do not run again (idempotent; call it on the loop's thread)."""
        self.cancelled = True


class TableLoop:
    """Dispatches typed events from one queue, and runs timers, on one thread."""

    def __init__(
        self,
        events: queue.Queue[Event] | None = None,
        idle_wakeup_s: float = 0.25,
        clock: Clock = time.monotonic,
    ) -> None:
        self.events: queue.Queue[Event] = events if events is not None else queue.Queue()
        self.clock = clock
        self._handlers: dict[type[Event], list[Handler]] = {}
        self._timers: list[tuple[float, int, Timer]] = []
        self._order = itertools.count()  # timers due at one time run in the order they were set
        self._heartbeat: Callable[[], None] = lambda: None
        self._stop = threading.Event()
        self._idle_wakeup_s = idle_wakeup_s
        self.handled = 0
        self.failures = 0
        self.halted: str | None = None
        """Why a handler stopped the table (None: it was not)."""
        self.on(Barrier, lambda e: e.done.set())

    # ------------------------------------------------------------------ handlers
    def on(self, kind: type[E], handler: Callable[[E], None]) -> None:
        """Also handle events of type ``kind`` (and of its subclasses that have no handler of
        their own) with ``handler``; handlers of one type run in the order they were added."""
        self._handlers.setdefault(kind, []).append(handler)  # type: ignore[arg-type]

    def set_heartbeat(self, heartbeat: Callable[[], None]) -> None:
        """Call ``heartbeat`` after each turn of the loop (the watchdog's food)."""
        self._heartbeat = heartbeat

    # ------------------------------------------------------------------ timers
    def call_at(self, when: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` once, on the loop's thread, when the loop's clock reaches ``when``."""
        return self._schedule(Timer(when, None, callback))

    def call_later(self, delay_s: float, callback: Callable[[], None]) -> Timer:
        """Run ``callback`` once, ``delay_s`` seconds from now."""
        return self.call_at(self.clock() + delay_s, callback)

    def call_every(
        self, period_s: float, callback: Callable[[], None], first_s: float | None = None
    ) -> Timer:
        """Run ``callback`` every ``period_s`` seconds, the first time ``first_s`` from now
        (default: one period). A loop that falls behind skips the missed runs.

        Raises:
            ValueError: the period is not positive.
        """
        if period_s <= 0:
            raise ValueError(f"a timer's period must be positive, not {period_s}")
        start = self.clock() + (period_s if first_s is None else first_s)
        return self._schedule(Timer(start, period_s, callback))

    def tick_every(self, period_s: float) -> Timer:
        """Dispatch a :class:`Tick` (the loop's clock reading) every ``period_s`` seconds."""
        return self.call_every(period_s, lambda: self.dispatch(Tick(self.clock())))

    def next_timer(self) -> float | None:
        """When the next timer is due (None: no timer set)."""
        while self._timers and self._timers[0][2].cancelled:
            heapq.heappop(self._timers)
        return self._timers[0][0] if self._timers else None

    def run_timers(self) -> int:
        """Run every timer that is due by the loop's clock, in time order; return how many ran.
        A timer's failure is logged and counted, like a handler's."""
        now = self.clock()
        ran = 0
        while True:
            due = self.next_timer()
            if due is None or due > now:
                return ran
            _, _, timer = heapq.heappop(self._timers)
            if timer.period is not None:
                nxt = timer.when + timer.period
                timer.when = nxt if nxt > now else now + timer.period
                self._schedule(timer)
            self._guarded(timer.callback, "a timer")
            ran += 1

    def _schedule(self, timer: Timer) -> Timer:
        heapq.heappush(self._timers, (timer.when, next(self._order), timer))
        return timer

    # ------------------------------------------------------------------ events
    def post(self, event: Event) -> None:
        """Queue an event; safe from any thread."""
        self.events.put(event)

    def stop(self) -> None:
        """Ask the loop to return after the event in hand; safe from any thread."""
        self._stop.set()

    @property
    def stopping(self) -> bool:
        """Whether :meth:`stop` was called."""
        return self._stop.is_set()

    def handlers_for(self, event: Event) -> list[Handler]:
        """The handlers of ``event``'s type or of its nearest base class that has some."""
        for kind in type(event).__mro__:
            handlers = self._handlers.get(kind)
            if handlers:
                return handlers
        return []

    def dispatch(self, event: Event) -> None:
        """Run the handlers of one event. A handler's bug is logged and counted, never fatal:
        one bad event must not stop the table."""
        handlers = self.handlers_for(event)
        if not handlers:
            log.debug("no handler for %s", type(event).__name__)
        for handler in handlers:
            try:
                handler(event)
            except TableHaltedError as exc:
                self.halt(str(exc))
                break
            except Exception:
                self.failures += 1
                log.exception("handling %s failed", type(event).__name__)
        self.handled += 1

    def halt(self, why: str) -> None:
        """Stop the loop because the table cannot go on; :attr:`halted` keeps ``why`` (the
        first reason, for whoever started the loop to report once)."""
        if self.halted is None:
            self.halted = why
        self.stop()

    def run_once(self, timeout: float | None = None) -> bool:
        """One turn: handle one event, waiting up to ``timeout`` (default: the idle wake-up)
        but no later than the next timer, then run the timers that are due. False if no
        event came."""
        wait = self._idle_wakeup_s if timeout is None else timeout
        due = self.next_timer()
        if due is not None:
            wait = max(0.0, min(wait, due - self.clock()))
        try:
            event: Event | None = self.events.get(timeout=wait)
        except queue.Empty:
            event = None
        if event is not None:
            self.dispatch(event)
        self.run_timers()
        self._guarded(self._heartbeat, "the heartbeat")
        return event is not None

    def _guarded(self, callback: Callable[[], None], what: str) -> None:
        try:
            callback()
        except TableHaltedError as exc:
            self.halt(str(exc))
        except Exception:
            self.failures += 1
            log.exception("%s failed", what)

    def run(self) -> None:
        """Handle events and timers until :meth:`stop`."""
        while not self._stop.is_set():
            self.run_once()

    def drain(self, max_events: int = 10_000) -> int:
        """Handle every event already queued (tests and the demo); return how many. Timers
        are left to :meth:`run_timers`."""
        n = 0
        while n < max_events:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                break
            self.dispatch(event)
            n += 1
        self._heartbeat()
        return n
