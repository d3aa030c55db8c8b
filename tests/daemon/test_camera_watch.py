"""A camera thread wedged in a camera call stops the watchdog's heartbeat (issue 25, defect 2)."""

from __future__ import annotations

import queue
import threading
from typing import Any

import numpy as np
import pytest
from numpy.typing import NDArray

from controller.daemon.camera_watch import camera_heartbeat
from controller.system.sdnotify import Notifier, Watchdog
from vision.learning.defaults import default_model
from vision.reading.reader import STUCK_AFTER_S, CameraWorker, DiceReader
from vision.settings import CameraConfig, CameraSource

pytestmark = pytest.mark.timeout(30)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class WedgedSource:
    """A source whose second read never returns until released (a driver call that hangs)."""

    def __init__(self) -> None:
        self.name = "wedged camera"
        self.reads = 0
        self.inside = threading.Event()
        self.release = threading.Event()

    def read(self) -> NDArray[np.uint8]:
        self.reads += 1
        if self.reads > 1:
            self.inside.set()
            self.release.wait()
        return np.zeros((48, 64, 3), np.uint8)

    def close(self) -> None:
        pass


def test_a_wedged_camera_call_stops_the_heartbeat() -> None:
    clock = Clock()
    source = WedgedSource()
    events: queue.Queue[Any] = queue.Queue()
    worker = CameraWorker(
        CameraConfig(kind=CameraSource.SYNTHETIC),
        DiceReader(default_model(), events, expect=3),
        clock=clock,
        opener=lambda c: source,
        idle_fps=0,
    )
    watchdog = Watchdog(Notifier(env={}), interval=30.0, clock=clock)
    beat = camera_heartbeat(watchdog.heartbeat, lambda: worker)
    with worker:
        assert source.inside.wait(10)
        assert worker.stuck_for() == 0.0
        beat()
        assert watchdog.healthy()
        clock.now += STUCK_AFTER_S + 1  # the read has lasted longer than any bounded wait
        assert worker.stuck_for() > STUCK_AFTER_S
        beat()
        assert not watchdog.healthy()  # WATCHDOG=1 stops: systemd restarts the service
        source.release.set()
    clock.now += 1
    beat()
    assert watchdog.healthy()


def test_no_camera_means_the_heartbeat_goes_through() -> None:
    clock = Clock()
    watchdog = Watchdog(Notifier(env={}), interval=30.0, clock=clock)
    beat = camera_heartbeat(watchdog.heartbeat, lambda: None)
    clock.now += 100
    beat()
    assert watchdog.healthy()
