"""What a camera source really delivers (frame size, measured rate, format, the manual
controls as read back) and the one line that says it (``toptable config check``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from vision.errors import CameraError
from vision.settings import CameraConfig
from vision.sources.source import FrameSource


def measure_delivery(
    source: FrameSource, frames: int = 15, clock: Callable[[], float] = time.monotonic
) -> dict[str, Any]:
    """What a source really delivers: frame size, rate (measured over ``frames``), format.

    Reads one frame, then ``frames`` more timed. The answer has ``size``
    (width, height of the frames), ``fps`` (measured; None for fewer than two
    frames), ``format``, ``controls`` (the manual controls as the camera read
    them back), ``notes`` (a word on a control fixed without its option: picamera2's
    gain fixed with ``exposure_us``) and ``frames`` (how many were timed).

    Raises:
        CameraError: the camera stopped giving frames.
    """
    info = dict(getattr(source, "delivered", {}) or {})
    first = source.read()
    if first is None:
        raise CameraError(f"{source.name}: gave no frame")
    size = (first.shape[1], first.shape[0])
    start, count = clock(), 0
    for _ in range(frames):
        if source.read() is None:
            break
        count += 1
    elapsed = clock() - start
    return {
        "size": size,
        "fps": count / elapsed if count and elapsed > 0 else None,
        "format": info.get("format", getattr(source, "format", "BGR")),
        "controls": dict(info.get("controls", {})),
        "notes": dict(info.get("notes", {})),
        "frames": count,
        "camera": getattr(source, "camera", source.name),
    }


def delivery_text(info: dict[str, Any], config: CameraConfig) -> str:
    """One line: ``camera X delivers 1280x960 MJPG at 30.0 fps; exposure_us 10000``, a control
    fixed without its option noted (``gain 1.12281 (fixed with exposure_us)``)."""
    w, h = info["size"]
    fps = info.get("fps")
    rate = f"{fps:.1f} fps" if fps else "an unmeasured rate"
    text = f"camera {info.get('camera', config.device)} delivers {w}x{h} {info['format']} at {rate}"
    if fps and abs(fps - config.fps) > 0.1 * config.fps:
        text += f" (asked {config.fps:g} fps: the camera, its format or the light limits it)"
    controls, notes = info.get("controls") or {}, info.get("notes") or {}
    if controls:
        shown = ", ".join(
            f"{k} {_value_text(v)}" + (f" ({notes[k]})" if k in notes else "")
            for k, v in controls.items()
            if v is not None
        )
        text += f"; {shown}"
    return text


def _value_text(value: Any) -> str:
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)
