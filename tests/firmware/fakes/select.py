"""Fake ``select`` module: ``poll()`` over simulated streams.

Semantics from the MicroPython docs (``select`` module, class Poll):

* ``register(obj[, eventmask])``: eventmask defaults to ``POLLIN | POLLOUT``;
  registering again only updates the mask (like ``modify``).
* ``unregister(obj)``: forgets ``obj`` (silently if unknown, as the port does).
* ``modify(obj, eventmask)``: ``OSError(ENOENT)`` if ``obj`` is not registered.
* ``poll(timeout=-1)``: a list of ``(obj, event)`` for the objects that are
  ready, waiting up to ``timeout`` ms (-1: until one is); an empty list on
  timeout. ``POLLHUP`` and ``POLLERR`` are reported even if not asked for.
* ``ipoll(timeout=-1, flags=0)``: the same as an iterator; with ``flags=1``
  (one-shot) a stream that reported an event gets event mask 0 until
  ``modify``/``register`` sets it again.

A pollable fake stream has ``poll_flags(eventmask) -> int``: which of the
events it has now (the role of the ``MP_STREAM_POLL`` ioctl). Waiting advances
the simulated clock (``attach``).
"""

from __future__ import annotations

import errno
from collections.abc import Iterator
from typing import Protocol

from tests.firmware.fakes.clock import Clock

POLLIN = 0x0001
POLLOUT = 0x0004
POLLERR = 0x0008
POLLHUP = 0x0010

_clock = Clock()


def attach(clock: Clock) -> None:
    """Wait on this clock from now on."""
    global _clock
    _clock = clock


class Pollable(Protocol):
    def poll_flags(self, eventmask: int) -> int: ...


class Poll:
    """One set of registered streams."""

    def __init__(self) -> None:
        self._masks: dict[int, tuple[Pollable, int]] = {}
        self.calls = 0

    def register(self, obj: Pollable, eventmask: int = POLLIN | POLLOUT) -> None:
        if not hasattr(obj, "poll_flags"):
            raise TypeError("object with stream.ioctl required")
        self._masks[id(obj)] = (obj, eventmask)

    def unregister(self, obj: Pollable) -> None:
        self._masks.pop(id(obj), None)

    def modify(self, obj: Pollable, eventmask: int) -> None:
        if id(obj) not in self._masks:
            raise OSError(errno.ENOENT, "ENOENT")
        self._masks[id(obj)] = (obj, eventmask)

    def _ready(self, one_shot: bool) -> list[tuple[Pollable, int]]:
        out = []
        for key, (obj, mask) in list(self._masks.items()):
            flags = obj.poll_flags(mask) & (mask | POLLERR | POLLHUP)
            if flags:
                out.append((obj, flags))
                if one_shot:
                    self._masks[key] = (obj, 0)
        return out

    def _wait(self, timeout: int, one_shot: bool) -> list[tuple[Pollable, int]]:
        self.calls += 1
        waited = 0
        while True:
            ready = self._ready(one_shot)
            if ready or (timeout >= 0 and waited >= timeout):
                return ready
            _clock.advance(1)
            waited += 1

    def poll(self, timeout: int = -1) -> list[tuple[Pollable, int]]:
        """The ready ``(obj, event)`` pairs, waiting up to ``timeout`` ms (-1: forever)."""
        return self._wait(timeout, False)

    def ipoll(self, timeout: int = -1, flags: int = 0) -> Iterator[tuple[Pollable, int]]:
        """``poll`` as an iterator; ``flags=1``: one-shot."""
        return iter(self._wait(timeout, bool(flags & 1)))


def poll() -> Poll:
    """A new poll object."""
    return Poll()
