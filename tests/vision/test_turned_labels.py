"""Labels drawn on a phone photo as stored (labelImg ignores the EXIF orientation tag) are
turned as the photo is shown and read; labels drawn on the photo as shown stay as they are."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from numpy.typing import NDArray
from PIL import Image, ImageOps

from vision.learning.dataset import load_dataset
from vision.learning.turned_labels import turned_warning

ORIENTATION = 0x0112
SQUARES = ((100, 150), (700, 300), (1200, 800), (300, 900))  # each die's stored top-left


def _photo_set(root: Path, tag: int, drawn_on_stored: bool, photos: int = 3) -> list[Path]:
    """``photos`` photos stored 1600x1200 with four bright 100 px squares, tagged ``tag``;
    labelled on the photo as stored (labelImg) or as shown (Roboflow, CVAT)."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "classes.txt").write_text("one\ntwo\n")
    paths = []
    for n in range(photos):
        stored = np.full((1200, 1600, 3), 40, np.uint8)
        for x, y in SQUARES:
            stored[y + 10 * n : y + 10 * n + 100, x : x + 100] = 230
        path = root / "images" / f"p{n}.jpg"
        exif = Image.Exif()
        exif[ORIENTATION] = tag
        Image.fromarray(stored).save(path, exif=exif.tobytes(), quality=95)
        frame = stored if drawn_on_stored else np.asarray(ImageOps.exif_transpose(Image.open(path)))
        lines = []
        for cls, (ys, xs) in enumerate(_patches(frame)):
            h, w = frame.shape[:2]
            box = ((xs[0] + xs[1]) / 2 / w, (ys[0] + ys[1]) / 2 / h,
                   (xs[1] - xs[0]) / w, (ys[1] - ys[0]) / h)  # fmt: skip
            lines.append(f"{cls % 2} " + " ".join(f"{v:.6f}" for v in box))
        (root / "labels" / f"p{n}.txt").write_text("\n".join(lines) + "\n")
        paths.append(path)
    return paths


def _patches(frame: NDArray[np.uint8]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Each bright square's (rows, columns) span, found by its connected run."""
    import cv2

    mask = (frame[..., 0] > 150).astype(np.uint8)
    count, _, stats, _ = cv2.connectedComponentsWithStats(mask)
    out = []
    for x, y, w, h, _ in sorted(stats[1:count].tolist(), key=lambda s: (s[1], s[0])):
        out.append(((y, y + h), (x, x + w)))
    return out


def _lands_on_its_square(root: Path, drawn_on_stored: bool, tag: int) -> bool:
    data = load_dataset(root)
    assert data.turned == (len(data.items) if drawn_on_stored and tag >= 5 else 0)
    for item in data.items:
        shown = np.asarray(ImageOps.exif_transpose(Image.open(item.image)))
        h, w = shown.shape[:2]
        for die in item.dice:
            x, y, bw, bh = die.box_px(w, h)
            inner = shown[round(y + 15) : round(y + bh - 15), round(x + 15) : round(x + bw - 15), 0]
            if inner.size == 0 or inner.mean() < 200 or abs(bw - bh) > 3:
                return False
    return True


@pytest.mark.parametrize("tag", [5, 6, 7, 8])
def test_labels_drawn_on_the_stored_photo_are_turned_as_it_is_shown(
    tmp_path: Path, tag: int
) -> None:
    _photo_set(tmp_path, tag, drawn_on_stored=True)
    assert _lands_on_its_square(tmp_path, True, tag)


@pytest.mark.parametrize("tag", [1, 3, 6, 8])
def test_labels_drawn_on_the_photo_as_shown_stay(tmp_path: Path, tag: int) -> None:
    _photo_set(tmp_path, tag, drawn_on_stored=False)
    assert _lands_on_its_square(tmp_path, False, tag)


def test_calibration_says_when_it_turned_labels() -> None:
    assert turned_warning(0) == ""
    assert "3 photos carry an EXIF orientation tag" in turned_warning(3)
