"""A board that keeps sending what the host cannot use (frames of another protocol, of an
unknown type, malformed, naming a sensor it lacks, notices) is said in the log once per
kind, then at most once a minute with how many more came: a broken or hostile device must
not fill the log (as the link's garbled bytes are only counted, in ``link health``)."""

from __future__ import annotations

import logging

SAY_EVERY_S = 60.0


class Said:
    """Rate-limited warnings by kind; the clock is the caller's (``now``, seconds)."""

    def __init__(self, log: logging.Logger, every_s: float = SAY_EVERY_S) -> None:
        self._log = log
        self.every_s = every_s
        self._said_at: dict[str, float] = {}
        self._held: dict[str, int] = {}

    def warning(self, kind: str, now: float, message: str, *args: object) -> None:
        """Log ``message % args`` unless a ``kind`` was said less than ``every_s`` ago
        (then count it; the next one said tells how many were held back)."""
        last = self._said_at.get(kind)
        if last is not None and now - last < self.every_s:
            self._held[kind] = self._held.get(kind, 0) + 1
            return
        held = self._held.pop(kind, 0)
        self._said_at[kind] = now
        if held and last is not None:
            message += f" ({held} more like it in the {now - last:.0f} s before)"
        self._log.warning(message, *args)
