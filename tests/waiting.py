"""Waiting in tests for a condition, never for a fixed time.

A test that sleeps and then looks is right only when the machine is fast
enough; one that polls a condition until a deadline is right on any machine
and as fast as the code allows. ``timeout`` is a generous bound for a hung
test, not a figure the test depends on.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")

STEP_S = 0.01  # how often a condition is looked at


def wait_for(check: Callable[[], object], timeout: float, step: float = STEP_S) -> bool:
    """Whether ``check()`` became truthy within ``timeout`` seconds (looked at every ``step``)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() >= deadline:
            return bool(check())
        time.sleep(step)
    return True


def wait_until(check: Callable[[], object], timeout: float, what: str) -> None:
    """Return once ``check()`` is truthy.

    Raises:
        AssertionError: it was still false after ``timeout`` seconds (the message names ``what``).
    """
    if not wait_for(check, timeout):
        raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")


def posted(q: queue.Queue[T]) -> list[T]:
    """What ``q`` holds now, taken off it (nothing waited for)."""
    out = []
    while True:
        try:
            out.append(q.get_nowait())
        except queue.Empty:
            return out
