"""The ``[camera]`` config section: its schema, its limits, and what a frame source takes.

:class:`CameraSettings` is the section as the owner writes it in
``/etc/toptable/config.toml`` (read by :func:`parse_camera`, composed into the
whole config by :mod:`controller.config`). :class:`CameraConfig` is what
:func:`vision.sources.source.open_source` takes: the section's source, size and rate
plus what the caller decides (the synthetic seed, whether a recording loops,
how long a folder image is held); :meth:`CameraSettings.source_config` is the
one mapping from one to the other. The limits below are the only ones: the
file's checks and the source's checks both use them. What a live camera cannot
do (a size, a rate, a control it lacks) is known only when it opens: the
sources raise :class:`CameraOptionError`, naming the option and the camera.

Imports only :mod:`controller.core` and this package.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

from controller.core.config_schema import (
    InvalidOptionError,
    Section,
    choice,
    device_path,
    integer,
    number,
    path_in,
    shown,
)
from vision.errors import CameraError, ConfigError


class CameraSource(StrEnum):
    """Where frames come from: a V4L2 device, picamera2, a video file, a folder, or rendered."""

    V4L2 = "v4l2"
    PICAMERA2 = "picamera2"
    FILE = "file"
    FOLDER = "folder"
    SYNTHETIC = "synthetic"


PATH_SOURCES = (CameraSource.FILE, CameraSource.FOLDER)
"""The sources that read ``path`` (and need it)."""
LIVE_SOURCES = (CameraSource.V4L2, CameraSource.PICAMERA2)
"""The cameras that see the tray as it lies now (the others replay or render frames)."""

WIDTH = (160, 4096)
"""Capture width in pixels (the camera's smallest useful and largest V4L2 sizes)."""
HEIGHT = (120, 4096)
"""Capture height in pixels."""
FPS = (1.0, 120.0)
"""Frames per second asked of the camera."""
DEVICE_INDEX = (0, 63)
"""``device = N`` means ``/dev/videoN``."""
CONFIDENCE = (0.0, 1.0)
"""A face read below ``confidence`` asks the table to confirm it."""
DICE = (1, 6)
"""Dice per random synthetic throw."""
CAMERA_NUM = (0, 7)
"""picamera2: which libcamera camera (0 is the first; a Pi 5 has two camera ports)."""
EXPOSURE_US = (1, 1_000_000)
"""Fixed exposure time in microseconds (never longer than one frame at ``fps``)."""
GAIN = (0.0, 1000.0)
"""Fixed gain: picamera2's analogue gain (1.0 = none), or a V4L2 camera's own gain units.
picamera2: a fixed ``exposure_us`` fixes the gain too (libcamera's automatic gain would
otherwise move it with the light): at ``gain`` when given, else at the camera's lowest
analogue gain (1.0; a Camera Module 3's is 1.12), which ``config check`` shows."""
WHITE_BALANCE = (1000, 12000)
"""Fixed white balance as a colour temperature in kelvin."""
COLOUR_GAIN = (0.0, 32.0)
"""picamera2: each of the fixed red and blue colour gains, above 0 and at most 32
(libcamera's ColourGains range is 0..32, but its Raspberry Pi IPA, ``ipa_base.cpp``
``IpaBase::applyControls`` ``COLOUR_GAINS``, takes a gain of 0 as "back to automatic
white balance"): the lower bound is exclusive."""
COLOUR_GAIN_ZERO = (
    "a colour gain of 0 is libcamera's automatic white balance (leave colour_gains out for that)"
)
"""Why a colour gain of 0 (or below) is refused, after "above 0"."""
LENS_POSITION = (0.0, 1023.0)
"""Fixed focus: picamera2 dioptres (1 / distance in metres), or a V4L2 camera's focus units."""

MANUAL_OPTIONS = ("exposure_us", "gain", "white_balance", "colour_gains", "lens_position")
"""The options that fix a camera control (unset: the camera's automatic one)."""


@dataclass(frozen=True)
class CameraSettings:
    """[camera]: the camera over the dice tray."""

    source: CameraSource = CameraSource.V4L2
    device: str | int = "/dev/video0"  # a path, or an index N for /dev/videoN
    path: Path | None = None  # the video file or image folder (file/folder sources)
    width: int = 1280
    height: int = 960
    fps: float = 30.0
    model: Path | None = None  # None: the bundled face model
    confidence: float = 0.6
    camera_num: int = 0  # picamera2: which camera
    fourcc: str | None = None  # v4l2: pixel format asked; None: MJPG if the camera has it
    exposure_us: int | None = None  # None: automatic exposure
    gain: float | None = None  # None: automatic (picamera2: lowest when exposure_us is fixed)
    white_balance: int | None = None  # kelvin; None: automatic white balance
    colour_gains: tuple[float, float] | None = None  # picamera2: fixed (red, blue) gains
    lens_position: float | None = None  # None: the camera's autofocus (if it has one)

    @property
    def device_path(self) -> str:
        """The device as a path: an index N means ``/dev/videoN``."""
        if isinstance(self.device, int):
            return f"/dev/video{self.device}"
        return self.device

    def source_config(self, seed: int = 0) -> CameraConfig:
        """What :func:`vision.sources.source.open_source` takes for this section.

        A recording (file or folder) replays from the start when it ends.
        """
        return CameraConfig(
            kind=self.source,
            device=self.device_path,
            path=str(self.path) if self.path is not None else "",
            width=self.width,
            height=self.height,
            fps=self.fps,
            loop=self.source in PATH_SOURCES,
            seed=seed,
            camera_num=self.camera_num,
            fourcc=self.fourcc,
            exposure_us=self.exposure_us,
            gain=self.gain,
            white_balance=self.white_balance,
            colour_gains=self.colour_gains,
            lens_position=self.lens_position,
        )


_DEFAULTS = CameraSettings()


@dataclass(frozen=True)
class CameraConfig:
    """One frame source: which camera and how. ``device`` for v4l2, ``path`` for file and folder.

    ``kind`` has no default: each caller says which source it means (a string
    such as ``"folder"`` is taken as its :class:`CameraSource`). The device,
    size and rate defaults are the ``[camera]`` section's. ``camera_num`` is
    for picamera2, ``fourcc`` for v4l2; the manual controls (:attr:`manual`)
    for both live sources, None leaving the camera's automatic.

    Raises:
        ConfigError: a kind, size, rate or count out of range (on construction).
    """

    kind: CameraSource
    device: str = _DEFAULTS.device_path
    path: str = ""
    width: int = _DEFAULTS.width
    height: int = _DEFAULTS.height
    fps: float = _DEFAULTS.fps
    hold_frames: int = 6
    loop: bool = False
    seed: int = 0
    dice: int = 6  # synthetic: dice per random throw
    hard: bool = False  # synthetic: hard rendering settings
    camera_num: int = 0  # picamera2: which camera
    fourcc: str | None = None  # v4l2: None asks MJPG and takes what the camera gives
    exposure_us: int | None = None  # the manual controls: None leaves the camera's automatic
    gain: float | None = None
    white_balance: int | None = None
    colour_gains: tuple[float, float] | None = None
    lens_position: float | None = None

    def __post_init__(self) -> None:
        kinds = ", ".join(CameraSource)
        try:
            object.__setattr__(self, "kind", CameraSource(self.kind))
        except ValueError:
            raise ConfigError(f"camera kind {self.kind!r}: expected one of {kinds}") from None
        if self.kind in PATH_SOURCES and not self.path:
            raise ConfigError(f"camera kind {self.kind.value!r} needs 'path'")
        if not (WIDTH[0] <= self.width <= WIDTH[1] and HEIGHT[0] <= self.height <= HEIGHT[1]):
            raise ConfigError(
                f"camera size {self.width}x{self.height} must be within "
                f"{WIDTH[0]}..{WIDTH[1]} x {HEIGHT[0]}..{HEIGHT[1]}"
            )
        if not FPS[0] <= self.fps <= FPS[1]:
            raise ConfigError(f"camera fps {self.fps} must be within {FPS[0]:g}..{FPS[1]:g}")
        if self.hold_frames < 1:
            raise ConfigError(f"camera hold_frames {self.hold_frames} must be at least 1")
        if not DICE[0] <= self.dice <= DICE[1]:
            raise ConfigError(f"camera dice {self.dice} must be within {DICE[0]}..{DICE[1]}")
        if not CAMERA_NUM[0] <= self.camera_num <= CAMERA_NUM[1]:
            raise ConfigError(
                f"camera camera_num {self.camera_num} must be within {CAMERA_NUM[0]}..{CAMERA_NUM[1]}"
            )
        if self.fourcc is not None:
            try:
                fourcc_code(self.fourcc)
            except InvalidOptionError as exc:
                raise ConfigError(f"camera fourcc {exc}") from None
        for name, value, (lo, hi) in (
            ("exposure_us", self.exposure_us, EXPOSURE_US),
            ("gain", self.gain, GAIN),
            ("white_balance", self.white_balance, WHITE_BALANCE),
            ("lens_position", self.lens_position, LENS_POSITION),
        ):
            if value is not None and not lo <= value <= hi:
                raise ConfigError(f"camera {name} {value:g} must be within {lo:g}..{hi:g}")
        gains = self.colour_gains
        if gains is not None and (
            len(gains) != 2 or not all(COLOUR_GAIN[0] < g <= COLOUR_GAIN[1] for g in gains)
        ):
            raise ConfigError(
                f"camera colour_gains {self.colour_gains} must be two gains (red, blue), "
                f"each above {COLOUR_GAIN[0]:g} and at most {COLOUR_GAIN[1]:g}: {COLOUR_GAIN_ZERO}"
            )
        too_long = exposure_too_long(self.exposure_us, self.fps)
        if too_long:
            raise ConfigError(f"camera exposure_us {too_long}")

    @property
    def manual(self) -> dict[str, object]:
        """The manual controls asked (option name -> value), in option order."""
        values = {name: getattr(self, name) for name in MANUAL_OPTIONS}
        return {k: v for k, v in values.items() if v is not None}


class CameraOptionError(CameraError):
    """The camera cannot do what one ``[camera]`` option asks (a size, a rate, a control).

    ``option`` names the option, ``camera`` the camera, ``detail`` the rest of
    the one-line message after "option 'x' in section 'camera'": what was asked
    and what the camera (named in it) has.
    """

    def __init__(self, option: str, camera: str, detail: str) -> None:
        self.option = option
        self.camera = camera
        self.detail = detail
        super().__init__(f"option '{option}' in section 'camera' {detail}")


def frame_time_us(fps: float) -> int:
    """One frame's duration in whole microseconds at ``fps``."""
    return round(1_000_000 / fps)


def exposure_too_long(exposure_us: int | None, fps: float) -> str:
    """Why a fixed exposure does not fit in one frame at ``fps`` ('' when it does)."""
    if exposure_us is None or exposure_us <= frame_time_us(fps):
        return ""
    return (
        f"is {exposure_us} µs, longer than one frame at fps = {fps:g} "
        f"({frame_time_us(fps)} µs): shorten it or lower fps"
    )


def fourcc_code(value: Any) -> str:
    """A V4L2 pixel format as four characters (``"MJPG"``, ``"YUYV"``), upper-cased.

    Raises:
        InvalidOptionError: not a string of four printable ASCII characters.
    """
    if not isinstance(value, str) or len(value) != 4 or not value.isascii():
        raise InvalidOptionError(
            f"must be a four-character pixel format such as 'MJPG' or 'YUYV' (got {shown(value)})"
        )
    if not value.isprintable():
        raise InvalidOptionError(f"must be printable characters (got {value!r})")
    return value.upper()


def _colour_gains(value: Any) -> tuple[float, float]:
    if not isinstance(value, list) or len(value) != 2:
        raise InvalidOptionError(
            f"must be two gains [red, blue] such as [1.8, 1.6] (got {shown(value)})"
        )
    red, blue = (number(-math.inf, COLOUR_GAIN[1])(v) for v in value)
    if red <= COLOUR_GAIN[0] or blue <= COLOUR_GAIN[0]:
        raise InvalidOptionError(
            f"must have each gain above {COLOUR_GAIN[0]:g} (got {shown(value)}): {COLOUR_GAIN_ZERO}"
        )
    return (red, blue)


def _camera_device(value: Any) -> str | int:
    if isinstance(value, int) and not isinstance(value, bool):
        return integer(*DEVICE_INDEX)(value)
    if isinstance(value, str):
        return device_path(value)
    raise InvalidOptionError(
        f"must be a device path such as '/dev/video0' or an index "
        f"{DEVICE_INDEX[0]}..{DEVICE_INDEX[1]} (got {shown(value)})"
    )


def parse_camera(s: Section) -> CameraSettings:
    """The [camera] section; its problems are noted in ``s``."""
    d = _DEFAULTS
    cfg = CameraSettings(
        source=s.get("source", d.source, choice(CameraSource)),
        device=s.get("device", d.device, _camera_device),
        path=s.get("path", d.path, path_in(s.base_dir)),
        width=s.get("width", d.width, integer(*WIDTH)),
        height=s.get("height", d.height, integer(*HEIGHT)),
        fps=s.get("fps", d.fps, number(*FPS)),
        model=s.get("model", d.model, path_in(s.base_dir)),
        confidence=s.get("confidence", d.confidence, number(*CONFIDENCE)),
        camera_num=s.get("camera_num", d.camera_num, integer(*CAMERA_NUM)),
        fourcc=s.get("fourcc", d.fourcc, fourcc_code),
        exposure_us=s.get("exposure_us", d.exposure_us, integer(*EXPOSURE_US)),
        gain=s.get("gain", d.gain, number(*GAIN)),
        white_balance=s.get("white_balance", d.white_balance, integer(*WHITE_BALANCE)),
        colour_gains=s.get("colour_gains", d.colour_gains, _colour_gains),
        lens_position=s.get("lens_position", d.lens_position, number(*LENS_POSITION)),
    )
    if cfg.source in PATH_SOURCES and cfg.path is None:
        s.problem("path", f"is required when source is '{cfg.source}'")
    too_long = exposure_too_long(cfg.exposure_us, cfg.fps)
    if too_long:
        s.problem("exposure_us", too_long)
        cfg = replace(cfg, exposure_us=None)
    if cfg.source is CameraSource.V4L2:
        if cfg.camera_num != d.camera_num:
            s.problem("camera_num", "is for source 'picamera2'; a V4L2 camera is chosen by device")
            cfg = replace(cfg, camera_num=d.camera_num)
        if cfg.colour_gains is not None:
            s.problem(
                "colour_gains",
                "is for source 'picamera2'; a V4L2 camera's white balance is white_balance "
                "(a colour temperature in kelvin)",
            )
            cfg = replace(cfg, colour_gains=None)
    if cfg.white_balance is not None and cfg.colour_gains is not None:
        s.problem("white_balance", "and colour_gains both fix white balance: keep one")
        cfg = replace(cfg, white_balance=None)
    return cfg
