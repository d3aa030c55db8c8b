"""Camera sources behind one interface, chosen by a config (the pin-factory idea).

Kinds: ``v4l2`` (a V4L2 device through OpenCV: a Pi camera or a USB webcam),
``video`` (a video file), ``folder`` (a folder of images, each held for
``hold_frames`` frames as a still camera would give it) and ``synthetic``
(rendered dice, :mod:`vision.synth`). Every source has ``read()`` (the next
BGR frame, or None at the end of a file or folder) and an idempotent
``close()``; a device that fails raises :class:`~vision.errors.CameraError`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import cv2
import numpy as np

from controller.config import CameraConfig as CameraSection
from controller.core.symbols import ALL_SYMBOLS
from vision.dataset import IMAGE_SUFFIXES, read_image
from vision.errors import CameraError, ConfigError
from vision.synth import Frame, Renderer, Settings, Throw, render_throws

KINDS = ("v4l2", "video", "folder", "synthetic")

_SCHEMA = CameraSection()
"""The documented [camera] defaults: the one source of the device, size and rate defaults."""


@dataclass(frozen=True)
class CameraConfig:
    """Which camera and how. ``device`` for v4l2, ``path`` for video and folder.

    The vision package's typed settings, not a file format: the one TOML schema
    is ``[camera]`` in :mod:`controller.config`, mapped here by
    ``controller.daemon.devices.camera_config``; the defaults both have come
    from there. ``kind`` has no default: each caller says which source it means.

    Raises:
        ConfigError: a kind, size, rate or count out of range (on construction).
    """

    kind: str
    device: str = _SCHEMA.device_path
    path: str = ""
    width: int = _SCHEMA.width
    height: int = _SCHEMA.height
    fps: float = _SCHEMA.fps
    hold_frames: int = 6
    loop: bool = False
    seed: int = 0
    dice: int = 6  # synthetic: dice per random throw
    hard: bool = False  # synthetic: hard rendering settings

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(f"camera kind {self.kind!r}: expected one of {', '.join(KINDS)}")
        if self.kind in ("video", "folder") and not self.path:
            raise ConfigError(f"camera kind {self.kind!r} needs 'path'")
        if not (16 <= self.width <= 8192 and 16 <= self.height <= 8192):
            raise ConfigError(f"camera size {self.width}x{self.height} must be within 16..8192")
        if not 0 < self.fps <= 240:
            raise ConfigError(f"camera fps {self.fps} must be within 0..240")
        if self.hold_frames < 1:
            raise ConfigError(f"camera hold_frames {self.hold_frames} must be at least 1")
        if not 1 <= self.dice <= 6:
            raise ConfigError(f"camera dice {self.dice} must be within 1..6")


class FrameSource(Protocol):
    """What every camera source offers."""

    name: str

    def read(self) -> np.ndarray | None:
        """The next BGR frame, or None when a file or folder is finished.

        Raises:
            CameraError: the device stopped giving frames.
            ImageReadError: a folder image cannot be decoded (it is skipped).
        """
        ...

    def close(self) -> None:
        """Release the device; safe to call twice."""
        ...


class CaptureSource:
    """A V4L2 device or a video file through ``cv2.VideoCapture``."""

    def __init__(self, config: CameraConfig) -> None:
        self.config = config
        if config.kind == "v4l2":
            dev = config.device
            self.name = dev
            # OpenCV's V4L2 backend opens devices by index: /dev/video2 -> 2
            number = dev.removeprefix("/dev/video")
            if number.isdigit():
                self._cap = cv2.VideoCapture(int(number), cv2.CAP_V4L2)
            else:
                self._cap = cv2.VideoCapture(dev)
        else:
            self.name = config.path
            if not Path(config.path).is_file():
                raise CameraError(f"{config.path}: no such video file")
            self._cap = cv2.VideoCapture(config.path)
        if not self._cap.isOpened():
            self._cap.release()
            raise CameraError(f"{self.name}: cannot open the camera or video")
        if config.kind == "v4l2":
            self._cap.set(cv2.CAP_PROP_FRAME_WIDTH, config.width)
            self._cap.set(cv2.CAP_PROP_FRAME_HEIGHT, config.height)
            self._cap.set(cv2.CAP_PROP_FPS, config.fps)
            self._cap.set(cv2.CAP_PROP_BUFFERSIZE, 1)  # read the newest frame after an idle pause
        self._closed = False

    def read(self) -> np.ndarray | None:
        """The next frame; None at the end of a video file (unless looping).

        Raises:
            CameraError: the device gave no frame (unplugged, busy).
        """
        if self._closed:
            raise CameraError(f"{self.name}: source is closed")
        ok, frame = self._cap.read()
        if ok and frame is not None:
            return frame
        if self.config.kind == "video":
            if self.config.loop:
                self._cap.set(cv2.CAP_PROP_POS_FRAMES, 0)
                ok, frame = self._cap.read()
                if ok:
                    return frame
            return None
        raise CameraError(f"{self.name}: the camera gave no frame")

    def close(self) -> None:
        """Release the capture; idempotent."""
        if not self._closed:
            self._closed = True
            self._cap.release()


class FolderSource:
    """The images of a folder in name order, each repeated ``hold_frames`` times."""

    def __init__(self, config: CameraConfig) -> None:
        self.config = config
        self.name = config.path
        folder = Path(config.path)
        if not folder.is_dir():
            raise CameraError(f"{folder}: no such image folder")
        self.files = sorted(p for p in folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"{folder}: no images (jpg, png, bmp)")
        self._index = 0
        self._held = 0
        self._current: np.ndarray | None = None

    def read(self) -> np.ndarray | None:
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

    def __init__(self, config: CameraConfig, throws: Sequence[Throw] | None = None) -> None:
        self.config = config
        self.name = "synthetic"
        self._renderer = Renderer(
            Settings(width=config.width, height=config.height, hard=config.hard), seed=config.seed
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
        rng = self._renderer.rng
        faces = tuple(ALL_SYMBOLS[int(i)] for i in rng.integers(0, 6, self.config.dice))
        self._frames = render_throws([Throw(faces)], self._renderer, fps=self.config.fps)

    def read(self) -> np.ndarray | None:
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


def open_source(config: CameraConfig, throws: Sequence[Throw] | None = None) -> FrameSource:
    """Open the source ``config`` names (``throws`` scripts a synthetic source).

    Raises:
        CameraError: the device, file or folder cannot be opened.
    """
    if config.kind in ("v4l2", "video"):
        return CaptureSource(config)
    if config.kind == "folder":
        return FolderSource(config)
    return SyntheticSource(config, throws)
