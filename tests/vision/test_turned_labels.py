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


def test_labels_drawn_as_shown_stay_beside_an_oblique_cameras_photos(tmp_path: Path) -> None:
    """Photos of a camera whose dice look wide (an oblique table camera, no tag) do not
    make the phone photos' right labels look turned: each set of boxes is judged alone."""
    _photo_set(tmp_path, 6, drawn_on_stored=False)
    for n in range(3):
        frame = np.full((960, 1280, 3), 60, np.uint8)
        Image.fromarray(frame).save(tmp_path / "images" / f"cam{n}.jpg")
        (tmp_path / "labels" / f"cam{n}.txt").write_text(
            "".join(f"{k % 2} {0.2 + 0.2 * k:.3f} 0.5 {80 / 1280:.6f} {52 / 960:.6f}\n"
                    for k in range(4))
        )  # fmt: skip
    assert load_dataset(tmp_path).turned == 0
    assert _lands_on_its_square_in(tmp_path, "p")


def _lands_on_its_square_in(root: Path, prefix: str) -> bool:
    for item in load_dataset(root).items:
        if not item.image.name.startswith(prefix):
            continue
        shown = np.asarray(ImageOps.exif_transpose(Image.open(item.image)))
        h, w = shown.shape[:2]
        for die in item.dice:
            x, y, bw, bh = die.box_px(w, h)
            inner = shown[round(y + 15) : round(y + bh - 15), round(x + 15) : round(x + bw - 15), 0]
            if inner.size == 0 or inner.mean() < 200:
                return False
    return True


def test_a_photo_past_pillows_limit_is_left_to_the_datasets_checks(tmp_path: Path) -> None:
    """Pillow refuses to open a photo over twice its pixel limit (DecompressionBombError,
    no OSError): reading its tag must not end the dataset's loading with a traceback."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    _photo_set(tmp_path, 1, drawn_on_stored=False, photos=2)
    header = struct.pack(">IIBBBBB", 20000, 10000, 8, 0, 0, 0, 0)  # 200 megapixels
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")
    (tmp_path / "images" / "panorama.png").write_bytes(png)
    (tmp_path / "labels" / "panorama.txt").write_text("0 0.5 0.5 0.01 0.02\n")
    assert len(load_dataset(tmp_path).items) == 3
