"""Camera sources behind one interface, chosen by a config (the pin-factory idea).

Kinds (:class:`~vision.settings.CameraSource`, the ``[camera]`` section's
``source``; the settings a source takes are :class:`~vision.settings.CameraConfig`):
``v4l2`` (a V4L2 device through OpenCV: a USB webcam, MJPG when it has it),
``picamera2`` (a Pi Camera Module through libcamera, :mod:`vision.sources.picamera`),
``file`` (a video file), ``folder`` (a folder of images, each held for
``hold_frames`` frames as a still camera would give it) and ``synthetic``
(rendered dice, :mod:`vision.synth.scenes`). Every source has ``read()`` (the next
BGR frame, or None at the end of a file or folder) and an idempotent
``close()``; a device that fails raises :class:`~vision.errors.CameraError`
(:class:`~vision.settings.CameraOptionError` when the camera cannot do what
one ``[camera]`` option asks: the message names the option and the camera).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from controller.core.symbols import ALL_SYMBOLS, Symbol
from vision.errors import CameraError
from vision.images import opencv_quiet, photos_here, read_image, suffix_list
from vision.settings import CameraConfig as CameraConfig
from vision.settings import CameraOptionError, CameraSource
from vision.sources.picamera import Picamera2Source
from vision.sources.v4l2 import V4l2Device, fourcc_int, fourcc_text, sizes_text
from vision.synth.scenes import Renderer, Settings
from vision.synth.throws import Frame, Throw, render_throws


class FrameSource(Protocol):
    """What every camera source offers."""

    name: str

    def read(self) -> npt.NDArray[np.uint8] | None:
        """The next BGR frame, or None when a file or folder is finished.

        Raises:
            CameraError: the device stopped giving frames.
            ImageReadError: a folder image cannot be decoded (it is skipped).
        """
        ...

    def close(self) -> None:
        """Release the device; safe to call twice."""
        ...


V4L2_EXPOSURE_MANUAL = 1
"""``V4L2_CID_EXPOSURE_AUTO`` = manual; OpenCV's V4L2 backend passes the value through."""
READ_TIMEOUT_MS = 2000
"""How long a V4L2 read waits for a frame. OpenCV 4.11's V4L2 backend has no
``CAP_PROP_READ_TIMEOUT_MSEC`` (cap_v4l.cpp ``setProperty``: no case, no V4L2 control):
``tryIoctl`` waits ``OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT`` whole seconds (default 10),
read from the environment once per process, so it is set before the first capture."""
SELECT_TIMEOUT_ENV = "OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT"


@dataclass(frozen=True)
class _Manual:
    """One manual control through OpenCV: the automatic switch to turn off, then the value."""

    option: str
    label: str
    auto: tuple[int, float] | None  # (property, value that turns the automatic off)
    prop: int
    scale: float  # option value -> property value
    tolerance: float  # absolute, in option units


def _v4l2_manuals() -> tuple[_Manual, ...]:
    return (
        # exposure_absolute is in 100 µs steps
        _Manual(
            "exposure_us",
            "manual exposure",
            (cv2.CAP_PROP_AUTO_EXPOSURE, V4L2_EXPOSURE_MANUAL),
            cv2.CAP_PROP_EXPOSURE,
            0.01,
            100.0,
        ),
        _Manual("gain", "gain", None, cv2.CAP_PROP_GAIN, 1.0, 1.0),
        _Manual(
            "white_balance",
            "white balance temperature",
            (cv2.CAP_PROP_AUTO_WB, 0),
            cv2.CAP_PROP_WB_TEMPERATURE,
            1.0,
            50.0,
        ),
        _Manual(
            "lens_position",
            "manual focus",
            (cv2.CAP_PROP_AUTOFOCUS, 0),
            cv2.CAP_PROP_FOCUS,
            1.0,
            5.0,
        ),
    )


class CaptureSource:
    """A V4L2 device or a video file through ``cv2.VideoCapture``.

    A V4L2 camera is asked for ``fourcc`` (MJPG when unset and the camera has
    it), the size, the rate and the manual controls; what it accepted is read
    back, and a camera that does not take an option raises
    :class:`~vision.settings.CameraOptionError` naming it. The first frame is
    read on opening: a camera that opens but delivers nothing fails there.
    ``capture`` stands in for ``cv2.VideoCapture`` and ``v4l2_device`` for
    :class:`~vision.sources.v4l2.V4l2Device` (tests).
    """

    def __init__(
        self,
        config: CameraConfig,
        capture: Callable[..., Any] | None = None,
        v4l2_device: Callable[[str], V4l2Device] = V4l2Device,
    ) -> None:
        self.config = config
        make: Callable[..., Any] = capture or cv2.VideoCapture
        self.format = "BGR"
        self.delivered: dict[str, Any] = {}
        self._first: npt.NDArray[np.uint8] | None = None
        if config.kind is CameraSource.V4L2:
            dev = config.device
            self.name = dev
            # OpenCV's V4L2 backend opens devices by index: /dev/video2 -> 2 (a udev
            # symlink such as /dev/v4l/by-id/... is followed to its /dev/videoN first)
            number = os.path.realpath(dev).removeprefix("/dev/video")
            os.environ.setdefault(SELECT_TIMEOUT_ENV, str(max(1, READ_TIMEOUT_MS // 1000)))
            if capture is None and not os.path.exists(dev):  # (a stand-in is its own device)
                raise CameraError(
                    f"{dev}: cannot open it as a V4L2 camera: no such device (unplugged, or "
                    "under another name: v4l2-ctl --list-devices lists them)"
                )
            # a camera that fails to open is said once, by the CameraError below: not also
            # by OpenCV's own warnings on stderr at every retry
            with opencv_quiet():
                if number.isdigit():
                    self._cap: Any = make(int(number), cv2.CAP_V4L2)
                else:
                    self._cap = make(dev)
        else:
            self.name = config.path
            if not Path(config.path).is_file():
                raise CameraError(f"{config.path}: no such video file")
            self._cap = make(config.path)
        self.camera = self.name
        if not self._cap.isOpened():
            self._cap.release()
            if config.kind is CameraSource.V4L2:
                raise CameraError(
                    f"{self.name}: cannot open it as a V4L2 camera (busy, or not a capture "
                    "node: v4l2-ctl --list-devices lists them)"
                )
            raise CameraError(f"{self.name}: cannot open the camera or video")
        self._closed = False
        if config.kind is CameraSource.V4L2:
            try:
                self._setup_v4l2(v4l2_device)
            except BaseException:
                self.close()
                raise

    def _setup_v4l2(self, v4l2_device: Callable[[str], V4l2Device]) -> None:
        c, cap = self.config, self._cap
        with v4l2_device(c.device) as dev:
            card = dev.card()
            formats = dev.formats()
            self.camera = f"{c.device} ({card})" if card else c.device
            asked = c.fourcc or "MJPG"
            if c.fourcc is not None or not formats or asked in formats:
                cap.set(cv2.CAP_PROP_FOURCC, float(fourcc_int(asked)))
            cap.set(cv2.CAP_PROP_FRAME_WIDTH, c.width)
            cap.set(cv2.CAP_PROP_FRAME_HEIGHT, c.height)
            cap.set(cv2.CAP_PROP_FPS, c.fps)
            cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # read the newest frame after an idle pause
            got = fourcc_text(int(cap.get(cv2.CAP_PROP_FOURCC)))
            self.format = got or "?"
            if c.fourcc is not None and got != c.fourcc:
                raise CameraOptionError(
                    "fourcc",
                    self.camera,
                    f"is '{c.fourcc}', a format {self.camera} does not deliver (it gives "
                    f"'{got or '?'}'; its formats: {', '.join(formats) or 'unknown'})",
                )
            size = (int(cap.get(cv2.CAP_PROP_FRAME_WIDTH)), int(cap.get(cv2.CAP_PROP_FRAME_HEIGHT)))
            if size != (c.width, c.height):
                raise self._size_error(size, dev.sizes(got))
        controls = {m.option: self._set_manual(m) for m in _v4l2_manuals()}
        if c.colour_gains is not None:
            raise CameraOptionError(
                "colour_gains",
                self.camera,
                f"is for picamera2; {self.camera} is a V4L2 camera, whose white balance is "
                "white_balance (kelvin)",
            )
        self.delivered = {
            "size": size,
            "fps": float(cap.get(cv2.CAP_PROP_FPS)),
            "format": self.format,
            "controls": {k: v for k, v in controls.items() if v is not None},
        }
        ok, frame = cap.read()
        if not ok or frame is None:
            raise CameraError(
                f"{self.camera}: opened but gave no frame "
                f"(expected {c.width}x{c.height} {self.format} at {c.fps:g} fps)"
            )
        shape = (frame.shape[1], frame.shape[0])
        if shape != (c.width, c.height):
            with v4l2_device(c.device) as dev:
                raise self._size_error(shape, dev.sizes(self.format))
        self._first = frame

    def _size_error(self, got: tuple[int, int], sizes: list[tuple[int, int]]) -> CameraOptionError:
        c = self.config
        option = "width" if got[0] != c.width else "height"
        asked = c.width if option == "width" else c.height
        return CameraOptionError(
            option,
            self.camera,
            f"is {asked} ({c.width}x{c.height} asked), a size {self.camera} does not have: "
            f"it gives {got[0]}x{got[1]}; its {self.format} sizes: {sizes_text(sizes)}",
        )

    def _set_manual(self, m: _Manual) -> float | None:
        """Fix one manual control; the value read back, or None when the option is unset."""
        value = getattr(self.config, m.option)
        if value is None:
            return None
        cap = self._cap
        if m.auto is not None and not cap.set(m.auto[0], m.auto[1]):
            raise CameraOptionError(
                m.option,
                self.camera,
                f"is {value:g}, but {self.camera} has no {m.label} (its automatic cannot be "
                "turned off); leave the option out",
            )
        if not cap.set(m.prop, value * m.scale):
            raise CameraOptionError(
                m.option,
                self.camera,
                f"is {value:g}, but {self.camera} has no {m.label} control; leave the option out",
            )
        got = float(cap.get(m.prop)) / m.scale
        if abs(got - value) > max(m.tolerance, 0.02 * abs(value)):
            raise CameraOptionError(
                m.option,
                self.camera,
                f"is {value:g}, but {self.camera} took {got:g} (outside its range or steps)",
            )
        return got

    def read(self) -> npt.NDArray[np.uint8] | None:
        """The next frame; None at the end of a video file (unless looping).

        Raises:
            CameraError: the device gave no frame (unplugged, busy).
        """
        if self._closed:
            raise CameraError(f"{self.name}: source is closed")
        if self._first is not None:
            frame, self._first = self._first, None
            return frame
        ok, frame = self._cap.read()
        if ok and frame is not None:
            return np.asarray(frame, np.uint8)
        if self.config.kind is CameraSource.FILE:
            if self.config.loop:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, frame = self._cap.read()
                if ok:
                    return np.asarray(frame, np.uint8)
            return None
        raise CameraError(f"{self.camera}: the camera gave no frame")

    def close(self) -> None:
        """Release the capture; idempotent."""
        if not self._closed:
            self._closed = True
            self._first = None
            self._cap.release()


class FolderSource:
    """The images of a folder in name order, each repeated ``hold_frames`` times."""

    def __init__(self, config: CameraConfig) -> None:
        self.config = config
        self.name = config.path
        folder = Path(config.path)
        if not folder.is_dir():
            raise CameraError(f"{folder}: no such image folder")
        self.files = photos_here(folder)
        if not self.files:
            raise CameraError(f"{folder}: no images ({suffix_list()})")
        self._index = 0
        self._held = 0
        self._current: npt.NDArray[np.uint8] | None = None

    def read(self) -> npt.NDArray[np.uint8] | None:
        """The next frame.

        Raises:
            ImageReadError: the next image cannot be decoded (the source moves past it).
        """
        if self._current is not None and self._held < self.config.hold_frames:
            self._held += 1
            return self._current
        if self._index >= len(self.files):
            if not self.config.loop:
                return None
            self._index = 0
        path = self.files[self._index]
        self._index += 1
        if len(self.files) == 1 and self._current is not None:
            self._held = 1  # a one-picture folder is a still camera: no need to decode again
            return self._current
        self._current = None
        self._held = 0
        frame = read_image(path)
        size = (self.config.width, self.config.height)
        if (frame.shape[1], frame.shape[0]) != size and frame.shape[1] > self.config.width:
            scale = self.config.width / frame.shape[1]
            frame = cv2.resize(frame, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        self._current = frame
        self._held = 1
        return frame

    def close(self) -> None:
        """Nothing to release."""
        self._current = None


class SyntheticSource:
    """Rendered dice: a given script of throws, or random throws forever."""

    def __init__(
        self,
        config: CameraConfig,
        throws: Sequence[Throw] | None = None,
        faces: Sequence[Symbol] = ALL_SYMBOLS,
    ) -> None:
        """``faces``: the symbols on the table's dice (random throws show only those)."""
        self.config = config
        self.name = "synthetic"
        self._renderer = Renderer(
            Settings(width=config.width, height=config.height, hard=config.hard),
            seed=config.seed,
            faces=faces,
        )
        self._script = list(throws) if throws is not None else None
        self._frames: list[Frame] = []
        self._done = False
        # the last frames given, without their images: time, settled, dice truth (for tests)
        self.shown: deque[Frame] = deque(maxlen=2000)

    def _refill(self) -> None:
        if self._script is not None:
            if self._done:
                return
            self._frames = render_throws(self._script, self._renderer, fps=self.config.fps)
            self._done = True
            return
        faces = tuple(self._renderer.random_faces(self.config.dice))
        self._frames = render_throws([Throw(faces)], self._renderer, fps=self.config.fps)

    def read(self) -> npt.NDArray[np.uint8] | None:
        """The next rendered frame; None when a script is finished (unless looping)."""
        if not self._frames:
            self._refill()
            if not self._frames:
                if self.config.loop and self._script is not None:
                    self._done = False
                    self._refill()
                if not self._frames:
                    return None
        frame = self._frames.pop(0)
        self.shown.append(Frame(np.empty(0, np.uint8), frame.t, frame.dice, frame.settled))
        return frame.image

    def close(self) -> None:
        """Drop pending frames."""
        self._frames = []


def open_source(
    config: CameraConfig,
    throws: Sequence[Throw] | None = None,
    faces: Sequence[Symbol] = ALL_SYMBOLS,
) -> FrameSource:
    """Open the source ``config`` names (``throws`` scripts a synthetic source, whose
    dice bear ``faces``: the table's die, as its data describes it).

    Raises:
        CameraError: the device, file or folder cannot be opened.
    """
    if config.kind in (CameraSource.V4L2, CameraSource.FILE):
        return CaptureSource(config)
    if config.kind is CameraSource.PICAMERA2:
        return Picamera2Source(config)
    if config.kind is CameraSource.FOLDER:
        return FolderSource(config)
    return SyntheticSource(config, throws, faces)
