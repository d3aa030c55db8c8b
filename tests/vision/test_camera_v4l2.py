"""The V4L2 source (a USB webcam through OpenCV): MJPG, sizes, manual controls read back.

``FakeCapture`` answers ``set``/``get``/``read`` the way OpenCV's V4L2 backend
(opencv-python 4.11, modules/videoio/src/cap_v4l.cpp) does over a UVC webcam's
driver (Linux 6.6, drivers/media/usb/uvc and v4l2-core), each behaviour cited
where it is played: a size it lacks snaps to one it has, a control it lacks
makes ``set`` return False, a value outside the control's range is clamped.
``FakeDevice`` answers the V4L2 questions (name, formats, sizes).
"""

from __future__ import annotations

import os
import struct
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.errors import CameraError
from vision.settings import CameraConfig, CameraOptionError, CameraSource
from vision.sources.delivery import delivery_text, measure_delivery
from vision.sources.source import READ_TIMEOUT_MS, CaptureSource
from vision.sources.v4l2 import (
    VIDIOC_ENUM_FMT,
    VIDIOC_ENUM_FRAMESIZES,
    VIDIOC_QUERYCAP,
    V4l2Device,
    fourcc_int,
    fourcc_text,
)

pytestmark = pytest.mark.timeout(20)

SIZES = {"MJPG": [(640, 480), (1280, 960), (1920, 1080)], "YUYV": [(640, 480), (1280, 960)]}
# property -> (min, max) of the controls this camera has
CONTROLS: dict[int, tuple[float, float]] = {
    cv2.CAP_PROP_AUTO_EXPOSURE: (1, 3),
    cv2.CAP_PROP_EXPOSURE: (3, 2047),  # exposure_absolute, 100 µs steps
    cv2.CAP_PROP_GAIN: (0, 255),
    cv2.CAP_PROP_AUTO_WB: (0, 1),
    cv2.CAP_PROP_WB_TEMPERATURE: (2000, 6500),
    cv2.CAP_PROP_AUTOFOCUS: (0, 1),
    cv2.CAP_PROP_FOCUS: (0, 250),
}


class FakeCapture:
    """One camera behind ``cv2.VideoCapture(index, cv2.CAP_V4L2)``."""

    def __init__(
        self,
        sizes: dict[str, list[tuple[int, int]]] | None = None,
        controls: dict[int, tuple[float, float]] | None = None,
        frames: int | None = None,
    ) -> None:
        self.sizes = SIZES if sizes is None else sizes
        self.controls = dict(CONTROLS if controls is None else controls)
        self.frames = frames  # frames it gives before going silent; None: forever
        self.opened_with: tuple[Any, ...] = ()
        self.fourcc = next(iter(self.sizes)) if "YUYV" not in self.sizes else "YUYV"
        self.size = self.sizes[self.fourcc][0]
        self.values: dict[int, float] = {p: lo for p, (lo, _) in self.controls.items()}
        self.sets: list[tuple[int, float]] = []
        self.size_set = [0, 0]  # width_set, height_set: a size asked for, not yet both given
        self.select_timeout_s: int | None = None
        self.waited_s: list[int] = []  # how long each read of a silent camera waited
        self.released = False

    def __call__(self, *args: Any) -> FakeCapture:
        self.opened_with = args
        return self

    def isOpened(self) -> bool:  # noqa: N802 - OpenCV's name
        return True

    def release(self) -> None:
        self.released = True

    def _snap(self, width: int, height: int) -> None:
        # VIDIOC_S_FMT never refuses a size: uvc_v4l2_try_format (uvc_v4l2.c) takes the
        # frame size with the least w*h + rw*rh - 2*min(w, rw)*min(h, rh)
        have = self.sizes[self.fourcc]

        def distance(size: tuple[int, int]) -> int:
            w, h = size
            return w * h + width * height - 2 * min(w, width) * min(h, height)

        self.size = min(have, key=distance)

    def set(self, prop: int, value: float) -> bool:
        self.sets.append((prop, value))
        # CvCaptureCAM_V4L::setProperty: a FOURCC is kept only when v4l2_reset's
        # VIDIOC_S_FMT hands back that pixel format (else the old one is restored, False)
        if prop == cv2.CAP_PROP_FOURCC:
            text = fourcc_text(int(value))
            if text in self.sizes:
                self.fourcc = text
                self._snap(*self.size)
            return text in self.sizes
        # setProperty keeps a width (or height) in width_set (height_set) and asks the
        # driver for a size (setVideoSize) once both are given, then forgets both
        if prop in (cv2.CAP_PROP_FRAME_WIDTH, cv2.CAP_PROP_FRAME_HEIGHT):
            self.size_set[prop == cv2.CAP_PROP_FRAME_HEIGHT] = round(value)
            if all(v > 0 for v in self.size_set):
                self._snap(*self.size_set)
                self.size_set = [0, 0]
            return True
        if prop in (cv2.CAP_PROP_FPS, cv2.CAP_PROP_BUFFERSIZE):
            return True
        # CAP_PROP_READ_TIMEOUT_MSEC has no case in setProperty and no V4L2 control
        # (capPropertyToV4L2: -1), so it falls to the line below: False, and ignored
        # controlInfo's VIDIOC_QUERYCTRL fails for a control the camera lacks: set is False;
        # VIDIOC_S_CTRL's integer values are clamped to the range (v4l2-ctrls-core.c,
        # std_validate -> ROUND_TO_RANGE), not refused
        if prop not in self.controls:
            return False
        lo, hi = self.controls[prop]
        self.values[prop] = float(round(min(max(value, lo), hi)))
        return True

    def get(self, prop: int) -> float:
        if prop == cv2.CAP_PROP_FOURCC:
            return float(fourcc_int(self.fourcc))
        if prop == cv2.CAP_PROP_FRAME_WIDTH:
            return float(self.size[0])
        if prop == cv2.CAP_PROP_FRAME_HEIGHT:
            return float(self.size[1])
        if prop == cv2.CAP_PROP_FPS:
            return 30.0
        return self.values.get(prop, -1.0)  # getProperty: -1 for a control it lacks

    def read(self) -> tuple[bool, NDArray[Any] | None]:
        # grabFrame -> read_frame_v4l2 -> tryIoctl(VIDIOC_DQBUF): on a silent camera
        # select() waits OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT seconds (default 10, read once
        # into a static), then read() returns (False, None); OpenCV does not raise
        if self.frames is not None:
            if self.frames <= 0:
                if self.select_timeout_s is None:
                    env = os.environ.get("OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT", "10")
                    self.select_timeout_s = int(env)
                self.waited_s.append(self.select_timeout_s)
                return False, None
            self.frames -= 1
        w, h = self.size
        return True, np.full((h, w, 3), 90, np.uint8)


class FakeDevice(V4l2Device):
    """The V4L2 answers for the same camera."""

    def __init__(self, capture: FakeCapture, card: str = "Fake Webcam") -> None:
        self._capture = capture
        self._card = card
        super().__init__("/dev/video0", fd=-1)

    def card(self) -> str:
        return self._card

    def formats(self) -> list[str]:
        return list(self._capture.sizes)

    def sizes(self, fourcc: str) -> list[tuple[int, int]]:
        return list(self._capture.sizes.get(fourcc, []))


def webcam(**kw: Any) -> CameraConfig:
    settings: dict[str, Any] = {"device": "/dev/video0", "width": 1280, "height": 960, **kw}
    return CameraConfig(kind=CameraSource.V4L2, **settings)


def open_with(capture: FakeCapture, config: CameraConfig) -> CaptureSource:
    return CaptureSource(config, capture=capture, v4l2_device=lambda _path: FakeDevice(capture))


def test_mjpg_is_asked_and_what_the_camera_took_is_read_back() -> None:
    capture = FakeCapture()
    src = open_with(capture, webcam())
    try:
        assert capture.opened_with == (0, cv2.CAP_V4L2)
        props = [p for p, _ in capture.sets]
        # the format before the size: a USB 2 webcam has 1280x960 at 30 fps only in MJPG
        assert props.index(cv2.CAP_PROP_FOURCC) < props.index(cv2.CAP_PROP_FRAME_WIDTH)
        assert src.format == "MJPG" and src.camera == "/dev/video0 (Fake Webcam)"
        assert src.delivered == {
            "size": (1280, 960),
            "fps": 30.0,
            "format": "MJPG",
            "controls": {},
        }
        frame = src.read()  # the first frame, read while opening
        assert frame is not None and frame.shape == (960, 1280, 3)
        info = measure_delivery(src, frames=3)
        assert info["size"] == (1280, 960) and info["frames"] == 3
        assert delivery_text(info, webcam()).startswith(
            "camera /dev/video0 (Fake Webcam) delivers 1280x960 MJPG at "
        )
    finally:
        src.close()
        src.close()
    assert capture.released


def test_a_camera_without_mjpg_keeps_its_own_format_unless_asked() -> None:
    capture = FakeCapture(sizes={"YUYV": [(640, 480), (1280, 960)]})
    src = open_with(capture, webcam())
    try:
        assert src.format == "YUYV"
        assert cv2.CAP_PROP_FOURCC not in [p for p, _ in capture.sets]
    finally:
        src.close()
    with pytest.raises(CameraOptionError) as info:
        open_with(FakeCapture(sizes={"YUYV": [(1280, 960)]}), webcam(fourcc="MJPG"))
    assert info.value.option == "fourcc"
    assert str(info.value) == (
        "option 'fourcc' in section 'camera' is 'MJPG', a format /dev/video0 (Fake Webcam) does "
        "not deliver (it gives 'YUYV'; its formats: YUYV)"
    )


def test_a_size_the_camera_lacks_names_the_option_and_its_sizes() -> None:
    capture = FakeCapture()
    with pytest.raises(CameraOptionError) as info:
        open_with(capture, webcam(width=1600, height=1200))
    assert info.value.option == "width"
    assert str(info.value) == (
        "option 'width' in section 'camera' is 1600 (1600x1200 asked), a size /dev/video0 (Fake "
        "Webcam) does not have: it gives 1920x1080; its MJPG sizes: 640x480, 1280x960, 1920x1080"
    )
    assert capture.released  # the camera is let go for the next try


def test_manual_controls_switch_the_automatic_off_and_are_read_back() -> None:
    capture = FakeCapture()
    config = webcam(exposure_us=10000, gain=40, white_balance=4500, lens_position=30)
    src = open_with(capture, config)
    try:
        sets = capture.sets
        assert (cv2.CAP_PROP_AUTO_EXPOSURE, 1) in sets  # V4L2_EXPOSURE_MANUAL
        assert (cv2.CAP_PROP_EXPOSURE, 100) in sets  # 10000 µs in 100 µs steps
        assert (cv2.CAP_PROP_AUTO_WB, 0) in sets and (cv2.CAP_PROP_WB_TEMPERATURE, 4500) in sets
        assert (cv2.CAP_PROP_AUTOFOCUS, 0) in sets and (cv2.CAP_PROP_FOCUS, 30) in sets
        assert (cv2.CAP_PROP_GAIN, 40) in sets
        assert src.delivered["controls"] == {
            "exposure_us": 10000,
            "gain": 40,
            "white_balance": 4500,
            "lens_position": 30,
        }
        text = delivery_text(measure_delivery(src, frames=2), config)
        assert text.endswith("; exposure_us 10000, gain 40, white_balance 4500, lens_position 30")
    finally:
        src.close()


@pytest.mark.parametrize(
    ("kw", "missing", "text"),
    [
        (
            {"lens_position": 30},
            cv2.CAP_PROP_AUTOFOCUS,
            "is 30, but /dev/video0 (Fake Webcam) has no manual focus (its automatic cannot be "
            "turned off); leave the option out",
        ),
        (
            {"lens_position": 30},
            cv2.CAP_PROP_FOCUS,
            "is 30, but /dev/video0 (Fake Webcam) has no manual focus control; leave the option out",
        ),
        (
            {"white_balance": 4500},
            cv2.CAP_PROP_WB_TEMPERATURE,
            "is 4500, but /dev/video0 (Fake Webcam) has no white balance temperature control; "
            "leave the option out",
        ),
        (
            {"gain": 400},
            None,
            "is 400, but /dev/video0 (Fake Webcam) took 255 (outside its range or steps)",
        ),
        (
            {"exposure_us": 100},
            None,
            "is 100, but /dev/video0 (Fake Webcam) took 300 (outside its range or steps)",
        ),
        (
            {"colour_gains": (1.5, 1.5)},
            None,
            "is for picamera2; /dev/video0 (Fake Webcam) is a V4L2 camera, whose white balance is "
            "white_balance (kelvin)",
        ),
    ],
)
def test_a_control_the_camera_lacks_or_does_not_take(
    kw: dict[str, Any], missing: int | None, text: str
) -> None:
    controls = {p: r for p, r in CONTROLS.items() if p != missing}
    capture = FakeCapture(controls=controls)
    with pytest.raises(CameraOptionError) as info:
        open_with(capture, webcam(**kw))
    option = next(iter(kw))
    assert info.value.option == option
    assert str(info.value) == f"option '{option}' in section 'camera' {text}"
    assert capture.released


def test_a_camera_that_opens_but_delivers_nothing() -> None:
    capture = FakeCapture(frames=0)
    with pytest.raises(CameraError) as info:
        open_with(capture, webcam())
    assert str(info.value) == (
        "/dev/video0 (Fake Webcam): opened but gave no frame (expected 1280x960 MJPG at 30 fps)"
    )
    capture = FakeCapture(frames=2)
    src = open_with(capture, webcam())
    try:
        src.read()
        src.read()
        with pytest.raises(CameraError, match=r"^/dev/video0 \(Fake Webcam\): the camera gave no"):
            src.read()
    finally:
        src.close()


def test_a_silent_camera_is_given_up_after_two_seconds(monkeypatch: pytest.MonkeyPatch) -> None:
    # OpenCV 4.11's V4L2 backend ignores CAP_PROP_READ_TIMEOUT_MSEC: its reads wait
    # OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT seconds, 10 unless the environment says otherwise
    monkeypatch.delenv("OPENCV_VIDEOIO_V4L_SELECT_TIMEOUT", raising=False)
    capture = FakeCapture(frames=1)
    src = open_with(capture, webcam())
    try:
        src.read()  # the frame read while opening
        with pytest.raises(CameraError, match="the camera gave no frame"):
            src.read()
    finally:
        src.close()
    assert capture.waited_s == [READ_TIMEOUT_MS // 1000] == [2]


def test_v4l2_questions_through_the_ioctls() -> None:
    """VIDIOC_QUERYCAP, ENUM_FMT and ENUM_FRAMESIZES packed as linux/videodev2.h has them."""
    assert (VIDIOC_QUERYCAP, VIDIOC_ENUM_FMT, VIDIOC_ENUM_FRAMESIZES) == (
        0x80685600,
        0xC0405602,
        0xC02C564A,
    )
    formats = ["MJPG", "YUYV"]
    sizes = {"MJPG": [(1280, 960), (640, 480)], "YUYV": []}

    def ioctl(fd: int, request: int, buf: bytearray) -> int:
        assert fd == 7
        if request == VIDIOC_QUERYCAP:
            buf[:] = struct.pack(
                "=16s32s32sIII3I", b"uvcvideo", b"HD Webcam C615", b"usb", 0, 0, 0, 0, 0, 0
            )
        elif request == VIDIOC_ENUM_FMT:
            index = struct.unpack_from("=I", buf)[0]
            if index >= len(formats):
                raise OSError(22, "Invalid argument")
            struct.pack_into("=I", buf, 44, fourcc_int(formats[index]))
        elif request == VIDIOC_ENUM_FRAMESIZES:
            index, code = struct.unpack_from("=II", buf)
            found = sizes[fourcc_text(code)]
            if index >= len(found):
                raise OSError(22, "Invalid argument")
            struct.pack_into("=III2I", buf, 0, index, code, 1, *found[index])
        return 0

    device = V4l2Device("/dev/video0", ioctl=ioctl, fd=7)
    assert device.card() == "HD Webcam C615"
    assert device.formats() == formats
    assert device.sizes("MJPG") == [(640, 480), (1280, 960)]
    assert device.sizes("YUYV") == []
    assert V4l2Device("/dev/nothing-here").formats() == []  # no device: empty, never raises


def test_a_udev_symlink_opens_its_video_node_by_index(tmp_path: Path) -> None:
    link = tmp_path / "usb-Webcam-video-index0"
    link.symlink_to("/dev/video3")
    capture = FakeCapture()
    open_with(capture, webcam(device=str(link))).close()
    assert capture.opened_with == (3, cv2.CAP_V4L2)


class _Unlisted(FakeDevice):
    """The same camera, whose formats the ioctls cannot list (the listing answers empty)."""

    def formats(self) -> list[str]:
        return []


def test_a_camera_whose_formats_cannot_be_listed_is_still_asked_for_mjpg() -> None:
    """Unset, the format is MJPG whenever the camera may have it: a listing that fails
    must not leave a webcam in YUYV, where it lacks 1280x960 at 30 fps."""
    capture = FakeCapture()
    src = CaptureSource(webcam(), capture=capture, v4l2_device=lambda _path: _Unlisted(capture))
    try:
        assert (cv2.CAP_PROP_FOURCC, float(fourcc_int("MJPG"))) in capture.sets
        assert src.format == "MJPG"
    finally:
        src.close()


class _SteppedExposure(FakeCapture):
    """A webcam whose exposure takes only some values (in 100 µs units), as some UVC
    firmwares do: a value between two is rounded to the nearer."""

    STEPS = (78, 156, 312, 625)

    def set(self, prop: int, value: float) -> bool:
        if prop == cv2.CAP_PROP_EXPOSURE:
            value = min(self.STEPS, key=lambda s: abs(s - value))
        return super().set(prop, value)


def test_a_control_taken_within_two_percent_is_accepted_as_the_camera_took_it() -> None:
    """15800 µs asked, 15600 taken (the camera's nearest step, 1.3 % off): the camera opens
    and what it took is what is reported."""
    capture = _SteppedExposure()
    src = open_with(capture, webcam(exposure_us=15800))
    try:
        assert src.delivered["controls"] == {"exposure_us": 15600}
    finally:
        src.close()


def test_an_unplugged_camera_is_said_to_be_missing_not_busy() -> None:
    """A device node that is not there is named as missing (unplugged, or renamed), not
    as a camera another program holds."""
    with pytest.raises(CameraError) as info:
        CaptureSource(webcam(device="/dev/video99"))
    assert str(info.value).startswith(
        "/dev/video99: cannot open it as a V4L2 camera: no such device (unplugged"
    )
