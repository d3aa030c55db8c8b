"""The watchdog's heartbeat withheld while the camera thread is wedged in a camera call.

The camera runs on its own thread (:class:`~vision.reading.reader.CameraWorker`),
so a driver call that never returns (libcamera with a dislodged cable) leaves
the main loop turning and the systemd watchdog fed: the table would wait for
dice for ever. Every wait of a camera source is bounded, so a call lasting
longer than :data:`~vision.reading.reader.STUCK_AFTER_S` is a wedge: the
heartbeat stops, systemd's ``WatchdogSec=`` restarts the service, and the
restart releases the camera.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from vision.reading.reader import STUCK_AFTER_S, CameraWorker

log = logging.getLogger(__name__)


def camera_heartbeat(
    heartbeat: Callable[[], None],
    camera: Callable[[], CameraWorker | None],
    stuck_after_s: float = STUCK_AFTER_S,
) -> Callable[[], None]:
    """``heartbeat`` wrapped: skipped (and logged once) while ``camera()`` is stuck."""
    warned = False

    def beat() -> None:
        nonlocal warned
        worker = camera()
        stuck = worker.stuck_for() if worker is not None else 0.0
        if stuck > stuck_after_s:
            if not warned:
                log.error(
                    "camera thread stuck in a camera call for %.0f s: no watchdog ping, "
                    "systemd will restart the service",
                    stuck,
                )
                warned = True
            return
        warned = False
        heartbeat()

    return beat
