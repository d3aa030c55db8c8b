"""The state of one client's link to the broker, in words a person can act on.

Shared by the table's publisher and the scoreboard's subscriber (one connect
callback for both): paho's callbacks hand their news to :meth:`Link.connack`,
:meth:`Link.connect_failed` and :meth:`Link.lost`, which log each new problem
once (paho retries every few seconds: a wrong password must not fill the log),
and anyone may read :meth:`Link.status` or wait for the first answer
(:meth:`Link.wait_answer`).

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
    ) -> None:
        """``who``: the client in words ("table t1", "the scoreboard")."""
        self.who = who
        self._wall = wall
        self._on_change = on_change
        self._cond = threading.Condition()
        self._status = LinkStatus(LinkState.CONNECTING, broker, None, wall())
        self._answered = False

    def status(self) -> LinkStatus:
        """The link now."""
        with self._cond:
            return self._status

    def connack(self, reason: object) -> bool:
        """The broker's answer to a connection (paho's reason code); True if it accepted."""
        if not getattr(reason, "is_failure", False):
            log.info("%s connected to %s", self.who, self.status().broker)
            self.connected()
            return True
        text = reason_text(reason)
        if self.status().problem != text:
            log.warning("broker %s refused %s: %s", self.status().broker, self.who, text)
        if connack_refusal(text):
            self.refused(text)
        else:
            self.unreachable(text)
        return False

    def connect_failed(self, exc: BaseException | None = None) -> None:
        """No connection was made, because of ``exc`` (see :func:`failure_text`)."""
        state, text = failure_text(exc)
        if self.status().problem != text:
            log.warning("%s cannot connect to %s: %s", self.who, self.status().broker, text)
        if state is LinkState.REFUSED:
            self.refused(text)
        else:
            self.unreachable(text)

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
        if self._on_change is not None:
            self._on_change(new)
