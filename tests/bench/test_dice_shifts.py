"""The bench's copies of the shared sets: a set stretched to a square as labelling services
export it keeps its labels, normalised, where its dice are."""

from __future__ import annotations

from pathlib import Path

import cv2
import pytest

from controller.bench.dice import EXPORT_SIDE, shifted_dataset, stretched_square
from vision.learning.dataset import load_dataset
from vision.synth.scenes import write_dataset


def test_a_set_stretched_to_a_square_keeps_its_labels(tmp_path: Path) -> None:
    original = load_dataset(write_dataset(tmp_path / "plain", 2, seed=3, hard=False))
    square = shifted_dataset(original, stretched_square, tmp_path / "square")
    for before, after in zip(original.items, square.items, strict=True):
        assert cv2.imread(str(after.image)).shape[:2] == (EXPORT_SIDE, EXPORT_SIDE)
        assert [d.cls for d in after.dice] == [d.cls for d in before.dice]
        for a, b in zip(after.dice, before.dice, strict=True):
            assert (a.cx, a.cy, a.w, a.h) == pytest.approx((b.cx, b.cy, b.w, b.h), abs=1e-5)
