"""What the simulated sensor delivers for a completed request: the picture of a stream
(a grey tray with a red and a green square, brighter with a longer exposure and more
gain: :func:`~vision.sources.simulated.libcamera_agc.tray_level`) and its metadata, for
:mod:`vision.sources.simulated.picamera2`'s ``capture_array_`` and
``capture_metadata_``. A request's controls hold what the frame was taken with: the
``ExposureTime`` and ``AnalogueGain`` the AGC applied and the ``Lux`` it metered. The
physical world, not picamera2: the formats' memory layout follows libcamera's DRM
fourcc naming."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.sources.simulated.libcamera_agc import tray_level

FORMATS = {"RGB888": 3, "BGR888": 3, "XRGB8888": 4, "XBGR8888": 4}
"""The stream formats the simulation configures, and their bytes per pixel."""

Request = tuple[int, int, dict[str, Any], int]  # sequence, timestamp (ns), controls, duration


def frame_picture(
    stream: dict[str, Any] | None,
    name: str,
    controls: dict[str, Any],
    cache: dict[tuple[Any, ...], NDArray[np.uint8]],
) -> NDArray[np.uint8]:
    """A copy of the picture of the configured ``stream`` (called ``name``) under
    ``controls``; ``cache`` keeps the last one drawn.

    Raises:
        RuntimeError: the stream is not configured.
    """
    if not stream:
        raise RuntimeError(f"Stream {name!r} is not defined")
    width, height = stream["size"]
    fmt = stream["format"]
    level = tray_level(controls["ExposureTime"], controls["AnalogueGain"])
    key = (width, height, fmt, level)
    picture = cache.get(key)
    if picture is None:
        rgb = np.full((height, width, 3), level, np.uint8)
        rgb[height // 8 : height // 4, width // 8 : width // 4] = (200, 0, 0)  # red
        rgb[height // 8 : height // 4, 5 * width // 8 : 3 * width // 4] = (0, 200, 0)
        # libcamera names formats in DRM fourcc order: RGB888 is [B, G, R] in memory
        memory = rgb[:, :, ::-1] if fmt in ("RGB888", "XRGB8888") else rgb
        if FORMATS[fmt] == 4:
            memory = np.dstack([memory, np.full((height, width), 255, np.uint8)])
        picture = np.ascontiguousarray(memory)
        cache.clear()
        cache[key] = picture
    return picture.copy()


def frame_metadata(request: Request, advertised: dict[str, tuple[Any, Any, Any]]) -> dict[str, Any]:
    """The metadata of a completed ``request`` (``LensPosition`` only for a camera that
    ``advertised`` it)."""
    _, stamp, controls, duration = request
    meta: dict[str, Any] = {
        "SensorTimestamp": stamp,
        "FrameDuration": duration,
        "ExposureTime": int(controls["ExposureTime"]),
        "AnalogueGain": float(controls["AnalogueGain"]),
        "DigitalGain": 1.0,
        "ColourGains": tuple(controls.get("ColourGains", (1.9, 1.6))),
        "ColourTemperature": int(controls.get("ColourTemperature", 4500)),
        "Lux": float(controls["Lux"]),
    }
    if "LensPosition" in advertised:
        meta["LensPosition"] = float(controls.get("LensPosition", 1.0))
    return meta
