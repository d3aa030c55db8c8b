"""The Pi Camera Module through picamera2 (libcamera), Raspberry Pi OS Bookworm's camera stack.

:class:`Picamera2Source` is the ``[camera] source = "picamera2"`` frame source:
it opens libcamera camera ``camera_num``, picks the smallest sensor mode that
covers the asked size at the asked rate (so the field of view and the rate
are the sensor's, the ISP scales), asks the main stream for ``RGB888`` at
``width`` x ``height`` with ``FrameDurationLimits`` fixed at one frame, and
fixes what the section asks (:mod:`vision.sources.picamera_controls`):
``ExposureTime`` and with it always a fixed ``AnalogueGain`` (``gain``, else
:data:`~vision.sources.picamera_controls.DEFAULT_GAIN`: libcamera 0.5's automatic gain
is an algorithm of its own), ``ColourGains`` or ``ColourTemperature`` (auto white
balance off), ``LensPosition`` (``AfMode`` manual: a Camera Module 3 stops hunting).
So every throw is seen under the same light.

picamera2's ``RGB888`` gives each pixel as [B, G, R] in memory (the
picamera2 manual's note: the names follow libcamera's DRM fourcc order), which
is OpenCV's BGR: frames go to the reader unchanged.

Every problem is one line, raised as :class:`~vision.errors.CameraError` (the
daemon's camera-lost fault shows it and retries): the package missing
(:class:`~vision.sources.picamera_package.PicameraMissingError`, naming apt's
``python3-picamera2``), no camera,
a camera that starts but delivers nothing; a size, a rate or a control the
camera does not have is a :class:`~vision.settings.CameraOptionError` naming
the option and the camera. Controls are checked against the camera's own
``camera_controls`` ranges before anything is set.

Waits are all bounded: a capture that times out cancels picamera2's queued
jobs (``cancel_all_and_flush``, made for a dislodged cable) so that ``close``
is not queued behind it, and the frame-rate limits are read after the chosen
sensor mode is configured (picamera2 refreshes ``camera_controls`` at every
``configure``, and reading ``sensor_modes`` leaves the full-resolution mode
configured). A picamera2 older than
:data:`~vision.sources.picamera_package.MIN_VERSION` is refused at open
with the apt command that upgrades it; a USB camera (sensor modes without a
size) is sent to ``source = "v4l2"``.

picamera2 is imported only when a source opens (apt's ``python3-picamera2``,
seen through a venv made with ``--system-site-packages``); tests and
``toptable bench camera`` (:mod:`controller.bench.camera`) pass the simulation
:mod:`vision.sources.simulated.picamera2` in its place.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Mapping, Sequence
from concurrent.futures import CancelledError
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.errors import CameraError
from vision.settings import CameraConfig, CameraOptionError, CameraSource, frame_time_us
from vision.sources.picamera_controls import check_control, fixed_controls
from vision.sources.picamera_package import check_api, load_picamera2

FORMAT = "RGB888"
"""The main stream's format: three bytes a pixel, [B, G, R] in memory (OpenCV's order)."""
BUSY = os.strerror(errno.EBUSY)
"""libcamera's reason for a camera another program holds ("Device or resource busy")."""
BUFFERS = 4
"""Frame buffers the camera cycles through (picamera2's video default is 6; 4 spare CMA)."""
TIMEOUT_S = 2.0
"""How long a read waits for a frame before the camera counts as silent."""
STARTUP_FRAMES = 7
"""The most frames libcamera's Raspberry Pi IPA hides on a camera's first start, before
the first one picamera2 is given (``IpaBase::start``: the AGC's 6 convergence frames of
the default tuning, plus the one it mistrusts): the first frame is waited for that many
frame times (and its own) more, which matters only at a few frames a second."""


def _item(obj: Any, key: str) -> Any:
    """``obj[key]`` for picamera2's dict configurations, ``obj.key`` for its objects."""
    if isinstance(obj, Mapping):
        return obj[key]
    return getattr(obj, key)


def _size(value: Any) -> tuple[int, int]:
    return (int(value[0]), int(value[1]))


def _sizes_text(sizes: Sequence[tuple[int, int]]) -> str:
    return ", ".join(f"{w}x{h}" for w, h in sizes)


class Picamera2Source:
    """A libcamera camera through picamera2; BGR frames of the configured size.

    ``module`` stands in for the ``picamera2`` module (tests, the bench).

    Raises:
        CameraError: no such camera, it is busy, or it starts but gives no frame.
        CameraOptionError: a size, rate or control the camera does not have.
        PicameraMissingError: picamera2 is not installed.
    """

    def __init__(
        self, config: CameraConfig, module: Any | None = None, timeout_s: float = TIMEOUT_S
    ) -> None:
        if config.kind is not CameraSource.PICAMERA2:
            raise CameraError(f"picamera2 source given a {config.kind.value!r} camera config")
        self.config = config
        self.timeout_s = timeout_s
        self.format = FORMAT
        self.delivered: dict[str, Any] = {}
        self._first: npt.NDArray[np.uint8] | None = None
        self._closed = False
        self.sizes: list[tuple[int, int]] = []
        self.default_gain: float | None = None  # the gain fixed with exposure_us, unasked
        pc = module if module is not None else load_picamera2()
        check_api(pc)
        num = config.camera_num
        self.name = f"picamera2 camera {num}"
        self.camera = self.name
        try:
            cameras = list(pc.Picamera2.global_camera_info())
        except RuntimeError as exc:
            raise CameraError(f"{self.name}: libcamera cannot list cameras: {exc}") from None
        if not cameras:
            raise CameraError(
                f"{self.name}: libcamera finds no camera (is the ribbon cable seated both ends, "
                "contacts the right way round? rpicam-hello --list-cameras shows what it sees)"
            )
        if num >= len(cameras):
            found = ", ".join(f"{i} ({c.get('Model', '?')})" for i, c in enumerate(cameras))
            raise CameraOptionError(
                "camera_num",
                self.name,
                f"is {num}, but libcamera finds {len(cameras)} camera(s): {found}",
            )
        self.model = str(cameras[num].get("Model", "?"))
        self.camera = f"{self.name} ({self.model})"
        try:
            self.picam2: Any = pc.Picamera2(num)
        except (RuntimeError, IndexError, OSError) as exc:
            raise self._open_error(exc) from None
        try:
            self._start()
        except BaseException:
            self.close()
            raise

    # --- setup ---

    def _start(self) -> None:
        c, cam = self.config, self.picam2
        size = (c.width, c.height)
        mode = self._sensor_mode(size)
        controls, self.default_gain = fixed_controls(c, cam.camera_controls, self.camera)
        try:
            setup = cam.create_video_configuration(
                main={"size": size, "format": FORMAT},
                controls=controls,
                buffer_count=BUFFERS,
                queue=True,
                sensor={"output_size": mode["size"], "bit_depth": mode["bit_depth"]},
            )
            cam.configure(setup)
        except (RuntimeError, ValueError) as exc:
            raise CameraError(f"{self.camera}: cannot be configured: {exc}") from None
        except OSError as exc:
            raise self._os_error(exc) from None
        got = _size(_item(_item(cam.camera_configuration(), "main"), "size"))
        if got != size:
            raise self._size_error(got, f"which {self.camera} gives as")
        # only now: configure() refreshed camera_controls for the chosen mode (reading
        # sensor_modes left the full-resolution mode's limits there)
        check_control(
            cam.camera_controls, self.camera, "fps", "FrameDurationLimits", frame_time_us(c.fps)
        )
        try:
            cam.start()
        except RuntimeError as exc:
            raise CameraError(f"{self.camera}: cannot start: {exc}") from None
        self._first = self._capture(first=True)
        self.delivered = self._delivered(got)

    def _open_error(self, exc: BaseException) -> CameraError:
        """Why ``Picamera2(n)`` failed. Its ``__init__`` catches libcamera's error
        (``camera.acquire()``: "Failed to acquire camera: Device or resource busy") and
        raises "Camera __init__ sequence did not complete.": ``from e`` since picamera2
        0.3.35, a bare ``raise`` in the handler before (0.3.21 to 0.3.34, Bookworm's
        apt package): the reason is the cause, else the context. Another program is
        named as the likely holder only when the reason is that the camera is busy."""
        reason = exc.__cause__ or exc.__context__
        why = f"{exc}: {reason}" if reason is not None else str(exc)
        hint = "; is another program (rpicam-*, another toptable) using it?" if BUSY in why else ""
        return CameraError(f"{self.camera}: cannot open it ({why}){hint}")

    def _os_error(self, exc: OSError) -> CameraError:
        """picamera2 0.3.38 ``DmaAllocator.allocate`` (each ``configure``, and reading
        ``sensor_modes`` configures every raw mode): ``DmaHeap.alloc``'s ioctl raises
        ``OSError`` (ENOMEM) when the contiguous memory (CMA) is short; another errno (a
        camera gone, say) is named as it is."""
        if exc.errno != errno.ENOMEM:
            return CameraError(f"{self.camera}: cannot be configured: {exc.strerror or exc}")
        return CameraError(
            f"{self.camera}: cannot allocate its frame buffers ({exc.strerror or exc}): "
            "another program holds camera memory, or raise the cma size in "
            "/boot/firmware/config.txt (dtoverlay=vc4-kms-v3d,cma-320)"
        )

    def _modes(self) -> list[dict[str, Any]]:
        modes = []
        try:
            listed = list(self.picam2.sensor_modes)
        except OSError as exc:
            raise self._os_error(exc) from None
        if listed and all("size" not in m for m in listed):
            formats = ", ".join(str(m.get("format", "?")) for m in listed)
            raise CameraError(
                f"{self.camera}: is not a Pi camera module (no sensor modes, formats "
                f'{formats}; a USB camera?): use source = "v4l2" with its /dev/video device'
            )
        for m in listed:
            if "size" not in m:
                continue
            modes.append(
                {
                    "size": _size(m["size"]),
                    "fps": float(m.get("fps", 0.0)),
                    "bit_depth": int(m.get("bit_depth", 10)),
                }
            )
        if not modes:
            raise CameraError(f"{self.camera}: libcamera lists no sensor modes for it")
        return sorted(modes, key=lambda m: (m["size"][0] * m["size"][1], -m["fps"]))

    def _sensor_mode(self, size: tuple[int, int]) -> dict[str, Any]:
        """The smallest sensor mode that covers ``size`` at the asked rate."""
        modes = self._modes()
        self.sizes = sorted({m["size"] for m in modes}, key=lambda s: s[0] * s[1])
        covering = [m for m in modes if m["size"][0] >= size[0] and m["size"][1] >= size[1]]
        if not covering:
            raise self._size_error(None, f"larger than any size {self.camera} has")
        fast = [m for m in covering if m["fps"] >= self.config.fps - 0.01]
        if not fast:
            best = max(m["fps"] for m in covering)
            listed = ", ".join(
                f"{w}x{h} at {m['fps']:.1f} fps" for m in modes for w, h in [m["size"]]
            )
            raise CameraOptionError(
                "fps",
                self.camera,
                f"is {self.config.fps:g}, but {self.camera} reaches {best:.1f} fps at most "
                f"for {size[0]}x{size[1]}; its sensor modes: {listed}",
            )
        return fast[0]

    def _size_error(self, got: tuple[int, int] | None, what: str) -> CameraOptionError:
        c = self.config
        widest = max((w for w, _ in self.sizes), default=c.width)
        option = (
            "width" if (got and got[0] != c.width) or (not got and c.width > widest) else "height"
        )
        asked = c.width if option == "width" else c.height
        gives = f"{got[0]}x{got[1]}" if got else ""
        return CameraOptionError(
            option,
            self.camera,
            f"is {asked} ({c.width}x{c.height} asked), {what}{' ' + gives if gives else ''}; "
            f"its sensor's sizes: {_sizes_text(self.sizes)}",
        )

    def _delivered(self, size: tuple[int, int]) -> dict[str, Any]:
        try:
            meta = dict(self._wait(self.picam2.capture_metadata(wait=False), self.timeout_s))
        except (RuntimeError, TimeoutError, CancelledError):
            meta = {}  # what it delivers is only reported; the frames decide
        duration = meta.get("FrameDuration")
        fps = 1e6 / duration if isinstance(duration, int | float) and duration > 0 else None
        read_back = {
            "exposure_us": meta.get("ExposureTime"),
            "gain": meta.get("AnalogueGain"),
            "colour_gains": meta.get("ColourGains"),
            "white_balance": meta.get("ColourTemperature"),
            "lens_position": meta.get("LensPosition"),
        }
        shown, notes = set(self.config.manual), {}
        if self.default_gain is not None:  # fixed with exposure_us, unasked: said so
            shown.add("gain")
            notes["gain"] = "fixed with exposure_us; set gain to choose"
        return {
            "size": size,
            "fps": fps,
            "format": f"{FORMAT} (B, G, R bytes)",
            "controls": {k: v for k, v in read_back.items() if v is not None and k in shown},
            "notes": notes,
        }

    # --- frames ---

    def _wait(self, job: Any, timeout_s: float) -> Any:
        """The job's result within ``timeout_s``.

        A job that times out stays at the head of picamera2's queue, and ``stop()``
        would queue behind it for ever: every queued job is cancelled first.

        Raises:
            TimeoutError: no frame in time; CancelledError: the queue was flushed.
        """
        try:
            return self.picam2.wait(job, timeout=timeout_s)
        except (TimeoutError, CancelledError):
            self._flush()
            raise

    def _flush(self) -> None:
        with contextlib.suppress(RuntimeError):
            self.picam2.cancel_all_and_flush()

    def _capture(self, first: bool = False) -> npt.NDArray[np.uint8]:
        c, cam = self.config, self.picam2
        wait_s = self.timeout_s
        if first:  # the frames libcamera hides first, then the first one, then as any read
            wait_s = round(wait_s + (STARTUP_FRAMES + 1) / c.fps, 1)
        try:
            array = self._wait(cam.capture_array("main", wait=False), wait_s)
        except (TimeoutError, CancelledError):
            what = "started but gave no frame" if first else "gave no frame"
            raise CameraError(
                f"{self.camera}: {what} in {wait_s:g} s (expected {c.width}x{c.height} "
                f"{FORMAT} at {c.fps:g} fps)"
            ) from None
        except RuntimeError as exc:
            raise CameraError(f"{self.camera}: {exc}") from None
        return self._bgr(array)

    def _bgr(self, array: Any) -> npt.NDArray[np.uint8]:
        c = self.config
        frame = np.asarray(array)
        if frame.ndim == 3 and frame.shape[2] == 4:
            frame = frame[:, :, :3]  # XRGB8888: B, G, R, X
        if frame.dtype != np.uint8 or frame.shape != (c.height, c.width, 3):
            raise CameraError(
                f"{self.camera}: gave a frame of shape {frame.shape} {frame.dtype} "
                f"(expected ({c.height}, {c.width}, 3) uint8)"
            )
        return np.ascontiguousarray(frame)

    def read(self) -> npt.NDArray[np.uint8]:
        """The next BGR frame.

        Raises:
            CameraError: no frame within ``timeout_s``, or the camera failed.
        """
        if self._closed:
            raise CameraError(f"{self.camera}: source is closed")
        if self._first is not None:
            frame, self._first = self._first, None
            return frame
        return self._capture()

    def close(self) -> None:
        """Stop and release the camera; idempotent."""
        if self._closed:
            return
        self._closed = True
        self._first = None
        cam = getattr(self, "picam2", None)
        if cam is None:
            return
        self._flush()  # nothing left queued for stop() to wait behind
        # picamera2's close() stops its event loop first, then the camera directly
        with contextlib.suppress(RuntimeError):  # already closed, or the camera is gone
            cam.close()
