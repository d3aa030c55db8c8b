"""picamera2's job queue and the captures that go through it (its ``picamera2.py``,
release 0.3.38), for the simulated :mod:`vision.sources.simulated.picamera2`:
``Picamera2`` inherits them.

- The job queue: ``capture_array``/``capture_metadata`` go through
  ``dispatch_functions``: a ``Job`` (``job.py``: a ``concurrent.futures.Future``)
  appended to ``_job_list``; ``wait=None`` waits for ever, ``wait=False``
  returns the job and ``wait(job, timeout)`` waits at most ``timeout``
  (``TimeoutError``, the job *stays* at the head of ``_job_list``).
  ``process_requests`` runs on the event loop at each completed frame and
  executes the jobs in order, stopping at the first that cannot finish.
- ``capture_array_`` / ``capture_metadata_``: not done until a completed request
  is there; each takes the oldest.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.sources.simulated.libcamera_frames import frame_metadata, frame_picture
from vision.sources.simulated.picamera2_job import Job


class RequestQueue:
    """picamera2's ``_job_list`` run at each completed request, and its captures."""

    lock: threading.Lock  # protects _job_list and completed_requests
    _job_list: list[Job]
    completed_requests: list[tuple[int, int, dict[str, Any], int]]
    _requests: list[tuple[int, int, dict[str, Any], int]]  # completed, not yet seen
    _requests_lock: threading.Lock
    _max_queue_len: int
    _wake: threading.Event
    stats: dict[str, int]
    camera_config: dict[str, Any]
    camera_ctrl_info: dict[str, tuple[Any, Any, Any]]
    _picture: dict[tuple[Any, ...], NDArray[np.uint8]]

    def process_requests(self) -> None:
        """``process_requests``: queue the new requests, run the jobs in order, trim."""
        with self._requests_lock:
            new, self._requests = self._requests, []
        finished: list[Job] = []
        with self.lock:
            self.completed_requests += new
            while self._job_list:
                if self._job_list[0].execute():
                    finished.append(self._job_list.pop(0))
                else:
                    break
            while len(self.completed_requests) > self._max_queue_len:
                self.completed_requests.pop(0)
                self.stats["dropped"] += 1
            self.stats["max_queue"] = max(self.stats["max_queue"], len(self.completed_requests))
        for job in finished:
            job.signal()

    def dispatch_functions(
        self, functions: list[Callable[[], tuple[bool, Any]]], wait: Any, immediate: bool = False
    ) -> Any:
        """``dispatch_functions``: queue a job; wait None/True for ever, a number at most that
        long, and False (or 0: picamera2 tests ``if wait``) not at all, returning the job."""
        if wait is None:
            wait = True
        timeout = None if wait is True else wait
        with self.lock:
            only_job = not self._job_list
            job = Job(functions)
            self._job_list.append(job)
            if only_job and (self.completed_requests or immediate):
                self._wake.set()  # _run_process_requests
        return job.get_result(timeout=timeout) if wait else job

    def wait(self, job: Job, timeout: float | None = None) -> Any:
        """``wait``: the job's result within ``timeout`` (TimeoutError; the job stays queued)."""
        return job.get_result(timeout=timeout)

    def cancel_all_and_flush(self) -> None:
        """``cancel_all_and_flush``: cancel every queued job and empty the queue."""
        with self.lock:
            for job in self._job_list:
                job.cancel()
            self._job_list = []

    def capture_array_(self, name: str) -> tuple[bool, Any]:
        """``capture_array_``: not done until a completed request is there."""
        if not self.completed_requests:
            return (False, None)
        request = self.completed_requests.pop(0)
        return (True, frame_picture(self.camera_config.get(name), name, request[2], self._picture))

    def capture_metadata_(self) -> tuple[bool, Any]:
        """``capture_metadata_``: not done until a completed request is there."""
        if not self.completed_requests:
            return (False, None)
        return (True, frame_metadata(self.completed_requests.pop(0), self.camera_ctrl_info))

    def capture_array(
        self, name: str = "main", wait: Any = None, signal_function: Any = None
    ) -> Any:
        """``capture_array``: the next frame of stream ``name`` (a job with ``wait=False``)."""
        return self.dispatch_functions([lambda: self.capture_array_(name)], wait)

    def capture_metadata(self, wait: Any = None, signal_function: Any = None) -> Any:
        """``capture_metadata``: the next frame's metadata; ``wait=None`` waits for ever."""
        return self.dispatch_functions([self.capture_metadata_], wait)
