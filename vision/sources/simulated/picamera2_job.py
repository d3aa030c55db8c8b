"""picamera2's ``Job`` (its ``job.py``, release 0.3.38), for the simulated
:mod:`vision.sources.simulated.picamera2`: functions the event loop runs in order, and
the Future their waiter holds."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import CancelledError, Future
from typing import Any


class Job:
    """picamera2's ``Job`` (``job.py``): functions run by the event loop, and a Future."""

    def __init__(self, functions: list[Callable[[], tuple[bool, Any]]]) -> None:
        self._functions = list(functions)
        self._future: Future[Any] = Future()
        self._future.set_running_or_notify_cancel()
        self._result: Any = None

    def execute(self) -> bool:
        """Run the functions until one is not done; True once all are (``Job.execute``)."""
        try:
            while self._functions:
                done, result = self._functions[0]()
                if not done:
                    break
                self._functions.pop(0)
            if not self._functions:
                self._result = result
        except Exception as exc:  # the waiter gets it, as picamera2 does
            self._future.set_exception(exc)
            self._functions = []
        return not self._functions

    def signal(self) -> None:
        """Hand the result to the waiter (``Job.signal``)."""
        if not self._future.done():
            self._future.set_result(self._result)

    def get_result(self, timeout: float | None = None) -> Any:
        """The result, waiting at most ``timeout`` (``Job.get_result``).

        Raises:
            TimeoutError: not finished in time; CancelledError: cancelled.
        """
        return self._future.result(timeout=timeout)

    def cancel(self) -> None:
        """Make the waiter's result a ``CancelledError`` (``Job.cancel``)."""
        if not self._future.done():
            self._future.set_exception(CancelledError())
