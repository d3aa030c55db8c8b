"""Calibration names every photo it cannot decode in one run, and a JPEG cut short as such."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.core.errors import DataError
from vision.errors import ImageReadError
from vision.images import read_image
from vision.learning.dataset import LabeledImage
from vision.learning.decoded import decode_each
from vision.reading.detect import DetectorParams


def _jpeg(path: Path) -> bytes:
    image = np.zeros((240, 320, 3), np.uint8)
    image[60:120, 80:140] = 220
    ok, data = cv2.imencode(".jpg", image)
    assert ok
    path.write_bytes(data.tobytes())
    return data.tobytes()


def test_every_unreadable_photo_is_named_in_one_run(tmp_path: Path) -> None:
    whole = tmp_path / "a.jpg"
    data = _jpeg(whole)
    no_end = tmp_path / "b.jpg"
    no_end.write_bytes(data[:-2])  # only the end marker missing: OpenCV 4.11 refuses it
    half = tmp_path / "c.jpg"
    half.write_bytes(data[: len(data) // 2])
    items = [LabeledImage(p, p.with_suffix(".txt"), ()) for p in (whole, no_end, half)]
    with pytest.raises(DataError) as info:
        decode_each(items, DetectorParams(die_frac=0.2))
    text = str(info.value)
    assert str(no_end) in text and str(half) in text and str(whole) not in text
    assert text.count("a JPEG cut short") == 2
    assert len(decode_each(items[:1], DetectorParams(die_frac=0.2))) == 1


def test_a_jpeg_cut_short_is_said_so(tmp_path: Path) -> None:
    path = tmp_path / "cut.jpg"
    path.write_bytes(_jpeg(tmp_path / "x.jpg")[:-300])
    with pytest.raises(ImageReadError, match=r"cut\.jpg: a JPEG cut short \(\d+ bytes and no end"):
        read_image(path)
    other = tmp_path / "notes.jpg"
    other.write_text("not a photo")
    with pytest.raises(ImageReadError, match=r"notes\.jpg: not a readable image \("):
        read_image(other)
