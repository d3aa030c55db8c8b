"""Photos fitted into another shape with plain edges (as labelling services export a set):
calibration finds the edges, and the camera's own frames are fitted so before reading."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from vision.errors import ConfigError
from vision.learning.calibrate import calibrate
from vision.learning.dataset import load_dataset
from vision.learning.evaluate import evaluate, match
from vision.reading.detect import DetectorParams
from vision.reading.export_edges import ExportEdges, find_edges, fitted, is_unfitted
from vision.reading.exported import as_calibrated, camera_sizes, frame_box
from vision.reading.read import read_file

RNG = np.random.default_rng(3)


def _scene(h: int, w: int) -> NDArray[Any]:
    """A textured photo (no plain row or column anywhere)."""
    noise = RNG.integers(40, 220, (h // 8 + 1, w // 8 + 1, 3)).astype(np.uint8)
    return cv2.resize(noise, (w, h), interpolation=cv2.INTER_LINEAR)


def _boxed(image: NDArray[Any], side: int, colour: int) -> NDArray[Any]:
    """``image`` fitted into a ``side`` square with plain edges, saved as JPEG and decoded
    (a service's export)."""
    h, w = image.shape[:2]
    k = side / max(w, h)
    cw, ch = round(w * k), round(h * k)
    out = np.full((side, side, 3), colour, np.uint8)
    x0, y0 = (side - cw) // 2, (side - ch) // 2
    out[y0 : y0 + ch, x0 : x0 + cw] = cv2.resize(image, (cw, ch), interpolation=cv2.INTER_AREA)
    ok, data = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, 85])
    assert ok
    return cv2.imdecode(data, cv2.IMREAD_COLOR)


@pytest.mark.parametrize("colour", [0, 255, 114])
def test_edges_are_found_on_two_opposite_sides(colour: int) -> None:
    photos = [_boxed(_scene(360, 640), 320, colour) for _ in range(4)]  # 16:9 in a square
    edges = find_edges(photos, [(0.4, 0.4, 0.5, 0.5)])
    assert edges is not None
    assert edges.content == pytest.approx((0.0, 0.21875, 1.0, 0.78125), abs=0.01)
    assert edges.colour == pytest.approx((colour,) * 3, abs=4)
    tall = [_boxed(_scene(640, 480), 320, colour) for _ in range(4)]  # portrait: left, right
    edges = find_edges(tall, [(0.4, 0.4, 0.5, 0.5)])
    assert edges is not None
    assert edges.content == pytest.approx((0.125, 0.0, 0.875, 1.0), abs=0.01)


def test_photos_without_edges_have_none() -> None:
    plain = [_scene(360, 640) for _ in range(4)]
    assert find_edges(plain, [(0.4, 0.4, 0.5, 0.5)]) is None
    one_side = [_scene(360, 640) for _ in range(4)]
    for photo in one_side:
        photo[:40] = 0  # a dark band along the top only: the table's edge, not a fit
    assert find_edges(one_side, [(0.4, 0.4, 0.5, 0.5)]) is None
    boxed = [_boxed(_scene(360, 640), 320, 0) for _ in range(4)]
    assert find_edges(boxed, [(0.4, 0.02, 0.5, 0.1)]) is None  # a die labelled on an edge
    assert find_edges([*boxed, _scene(300, 400)], [(0.4, 0.4, 0.5, 0.5)]) is None  # two sizes


def test_a_frame_is_fitted_as_the_photos_were() -> None:
    edges = ExportEdges((0.0, 0.21875, 1.0, 0.78125), (0.0, 0.0, 0.0))
    assert edges.content_size((640, 640)) == (640, 360)
    assert is_unfitted((1920, 1080), edges, [(640, 640)])
    assert not is_unfitted((640, 640), edges, [(640, 640)])
    assert not is_unfitted((1920, 1080), edges, [])  # the photos' sizes not known
    frame = _scene(1080, 1920)
    out, placement = fitted(frame, edges, (640, 640))
    assert out.shape == (640, 640, 3)
    assert placement == pytest.approx((1 / 3, 1 / 3, 0.0, 140.0))
    assert (out[:140] == 0).all() and (out[500:] == 0).all()
    # a pixel of the frame lies where the placement says, and a box found comes back
    # (an exact third: the fitted pixel is the mean of the frame's 3x3 block it covers)
    block = frame[300:303, 600:603].reshape(-1, 3).mean(axis=0)
    assert out[140 + 100, 200].astype(float) == pytest.approx(block, abs=1.5)
    assert frame_box((200.0, 240.0, 30.0, 30.0), placement) == pytest.approx(
        (600.0, 300.0, 90.0, 90.0)
    )
    params = DetectorParams(export_edges=edges.to_values())
    assert camera_sizes(params, [(640, 640)]) == [(640, 360)]
    image, placed = as_calibrated(frame, params, [(640, 640)])
    assert image.shape == (640, 640, 3) and placed == placement
    exported = np.zeros((640, 640, 3), np.uint8)
    assert as_calibrated(exported, params, [(640, 640)])[0] is exported  # read as it is


def test_damaged_edges_in_a_model_are_named() -> None:
    with pytest.raises(ConfigError, match="export_edges: 3 numbers, expected 7"):
        DetectorParams(export_edges=(0.0, 0.1, 1.0))
    with pytest.raises(ConfigError, match=r"is not inside 0\.\.1"):
        DetectorParams(export_edges=(0.0, 0.6, 1.0, 0.4, 0.0, 0.0, 0.0))
    assert DetectorParams(export_edges=[0, 0.2, 1, 0.8, 0, 0, 0]).export_edges == (  # type: ignore[arg-type]
        0.0, 0.2, 1.0, 0.8, 0.0, 0.0, 0.0
    )  # fmt: skip


def _fitted_set(src: Path, dst: Path, side: int) -> Path:
    """A copy of the dataset ``src`` with each photo fitted into a ``side`` square with black
    edges, its labels moved into it."""
    shutil.copytree(src, dst)
    for photo in (dst / "images").iterdir():
        image = cv2.imread(str(photo))
        h, w = image.shape[:2]
        k = side / max(w, h)
        cw, ch = round(w * k), round(h * k)
        x0, y0 = (side - cw) // 2, (side - ch) // 2
        out = np.zeros((side, side, 3), np.uint8)
        out[y0 : y0 + ch, x0 : x0 + cw] = cv2.resize(image, (cw, ch), interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(photo), out)
        label = dst / "labels" / f"{photo.stem}.txt"
        lines = []
        for line in label.read_text().splitlines():
            c, x, y, bw, bh = line.split()
            lines.append(
                f"{c} {(float(x) * cw + x0) / side:.6f} {(float(y) * ch + y0) / side:.6f} "
                f"{float(bw) * cw / side:.6f} {float(bh) * ch / side:.6f}"
            )
        label.write_text("\n".join(lines) + "\n")
    return dst


def test_the_cameras_own_frames_read_as_the_fitted_photos(
    stress_photos: tuple[Path, Path], tmp_path: Path
) -> None:
    train, test = stress_photos
    h, w = cv2.imread(str(next((train / "images").iterdir()))).shape[:2]
    side = max(w, h)
    model = calibrate(load_dataset(_fitted_set(train, tmp_path / "train", side)))
    edges = ExportEdges.from_values(model.params.export_edges)
    assert edges is not None and edges.content_size((side, side)) == pytest.approx((w, h), abs=3)
    fitted_test = load_dataset(_fitted_set(test, tmp_path / "test", side))
    result = evaluate(fitted_test, model)
    assert (result.f1, result.accuracy, result.warned) == (1.0, 1.0, 0)
    # the camera's own frames (without edges, another shape): fitted before they are read
    result = evaluate(load_dataset(test), model)
    assert (result.f1, result.accuracy, result.warned) == (1.0, 1.0, 0)
    item = load_dataset(test).items[0]
    read = read_file(item.image, model)
    labeled = [d.box_px(w, h) for d in item.dice]
    assert len(match(labeled, [d.box for d in read.dice])) == len(labeled) == len(read.dice)
