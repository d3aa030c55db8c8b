"""``toptable bench camera``: :class:`~vision.sources.picamera.Picamera2Source` at 1280x960,
30 fps on simulated Camera Module 3, Camera Module 2 and HQ camera (the shipped
:mod:`vision.sources.simulated.picamera2`): the sensor mode chosen, delivered and
read rates, queue growth, read waits."""

from __future__ import annotations

import argparse
import time
from typing import Any

from vision.errors import CameraError
from vision.settings import CameraConfig, CameraSource
from vision.sources.picamera import FORMAT, Picamera2Source
from vision.sources.simulated import picamera2 as simulated

CAMERAS: dict[str, dict[str, Any]] = {
    "Camera Module 3": simulated.CAMERA_MODULE_3,
    "Camera Module 2": simulated.CAMERA_MODULE_2,
    "HQ camera": simulated.HQ_CAMERA,
}
"""The simulated cameras the bench drives, by product name."""


def bench_picamera(camera: str = "Camera Module 3", seconds: float = 3.0) -> dict[str, Any]:
    """Drive :class:`Picamera2Source` through the simulated picamera2 at 1280x960, 30 fps.

    The simulated camera completes a frame every ``FrameDurationLimits`` on its own
    thread and keeps at most the newest one waiting (picamera2's ``queue=True``);
    the source reads as the daemon does. Returns the figures (prints nothing):
    ``sensor_mode`` (the mode the source chose), ``delivered_fps`` (frames the
    camera completed per second), ``read_fps`` (frames the source returned per
    second), ``max_queue`` (most frames ever waiting: 1 means no queue growth),
    ``dropped`` (frames replaced before being read), ``read_ms_median`` /
    ``read_ms_max`` (time a read waited).

    Raises:
        CameraError: the source refused the camera or a frame was the wrong shape.
    """
    manual: dict[str, Any] = {"exposure_us": 10_000, "gain": 2.0, "colour_gains": (1.8, 1.5)}
    if camera == "Camera Module 3":
        manual["lens_position"] = 2.0  # the only one of the three that focuses
    config = CameraConfig(kind=CameraSource.PICAMERA2, width=1280, height=960, fps=30.0, **manual)
    attached = simulated.CAMERAS
    simulated.CAMERAS = [CAMERAS[camera]]
    try:
        source = Picamera2Source(config, module=simulated)
    finally:
        simulated.CAMERAS = attached
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
        mode = source.picam2.camera_configuration()["sensor"]["output_size"]
    finally:
        source.close()
    delivered = stats["delivered"] - stats0["delivered"]
    waits.sort()
    return {
        "camera": source.camera,
        "sensor_mode": f"{mode[0]}x{mode[1]}",
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


def main(argv: list[str]) -> int:
    """Print one line of figures per simulated camera; 1 if a camera was refused."""
    parser = argparse.ArgumentParser(prog="toptable bench camera")
    parser.add_argument("--quick", action="store_true", help="1 s per camera instead of 3")
    args = parser.parse_args(argv)
    worst = 0
    for name in CAMERAS:
        try:
            f = bench_picamera(name, 1.0 if args.quick else 3.0)
        except CameraError as exc:
            print(f"{name}: refused: {exc}")
            worst = 1
            continue
        print(
            f"{name} ({f['camera']}), simulated picamera2 {simulated.VERSION}: "
            f"{f['size']} {f['format']} at {f['fps_asked']:g} fps from sensor mode "
            f"{f['sensor_mode']}, {f['seconds']} s: delivered {f['delivered_fps']:.1f} fps, "
            f"read {f['read_fps']:.1f} fps, max queue {f['max_queue']}, dropped {f['dropped']}, "
            f"read wait median {f['read_ms_median']} ms, max {f['read_ms_max']} ms",
            flush=True,
        )
    return worst
