"""When to say that a board link is in trouble: :class:`HealthReport`, rate-limited.

Garbled bytes, frames that fail their CRC, resyncs and reconnects are counted by
the link (:class:`~hardware.board.memory.LinkStats`) and cost no event: the
link recovers by itself. A person still needs to hear of them (a loose cable, a
noisy USB hub), without a log line for each garbled byte.
"""

from __future__ import annotations

from hardware.board.memory import LinkStats


class HealthReport:
    """Says the link's trouble counters when they have grown, at most once per ``every_s``;
    and whether they grew lately (:meth:`recent`, for a line on the screens).

    The clock is the caller's (``now`` in seconds, monotonic).
    """

    def __init__(self, stats: LinkStats, every_s: float) -> None:
        self.stats = stats
        self.every_s = every_s
        self._said = stats.trouble()
        self._said_at: float | None = None
        self._seen = self._said
        self._grew_at: float | None = None

    def watch(self, now: float) -> None:
        """Note the time when the counters have grown since the last call."""
        trouble = self.stats.trouble()
        if trouble != self._seen:
            self._seen, self._grew_at = trouble, now

    def recent(self, now: float, within_s: float) -> str | None:
        """The health line when the counters grew (as :meth:`watch` saw) within
        ``within_s`` before ``now``; None on a link quiet that long."""
        if self._grew_at is None or now - self._grew_at > within_s:
            return None
        return self.stats.health_line()

    def due(self, now: float) -> str | None:
        """The health line when the counters changed since last said and ``every_s`` has
        passed since then; None otherwise."""
        if self._said_at is not None and now - self._said_at < self.every_s:
            return None
        return self.now(now)

    def now(self, now: float) -> str | None:
        """The health line when the counters changed since last said (no rate limit)."""
        trouble = self.stats.trouble()
        if trouble == self._said:
            return None
        self._said, self._said_at = trouble, now
        return self.stats.health_line()
