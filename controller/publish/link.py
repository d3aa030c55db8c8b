"""The state of one client's link to the broker, in words a person can act on.

Shared by the table's publisher and the scoreboard's subscriber (one connect
callback for both): paho's callbacks hand their news to :meth:`Link.connack`,
:meth:`Link.connect_failed` and :meth:`Link.lost`, and anyone may read
:meth:`Link.status` or wait for the first answer (:meth:`Link.wait_answer`).

The log hears of an outage once, not once per retry (they come every few seconds,
each perhaps in other words: refused, then no route, then timed out): one warning
when the broker cannot be reached, with what waits for it (the publisher's
``backlog``: how many events wait in the journal), and one line when it is
reached again, saying how long it was away. A refusal is logged each time its
reason changes (a wrong password must not fill the log either).

A *refusal* will not mend by retrying (wrong password, an ACL or a client id the
broker rejects, a certificate that does not verify); an *unreachable* broker may
come back (down, no route, DNS), and paho keeps trying.
"""

from __future__ import annotations

import logging
import ssl
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum

from controller.publish.client import reason_text

log = logging.getLogger(__name__)

# CONNACK answers that may mend by themselves (MQTT 3.1.1 code 3; paho 2.x's names)
_TRANSIENT = frozenset({"Server unavailable", "Server busy"})


class LinkState(StrEnum):
    """Where a client's link to the broker stands."""

    CONNECTING = "connecting"  # no answer yet
    CONNECTED = "connected"
    UNREACHABLE = "unreachable"  # no connection (retried)
    REFUSED = "refused"  # the broker or its certificate said no (retrying will not help)


@dataclass(frozen=True)
class LinkStatus:
    """A snapshot of a link (``problem`` never holds credentials)."""

    state: LinkState
    broker: str  # the broker's URL
    problem: str | None  # what went wrong, for a person (None when connected or connecting)
    since: float  # wall time of the change

    def to_json(self) -> dict[str, object]:
        """JSON-able form (``GET /api/status``)."""
        return {"state": self.state.value, "broker": self.broker, "problem": self.problem,
                "since": self.since}  # fmt: skip


def connack_refusal(reason_name: str) -> bool:
    """Whether a CONNACK failure (paho's reason name) is a refusal rather than a busy broker."""
    return reason_name not in _TRANSIENT


def failure_text(exc: BaseException | None = None) -> tuple[LinkState, str]:
    """What a connection attempt failed on: ``exc``, else the exception being handled.

    Without ``exc`` it is called from paho's ``on_connect_fail``: paho 2.2.0 runs that
    callback inside the ``except OSError`` of ``Client.loop_forever`` (around
    ``reconnect()``), so the exception being handled is the cause. A certificate that
    does not verify is a refusal; anything else (refused port, no route, DNS) leaves the
    broker unreachable.
    """
    exc = exc if exc is not None else sys.exc_info()[1]
    if isinstance(exc, ssl.SSLCertVerificationError):
        return (
            LinkState.REFUSED,
            f"TLS: the broker's certificate does not verify ({exc.verify_message})",
        )
    if isinstance(exc, ssl.SSLError):
        return LinkState.REFUSED, f"TLS: {exc.reason or exc}"
    if isinstance(exc, OSError):
        return LinkState.UNREACHABLE, exc.strerror or str(exc) or type(exc).__name__
    return LinkState.UNREACHABLE, "the connection failed"


class Link:
    """Thread-safe record of one client's link; ``on_change`` runs after every change."""

    def __init__(
        self,
        who: str,
        broker: str,
        on_change: Callable[[LinkStatus], None] | None = None,
        wall: Callable[[], float] = time.time,
        backlog: Callable[[], str | None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        """``who``: the client in words ("table t1", "the scoreboard"); ``backlog``: what
        waits for the broker, in words ("12 events wait in J"; None: nothing to say),
        asked on the thread that reports the link's news when an outage starts or ends.
        ``wall`` stamps the status (``since``, told); ``clock`` measures an outage: a Pi
        with no real-time clock has its wall clock stepped by NTP as its network comes."""
        self.who = who
        self._wall = wall
        self._clock = clock
        self._on_change = on_change
        self._backlog = backlog
        self._cond = threading.Condition()
        self._status = LinkStatus(LinkState.CONNECTING, broker, None, wall())
        self._answered = False
        self._down_since: float | None = None  # monotonic time the outage being lived began
        self.failed_attempts = 0  # connections that failed or were refused, in all

    def status(self) -> LinkStatus:
        """The link now."""
        with self._cond:
            return self._status

    def connack(self, reason: object) -> bool:
        """The broker's answer to a connection (paho's reason code); True if it accepted."""
        if not getattr(reason, "is_failure", False):
            self.connected()
            return True
        text = reason_text(reason)
        self._failed()
        if connack_refusal(text):
            self.refused(text)
        else:
            self.unreachable(text)
        return False

    def connect_failed(self, exc: BaseException | None = None) -> None:
        """No connection was made, because of ``exc`` (see :func:`failure_text`)."""
        state, text = failure_text(exc)
        self._failed()
        if state is LinkState.REFUSED:
            self.refused(text)
        else:
            self.unreachable(text)

    def _failed(self) -> None:
        with self._cond:
            self.failed_attempts += 1

    def connected(self) -> None:
        """The broker accepted the connection."""
        self._set(LinkState.CONNECTED, None)

    def refused(self, why: str) -> None:
        """The broker (or its certificate) refused: ``why`` in words."""
        self._set(LinkState.REFUSED, why)

    def unreachable(self, why: str) -> None:
        """No connection could be made: ``why`` in words."""
        self._set(LinkState.UNREACHABLE, why)

    def lost(self, why: str) -> None:
        """A connection was lost (paho retries)."""
        self._set(LinkState.UNREACHABLE, f"connection lost ({why})")

    def wait_answer(self, timeout: float) -> LinkStatus:
        """Wait up to ``timeout`` s for the first answer (connected, refused or unreachable)."""
        with self._cond:
            self._cond.wait_for(lambda: self._answered, timeout)
            return self._status

    def _set(self, state: LinkState, problem: str | None) -> None:
        with self._cond:
            old = self._status
            self._answered = True
            self._cond.notify_all()
            if (old.state, old.problem) == (state, problem):
                return
            self._status = new = LinkStatus(state, old.broker, problem, self._wall())
            down_since, now = self._down_since, self._clock()
            if state is LinkState.CONNECTED:
                self._down_since = None
            elif state is not LinkState.CONNECTING and down_since is None:
                self._down_since = now
        self._say(new, None if down_since is None else max(0.0, now - down_since))
        if self._on_change is not None:
            self._on_change(new)

    def _say(self, new: LinkStatus, away: float | None) -> None:
        """Log a change: an outage when it starts and when it ends (``away``: seconds since
        it began; None: no outage), a refusal when its reason changes, the first connection."""
        url = new.broker
        if new.state is LinkState.CONNECTED:
            if away is None:
                log.info("%s connected to %s", self.who, url)
                return
            log.warning("%s reaches its broker %s again after %.0f s%s", self.who, url, away,
                        self._waiting(": sending them"))  # fmt: skip
        elif new.state is LinkState.REFUSED:
            log.warning("broker %s refused %s: %s", url, self.who, new.problem)
        elif new.state is LinkState.UNREACHABLE and away is None:  # a new outage
            log.warning("%s cannot reach its broker %s (%s)%s; it keeps trying", self.who,
                        url, new.problem, self._waiting(", sent once it is back"))  # fmt: skip

    def _waiting(self, then: str) -> str:
        """``; BACKLOG`` and ``then`` (nothing when nothing is said to wait)."""
        what = self._backlog() if self._backlog is not None else None
        return f"; {what}{then}" if what else ""
