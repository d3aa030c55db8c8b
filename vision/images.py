"""Image files: which suffixes are photos, decoding one, a JPEG's size from its header."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.errors import ImageReadError

IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png", ".bmp")


def read_image(path: str | Path) -> NDArray[Any]:
    """Read a colour image as a BGR array.

    Raises:
        ImageReadError: the file is missing or not a decodable image.
    """
    path = Path(path)
    if not path.is_file():
        raise ImageReadError(f"{path}: no such image file")
    data = np.fromfile(str(path), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageReadError(f"{path}: not a readable image (jpg, png, bmp...)")
    return image


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
