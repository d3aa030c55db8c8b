"""The picamera2 bench figure: :class:`~vision.sources.picamera.Picamera2Source` driven through the
tests' fake picamera2 (delivered and read rates, queue growth, read waits)."""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path
from typing import Any

from vision.errors import CameraError
from vision.settings import CameraConfig, CameraSource
from vision.sources.picamera import FORMAT, Picamera2Source

FAKE_DIR = Path(__file__).resolve().parents[2] / "tests" / "vision" / "fakes"
"""The fake ``picamera2`` package of the tests (in a checkout, not in a wheel)."""


def load_fake_picamera2() -> Any | None:
    """The tests' fake ``picamera2`` module, loaded under a private name; None if absent."""
    init = FAKE_DIR / "picamera2" / "__init__.py"
    if not init.is_file():
        return None
    name = "_toptable_fake_picamera2"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, init)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def bench_picamera(seconds: float = 3.0) -> dict[str, Any]:
    """Drive :class:`Picamera2Source` through the fake picamera2 at 1280x960, 30 fps.

    The fake camera completes a frame every ``FrameDurationLimits`` on its own
    thread and keeps at most the newest one waiting (picamera2's ``queue=True``);
    the source reads as the daemon does. Returns the figures (prints nothing):
    ``delivered_fps`` (frames the camera completed per second), ``read_fps``
    (frames the source returned per second), ``max_queue`` (most frames ever
    waiting: 1 means no queue growth), ``dropped`` (frames replaced before being
    read), ``read_ms_median``/``read_ms_max`` (time a read waited), and the
    setup. Without the fake (an installed wheel) it returns ``{"skipped": why}``.
    """
    fake = load_fake_picamera2()
    if fake is None:
        return {"skipped": f"the fake picamera2 is not at {FAKE_DIR} (a checkout has it)"}
    config = CameraConfig(
        kind=CameraSource.PICAMERA2,
        width=1280,
        height=960,
        fps=30.0,
        exposure_us=10_000,
        gain=2.0,
        colour_gains=(1.8, 1.5),
        lens_position=2.0,
    )
    source = Picamera2Source(config, module=fake)
    waits: list[float] = []
    try:
        source.read()  # the first frame, taken while opening
        stats0 = dict(source.picam2.stats)
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            t = time.perf_counter()
            frame = source.read()
            waits.append(time.perf_counter() - t)
            if frame.shape != (960, 1280, 3):
                raise CameraError(f"bench: frame of shape {frame.shape}")
        elapsed = time.perf_counter() - start
        stats = dict(source.picam2.stats)
    finally:
        source.close()
    delivered = stats["delivered"] - stats0["delivered"]
    waits.sort()
    return {
        "camera": source.camera,
        "size": "1280x960",
        "format": FORMAT,
        "fps_asked": config.fps,
        "seconds": round(elapsed, 3),
        "frames_delivered": delivered,
        "frames_read": len(waits),
        "delivered_fps": round(delivered / elapsed, 2),
        "read_fps": round(len(waits) / elapsed, 2),
        "dropped": stats["dropped"] - stats0["dropped"],
        "max_queue": stats["max_queue"],
        "read_ms_median": round(1000 * waits[len(waits) // 2], 2) if waits else None,
        "read_ms_max": round(1000 * waits[-1], 2) if waits else None,
    }
