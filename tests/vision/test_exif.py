"""A phone photo turned by its EXIF orientation tag is read as it is shown, in both ways
a photo is decoded (reduced by libjpeg, and whole), so its YOLO labels (drawn on the photo
as shown, as Ultralytics' ``exif_size`` measures it) fall on its dice."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageOps

from vision.images import read_image
from vision.reading.detect import DetectorParams
from vision.reading.read import load_scaled, reduction

ORIENTATION = 0x0112  # EXIF tag 274


@pytest.mark.parametrize("tag", [1, 3, 6, 8])
def test_exif_turned_photo_is_decoded_as_shown(tmp_path: Path, tag: int) -> None:
    stored = np.full((1200, 1600, 3), 40, np.uint8)  # as the sensor wrote it, landscape
    stored[50:250, 100:300] = 230  # a bright patch near the stored top-left corner
    path = tmp_path / "phone.jpg"
    exif = Image.Exif()
    exif[ORIENTATION] = tag
    Image.fromarray(stored).save(path, exif=exif.tobytes(), quality=95)
    shown = np.asarray(
        ImageOps.exif_transpose(Image.open(path))
    )  # what a viewer (and the labeller) shows
    params = DetectorParams(die_frac=0.2)  # dice ~277 px: decoded at half size
    assert reduction(path, params) == 2
    for image, factor in (load_scaled(path, params), (read_image(path), 1.0)):
        assert image.shape[:2] == tuple(round(s / factor) for s in shown.shape[:2])
        ys, xs = np.nonzero(shown[..., 0] > 150)
        y0, y1, x0, x1 = (round(v / factor) for v in (ys.min(), ys.max(), xs.min(), xs.max()))
        assert image[y0 + 5 : y1 - 5, x0 + 5 : x1 - 5].mean() > 200
        assert image.mean() < 70  # and the rest dark: the patch is nowhere else
