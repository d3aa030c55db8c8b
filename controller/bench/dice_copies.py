"""The shared photo sets copied as the dice bench reads them (:mod:`controller.bench.dice`):
under shifted conditions (darker and warmer, a camera tilted 12 degrees, turned a
quarter turn, a poor JPEG) and as labelling services export a set (stretched to a
square, fitted into one with black edges, made grey), each photo's labels moved with
its pixels (:func:`shifted_dataset`)."""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.images import read_image, write_image
from vision.learning.dataset import Dataset, load_dataset
from vision.reading import exported

# a photo's copy and the matrix moving its boxes (None: they stay where they are)
Transform = Callable[[NDArray[Any]], tuple[NDArray[Any], NDArray[Any] | None]]


def _darker_warmer(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    lit = image.astype(np.float32) * np.array([0.38, 0.55, 0.75], np.float32)
    return np.clip(lit, 0, 255).astype(np.uint8), None


def _tilt_matrix(width: int, height: int, degrees: float = 12.0) -> NDArray[Any]:
    f = float(width)
    k = np.array([[f, 0, width / 2], [0, f, height / 2], [0, 0, 1]], np.float64)
    t = math.radians(degrees)
    r = np.array([[1, 0, 0], [0, math.cos(t), -math.sin(t)], [0, math.sin(t), math.cos(t)]])
    h = k @ r @ np.linalg.inv(k)
    h = h / h[2, 2]
    # re-aimed at the same centre: the keystone of a tilted camera, not a shifted view
    c = h @ np.array([width / 2, height / 2, 1.0])
    shift = np.array([[1, 0, width / 2 - c[0] / c[2]], [0, 1, height / 2 - c[1] / c[2]], [0, 0, 1]])
    return np.asarray(shift @ h)


def _tilted(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    h, w = image.shape[:2]
    m = _tilt_matrix(w, h)
    fill = tuple(float(v) for v in np.median(image.reshape(-1, 3), axis=0))
    out = cv2.warpPerspective(image, m, (w, h), flags=cv2.INTER_LINEAR,
                              borderMode=cv2.BORDER_CONSTANT, borderValue=fill)  # fmt: skip
    return out, m


def _quarter_turn(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    h, _w = image.shape[:2]
    out = np.ascontiguousarray(np.rot90(image, -1))  # clockwise: (x, y) -> (h - 1 - y, x)
    m = np.array([[0, -1, h - 1], [1, 0, 0], [0, 0, 1]], np.float64)
    return out, m


def _poor_jpeg(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 12])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return (decoded if decoded is not None else image), None


EXPORT_SIDE = 640  # Roboflow's "Stretch to 640x640", a common default of public sets


def stretched_square(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """``image`` resized to ``EXPORT_SIDE`` square without keeping its shape, as labelling
    services export a set; the matrix moving its boxes."""
    h, w = image.shape[:2]
    out = cv2.resize(image, (EXPORT_SIDE, EXPORT_SIDE), interpolation=cv2.INTER_AREA)
    return out, np.diag([EXPORT_SIDE / w, EXPORT_SIDE / h, 1.0])


# Roboflow's "Fit (black edges) in ...": at 640 catan's 40 px dice would shrink to 13 px,
# so its photos are fitted into a square of their own width
FIT_SIDE = 1920


def fitted_square(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """``image`` fitted into a ``FIT_SIDE`` square with black edges (its shape kept), as
    labelling services can export a set; the matrix moving its boxes."""
    h, w = image.shape[:2]
    k = FIT_SIDE / max(w, h)
    cw, ch = round(w * k), round(h * k)
    x0, y0 = (FIT_SIDE - cw) // 2, (FIT_SIDE - ch) // 2
    out = np.zeros((FIT_SIDE, FIT_SIDE, 3), np.uint8)
    out[y0 : y0 + ch, x0 : x0 + cw] = cv2.resize(image, (cw, ch), interpolation=cv2.INTER_AREA)
    return out, np.array([[cw / w, 0.0, x0], [0.0, ch / h, y0], [0.0, 0.0, 1.0]])


def made_grey(image: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any] | None]:
    """``image`` without colour (kept three-channel), as a labelling service's grey step
    exports a set."""
    return exported.made_grey(image), None


SHIFTS: dict[str, Transform] = {
    "darker and warmer": _darker_warmer,
    "camera tilted 12 degrees": _tilted,
    "camera turned a quarter turn": _quarter_turn,
    "poor JPEG (quality 12)": _poor_jpeg,
}


def shifted_dataset(dataset: Dataset, transform: Transform, root: Path) -> Dataset:
    """``dataset`` with every photo transformed (and its boxes moved with the pixels),
    written to ``root`` in the YOLO layout."""
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    names = "\n".join(f'  {i}: "{n}"' for i, n in enumerate(dataset.names))
    (root / "data.yaml").write_text(f"path: .\nnames:\n{names}\n", encoding="utf-8")
    for item in dataset.items:
        image = read_image(item.image)
        h, w = image.shape[:2]
        out, m = transform(image)
        oh, ow = out.shape[:2]
        lines = []
        for d in item.dice:
            x, y, bw, bh = d.box_px(w, h)
            if m is not None:
                pts = np.array([[x, y], [x + bw, y], [x, y + bh], [x + bw, y + bh]], np.float64)
                moved = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), m).reshape(-1, 2)
                x0, y0 = np.clip(moved.min(0), 0, [ow, oh])
                x1, y1 = np.clip(moved.max(0), 0, [ow, oh])
                x, y, bw, bh = x0, y0, x1 - x0, y1 - y0
                if bw < 2 or bh < 2:
                    continue  # moved out of the frame
            lines.append(
                f"{d.cls} {(x + bw / 2) / ow:.6f} {(y + bh / 2) / oh:.6f} {bw / ow:.6f} {bh / oh:.6f}"
            )
        name = item.image.stem + ".jpg"
        quality = 100 if transform is not _poor_jpeg else 95
        write_image(root / "images" / name, out, [cv2.IMWRITE_JPEG_QUALITY, quality])
        (root / "labels" / f"{item.image.stem}.txt").write_text("\n".join(lines) + "\n")
    return load_dataset(root)


# how labelling services export a set, and how the webcam's own frames are then read
EXPORTS: tuple[tuple[str, Transform, str], ...] = (
    (f"stretched to {EXPORT_SIDE}x{EXPORT_SIDE}", stretched_square, "as the webcam saved it"),
    (
        f"fitted into {FIT_SIDE}x{FIT_SIDE} with black edges",
        fitted_square,
        "as the webcam saved it",
    ),
    ("made grey", made_grey, "as the webcam saved it (in colour)"),
)
