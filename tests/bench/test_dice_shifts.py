"""The bench's copies of the shared sets, as labelling services export a set (stretched to
a square, fitted into one with edges, made grey): the labels, normalised, stay where the
dice are."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from controller.bench.dice_copies import (
    EXPORT_SIDE,
    FIT_SIDE,
    fitted_square,
    made_grey,
    shifted_dataset,
    stretched_square,
)
from vision.learning.dataset import load_dataset
from vision.reading.exported import is_grey
from vision.synth.scenes import write_dataset


def test_a_set_stretched_to_a_square_keeps_its_labels(tmp_path: Path) -> None:
    original = load_dataset(write_dataset(tmp_path / "plain", 2, seed=3, hard=False))
    square = shifted_dataset(original, stretched_square, tmp_path / "square")
    for before, after in zip(original.items, square.items, strict=True):
        assert cv2.imread(str(after.image)).shape[:2] == (EXPORT_SIDE, EXPORT_SIDE)
        assert [d.cls for d in after.dice] == [d.cls for d in before.dice]
        for a, b in zip(after.dice, before.dice, strict=True):
            assert (a.cx, a.cy, a.w, a.h) == pytest.approx((b.cx, b.cy, b.w, b.h), abs=1e-5)


def test_a_set_fitted_with_edges_has_its_labels_moved_in(tmp_path: Path) -> None:
    original = load_dataset(write_dataset(tmp_path / "plain", 2, seed=3, hard=False))
    fitted = shifted_dataset(original, fitted_square, tmp_path / "fitted")
    for before, after in zip(original.items, fitted.items, strict=True):
        h, w = cv2.imread(str(before.image)).shape[:2]
        image = cv2.imread(str(after.image))
        assert image.shape[:2] == (FIT_SIDE, FIT_SIDE)
        k = FIT_SIDE / max(w, h)
        x0, y0 = (FIT_SIDE - round(w * k)) // 2, (FIT_SIDE - round(h * k)) // 2
        assert (image[: max(y0 - 1, 0)] == 0).all() and (image[:, : max(x0 - 1, 0)] == 0).all()
        for a, b in zip(after.dice, before.dice, strict=True):
            moved = ((b.cx * w * k + x0) / FIT_SIDE, (b.cy * h * k + y0) / FIT_SIDE)
            assert (a.cx, a.cy) == pytest.approx(moved, abs=1e-3)
            assert (a.w, a.h) == pytest.approx(
                (b.w * w * k / FIT_SIDE, b.h * h * k / FIT_SIDE), abs=1e-3
            )


def test_a_set_made_grey_keeps_its_labels(tmp_path: Path) -> None:
    original = load_dataset(write_dataset(tmp_path / "plain", 1, seed=3, hard=False))
    grey = shifted_dataset(original, made_grey, tmp_path / "grey")
    image = cv2.imread(str(grey.items[0].image))
    assert is_grey(image) and not is_grey(cv2.imread(str(original.items[0].image)))
    assert grey.items[0].dice == original.items[0].dice
