"""The table's event loop: the one thread that owns the game (Klipper's reactor idea).

Device threads (camera, board link, buttons, clock) only ``post`` events; the
loop takes them one at a time and dispatches each to the handler registered
for its type (or the nearest base class). Handlers run on the loop's thread, so
game state needs no locks. The loop reports its health through ``heartbeat``
after every event and every idle wake-up, which is what lets the systemd
watchdog tell a hung loop from a quiet one.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from controller.core.events import Event
from controller.daemon.events import Barrier

log = logging.getLogger(__name__)

E = TypeVar("E", bound=Event)
Handler = Callable[[Event], None]


class TableLoop:
    """Dispatches typed events from one queue on one thread."""

    def __init__(
        self, events: queue.Queue[Event] | None = None, idle_wakeup_s: float = 0.25
    ) -> None:
        self.events: queue.Queue[Event] = events if events is not None else queue.Queue()
        self._handlers: dict[type[Event], list[Handler]] = {}
        self._idle: list[Callable[[], None]] = []
        self._heartbeat: Callable[[], None] = lambda: None
        self._stop = threading.Event()
        self._idle_wakeup_s = idle_wakeup_s
        self.handled = 0
        self.failures = 0
        self.on(Barrier, lambda e: e.done.set())

    def on(self, kind: type[E], handler: Callable[[E], None]) -> None:
        """Also handle events of type ``kind`` (and of its subclasses that have no handler of
        their own) with ``handler``; handlers of one type run in the order they were added."""
        self._handlers.setdefault(kind, []).append(handler)  # type: ignore[arg-type]

    def on_idle(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` on the loop's thread whenever the queue stays empty for a wake-up."""
        self._idle.append(callback)

    def set_heartbeat(self, heartbeat: Callable[[], None]) -> None:
        """Call ``heartbeat`` after each event and idle wake-up (the watchdog's food)."""
        self._heartbeat = heartbeat

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
            except Exception:
                self.failures += 1
                log.exception("handling %s failed", type(event).__name__)
        self.handled += 1

    def run_once(self, timeout: float | None = None) -> bool:
        """Handle one event, waiting up to ``timeout``; False if none came (idle callbacks ran)."""
        try:
            event = self.events.get(timeout=self._idle_wakeup_s if timeout is None else timeout)
        except queue.Empty:
            for callback in self._idle:
                self._guarded(callback)
            self._guarded(self._heartbeat)
            return False
        self.dispatch(event)
        self._guarded(self._heartbeat)
        return True

    def _guarded(self, callback: Callable[[], None]) -> None:
        try:
            callback()
        except Exception:
            self.failures += 1
            log.exception("an idle callback failed")

    def run(self) -> None:
        """Handle events until :meth:`stop`."""
        while not self._stop.is_set():
            self.run_once()

    def drain(self, max_events: int = 10_000) -> int:
        """Handle every event already queued (tests and the demo); return how many."""
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


class ClockThread:
    """Posts a tick event at a fixed rate until stopped (the table clock's source)."""

    def __init__(
        self,
        post: Callable[[Event], None],
        make_tick: Callable[[float], Event],
        hz: float = 4.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._post = post
        self._make_tick = make_tick
        self._period = 1.0 / hz
        self._clock = clock
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="table-clock", daemon=True)

    def start(self) -> ClockThread:
        """Start ticking."""
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop ticking (idempotent)."""
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.wait(self._period):
            self._post(self._make_tick(self._clock()))
