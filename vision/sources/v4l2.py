"""What a V4L2 camera says it is and offers, asked through the kernel's ioctls.

OpenCV opens a V4L2 device and sets sizes and controls, but cannot list what
the camera has. These three questions fill that gap for the error messages
and ``toptable config check``: the camera's name (VIDIOC_QUERYCAP), its pixel
formats (VIDIOC_ENUM_FMT) and the frame sizes of one format
(VIDIOC_ENUM_FRAMESIZES). The structs and request numbers are those of
``linux/videodev2.h``. Every function answers empty rather than raise: a
listing is a help for a message, never a reason to fail.

The ioctl is a parameter, so tests answer for a camera that is not there.
"""

from __future__ import annotations

import fcntl
import os
import struct
from collections.abc import Callable

Ioctl = Callable[[int, int, bytearray], object]
"""``fcntl.ioctl(fd, request, buffer)`` with a mutable buffer the kernel fills."""


def _iowr(nr: int, size: int, read_only: bool = False) -> int:
    """A ``_IOR``/``_IOWR('V', nr, size)`` request number."""
    direction = 2 if read_only else 3  # _IOC_READ, _IOC_READ | _IOC_WRITE
    return (direction << 30) | (size << 16) | (ord("V") << 8) | nr


# struct v4l2_capability: driver[16] card[32] bus_info[32] version capabilities device_caps
# reserved[3]
_CAPABILITY = struct.Struct("=16s32s32sIII3I")
# struct v4l2_fmtdesc: index type flags description[32] pixelformat mbus_code reserved[3]
_FMTDESC = struct.Struct("=III32sII3I")
# struct v4l2_frmsizeenum: index pixel_format type, a union of discrete (w, h) or stepwise
# (min_w, max_w, step_w, min_h, max_h, step_h), reserved[2]
_FRMSIZE = struct.Struct("=III6I2I")

VIDIOC_QUERYCAP = _iowr(0, _CAPABILITY.size, read_only=True)
VIDIOC_ENUM_FMT = _iowr(2, _FMTDESC.size)
VIDIOC_ENUM_FRAMESIZES = _iowr(74, _FRMSIZE.size)

BUF_TYPE_VIDEO_CAPTURE = 1
FRMSIZE_TYPE_DISCRETE = 1
_MAX_ENTRIES = 64


def fourcc_text(code: int) -> str:
    """A pixel format code as its four characters (``0x47504A4D`` -> ``"MJPG"``)."""
    return "".join(chr((code >> (8 * i)) & 0xFF) for i in range(4)).strip("\x00 ")


def fourcc_int(text: str) -> int:
    """Four characters as a pixel format code."""
    chars = text.ljust(4)[:4]
    return sum(ord(c) << (8 * i) for i, c in enumerate(chars))


def _cstr(raw: bytes) -> str:
    return raw.split(b"\x00", 1)[0].decode("utf-8", "replace").strip()


class V4l2Device:
    """A V4L2 device node opened read-only for questions; use as a context manager."""

    def __init__(self, path: str, ioctl: Ioctl | None = None, fd: int | None = None) -> None:
        self.path = path
        self._ioctl: Ioctl = ioctl or fcntl.ioctl
        self._own = fd is None
        self._fd = -1
        if fd is not None:
            self._fd = fd
        else:
            try:
                self._fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
            except OSError:
                self._fd = -1

    def __enter__(self) -> V4l2Device:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the node if this object opened it."""
        if self._own and self._fd >= 0:
            os.close(self._fd)
        self._fd = -1

    def _ask(self, request: int, buf: bytearray) -> bool:
        if self._fd < 0:
            return False
        try:
            self._ioctl(self._fd, request, buf)
        except OSError:
            return False
        return True

    def card(self) -> str:
        """The camera's name as its driver gives it (``"HD Pro Webcam C920"``), or ''."""
        buf = bytearray(_CAPABILITY.size)
        if not self._ask(VIDIOC_QUERYCAP, buf):
            return ""
        return _cstr(_CAPABILITY.unpack(buf)[1])

    def formats(self) -> list[str]:
        """The capture pixel formats, in the driver's order (``["MJPG", "YUYV"]``)."""
        found: list[str] = []
        for index in range(_MAX_ENTRIES):
            buf = bytearray(_FMTDESC.pack(index, BUF_TYPE_VIDEO_CAPTURE, 0, b"", 0, 0, 0, 0, 0))
            if not self._ask(VIDIOC_ENUM_FMT, buf):
                break
            found.append(fourcc_text(_FMTDESC.unpack(buf)[4]))
        return found

    def sizes(self, fourcc: str) -> list[tuple[int, int]]:
        """The discrete frame sizes of one pixel format, smallest first.

        A camera with stepwise sizes answers with its smallest and largest.
        """
        found: set[tuple[int, int]] = set()
        code = fourcc_int(fourcc)
        for index in range(_MAX_ENTRIES):
            buf = bytearray(_FRMSIZE.pack(index, code, 0, 0, 0, 0, 0, 0, 0, 0, 0))
            if not self._ask(VIDIOC_ENUM_FRAMESIZES, buf):
                break
            values = _FRMSIZE.unpack(buf)
            kind, union = values[2], values[3:9]
            if kind == FRMSIZE_TYPE_DISCRETE:
                found.add((union[0], union[1]))
            else:  # stepwise or continuous: min_w, max_w, step_w, min_h, max_h, step_h
                found.add((union[0], union[3]))
                found.add((union[1], union[4]))
                break
        return sorted(found, key=lambda wh: (wh[0] * wh[1], wh))


def sizes_text(sizes: list[tuple[int, int]]) -> str:
    """``"640x480, 1280x960"``, or ``"unknown"``."""
    return ", ".join(f"{w}x{h}" for w, h in sizes) if sizes else "unknown"
