"""Image files: which suffixes are photos, an image's size from its header, decoding one
(refusing one too large from its header), a JPEG's size from its header."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from controller.core.quoting import printable
from vision.errors import ImageReadError

# The photo files read, by suffix (any case): those of the image formats labelling tools'
# YOLO exports hold (Ultralytics' ``IMG_FORMATS``, ultralytics/data/utils.py) that
# OpenCV decodes (its 4.11 wheels build in libjpeg, libpng, libwebp and libtiff; not HEIC,
# AVIF nor GIF: tests/vision/test_dataset.py reads each format listed)
IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff")
# photos of formats OpenCV does not decode, named when a label has one of them for its photo
UNDECODED_FORMATS = {".heic": "HEIC", ".heif": "HEIF", ".avif": "AVIF", ".dng": "raw DNG"}

CV_LOG_LEVEL_ERROR = 2
"""OpenCV's ``cv::utils::logging::LOG_LEVEL_ERROR``: errors only, no warnings."""


@contextmanager
def opencv_quiet() -> Iterator[None]:
    """OpenCV's own warnings held back while the block runs (what fails is said once, by
    toptable's error); its log level as it was after."""
    previous = cv2.setLogLevel(CV_LOG_LEVEL_ERROR)
    try:
        yield
    finally:
        cv2.setLogLevel(previous)


MAX_IMAGE_PIXELS = 64_000_000
"""The largest image ``toptable`` decodes: 64 megapixels (about 192 MB as BGR).

Every Raspberry Pi camera is far below it (the HQ camera: 12.3 MP; Camera
Module 3: 11.9 MP). The libraries' own limits are not meant for a Pi: OpenCV's
``imread`` refuses only above ``OPENCV_IO_MAX_IMAGE_PIXELS`` = 2**30 pixels
(modules/imgcodecs/src/loadsave.cpp, ``validateInputImageSize``, 4.x): 3 GB decoded;
Pillow warns above ``Image.MAX_IMAGE_PIXELS`` (89,478,485) and raises
``DecompressionBombError`` only above twice that (PIL/Image.py,
``_decompression_bomb_check``, 13.0).
"""


def header_size(path: Path) -> tuple[int, int] | None:
    """(width, height) of the image at ``path``, from its header alone (None: no header
    Pillow reads: OpenCV then says whether it is an image).

    Raises:
        PIL.Image.DecompressionBombError: over twice Pillow's own pixel limit.
    """
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as image:
            width, height = image.size
    except (UnidentifiedImageError, OSError):
        return None
    return width, height


def _too_large(path: Path) -> str | None:
    """Why ``path`` is too large to decode, from its header alone (None: it is not, or its
    header is not one Pillow reads: OpenCV then says whether it is an image)."""
    from PIL import Image

    try:
        size = header_size(path)
    except Image.DecompressionBombError:
        return f"over {2 * (Image.MAX_IMAGE_PIXELS or 0) / 1e6:.0f} megapixels"
    if size is None or size[0] * size[1] <= MAX_IMAGE_PIXELS:
        return None
    width, height = size
    return f"{width}x{height} is {width * height / 1e6:.0f} megapixels"


def read_image(path: str | Path) -> NDArray[Any]:
    """Read a colour image as a BGR array.

    Raises:
        ImageReadError: the file is missing, not a decodable image, or larger than
            :data:`MAX_IMAGE_PIXELS` (refused from its header, before decoding).
    """
    path = Path(path)
    if not path.is_file():
        raise ImageReadError(f"{path}: no such image file")
    too_large = _too_large(path)
    if too_large is not None:
        raise ImageReadError(
            f"{path}: {too_large}; at most {MAX_IMAGE_PIXELS / 1e6:.0f} are read "
            "(a camera photo is about 12)"
        )
    data = np.fromfile(str(path), dtype=np.uint8)
    with opencv_quiet():  # a damaged file is said once, below
        image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageReadError(f"{path}: {unreadable_why(data)}")
    return image


def write_image(path: str | Path, image: NDArray[Any], params: Sequence[int] = ()) -> None:
    """Write ``image`` to ``path``, encoded by its suffix. Encoded by ``cv2.imencode`` and
    written by Python: ``cv2.imwrite`` (OpenCV 4.11) crashes the process on a path that is no
    UTF-8 and answers a full disk with a bare False.

    Raises:
        ImageReadError: no encoder for the suffix, or the file cannot be written (its reason).
    """
    path = Path(path)
    shown = printable(str(path), None)
    try:
        with opencv_quiet():
            ok, data = cv2.imencode(path.suffix or ".png", image, list(params))
    except cv2.error:
        ok = False
    if not ok:
        raise ImageReadError(f"{shown}: cannot encode an image as {printable(path.suffix)!r}")
    try:
        path.write_bytes(data.tobytes())
    except OSError as exc:
        raise ImageReadError(f"{shown}: cannot write the image: {exc.strerror or exc}") from None


JPEG_START, JPEG_END = b"\xff\xd8", b"\xff\xd9"


def unreadable_why(data: NDArray[Any]) -> str:
    """Why OpenCV decoded no image from a file's bytes: a JPEG cut short (copied or saved
    in part: no end marker, which OpenCV 4.11 refuses) or not an image of a known kind."""
    head, tail = data[:2].tobytes(), data[-2:].tobytes()
    if head == JPEG_START and tail != JPEG_END:
        return (
            f"a JPEG cut short ({data.size} bytes and no end marker: copied or saved in part); "
            "copy it again from the camera or phone"
        )
    return f"not a readable image ({suffix_list()})"


def suffix_list() -> str:
    """The photo suffixes read, for a message: ``.jpg, .jpeg, ...``."""
    return ", ".join(IMAGE_SUFFIXES)


def is_photo(path: Path) -> bool:
    """Whether ``path`` names a photo file this project reads (by its suffix, any case)."""
    return path.suffix.lower() in IMAGE_SUFFIXES


def photos_here(folder: Path) -> list[Path]:
    """The photo files of ``folder`` itself, sorted; not its hidden ones (macOS writes a
    ``._IMG_0001.jpg`` of its own beside each photo it copies to a card or stick).

    Raises:
        OSError: the folder cannot be listed.
    """
    return sorted(
        p for p in folder.iterdir() if is_photo(p) and not p.name.startswith(".") and p.is_file()
    )


def undecoded_twin(folder: Path, stem: str) -> str | None:
    """Why the photo of ``stem`` in ``folder`` is not read when it has a format OpenCV does
    not decode (``stem.heic``...): one clause naming the file, or None."""
    for suffix, kind in UNDECODED_FORMATS.items():
        for candidate in (folder / (stem + suffix), folder / (stem + suffix.upper())):
            if candidate.is_file():
                return f"{candidate.name} is a {kind} photo, which is not read (save it as JPEG)"
    return None


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}


def jpeg_size(head: bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's frame header, or None if not found in ``head``."""
    if head[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 < len(head):
        if head[i] != 0xFF:
            return None
        marker = head[i + 1]
        if marker == 0xFF:
            i += 1
            continue
        if marker in _SOF:
            height = int.from_bytes(head[i + 5 : i + 7], "big")
            width = int.from_bytes(head[i + 7 : i + 9], "big")
            return (width, height) if width and height else None
        i += 2 + int.from_bytes(head[i + 2 : i + 4], "big")
    return None
