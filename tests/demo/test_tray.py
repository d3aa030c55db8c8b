"""The simulated tray stands in for the synthetic camera: the camera thread reads every
frame of a throw once, in order, and a still tray again and again, as a camera does."""

from __future__ import annotations

import itertools
import threading
from typing import Any

import pytest

from controller.core.symbols import Symbol
from controller.demo.tray import EMPTY_FRAMES, MOVING_FRAMES, STILL_FRAMES, Tray
from vision.settings import CameraConfig, CameraSource

pytestmark = pytest.mark.timeout(60)


def test_the_camera_reads_every_frame_of_a_throw_once_and_then_the_still_tray() -> None:
    tray = Tray(seed=3)
    source = tray.open_source(CameraConfig(kind=CameraSource.SYNTHETIC, width=320, height=240))
    assert tray.open_source(CameraConfig(kind=CameraSource.SYNTHETIC)) is source  # reopened
    read: list[Any] = []
    stop, started = threading.Event(), threading.Event()

    def camera() -> None:
        while not stop.is_set():
            frame = source.read()
            assert frame is not None
            read.append(frame)
            started.set()

    worker = threading.Thread(target=camera)
    worker.start()
    try:
        assert started.wait(10)  # the camera sees the empty tray before the throw
        thrown = tray.throw([Symbol.KICK, Symbol.STAR, Symbol.STAR], (), "first")
        seen = len(read)
        rerolled = tray.throw([Symbol.PUNCH], (0, 1), "second")
    finally:
        stop.set()
        tray.close()
        worker.join(10)
    assert not worker.is_alive()
    assert thrown == EMPTY_FRAMES + MOVING_FRAMES + STILL_FRAMES
    assert rerolled == MOVING_FRAMES + STILL_FRAMES  # kept dice: no empty tray first
    # each frame once, in order; only a still tray is seen again (before, between, after)
    runs = [key for key, _ in itertools.groupby(map(id, read))]
    assert len(runs) == len(set(runs)) == 1 + thrown + rerolled
    assert seen >= 1 + thrown  # the first throw was read whole before throw() returned
    assert tray.faces()[:2] == (Symbol.KICK, Symbol.STAR) and len(tray.faces()) == 3
