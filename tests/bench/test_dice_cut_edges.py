"""The bench's real photos cut by a smaller window: each photo cut at a seeded place, its
labels clipped as labelling tools clip them, a sliver of a die left unlabelled."""

from __future__ import annotations

import random
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.bench import dice as bench
from controller.bench.dice_cut_edges import KEEP, WINDOWS, cut_edge_sets, cut_window
from tests.paths import REPO
from vision.errors import ImageReadError
from vision.learning.dataset import Dataset, LabeledDie, LabeledImage, load_dataset

SHARED = REPO.parent / "shared" / "datasets"


def _one_photo(tmp_path: Path, dice: tuple[LabeledDie, ...]) -> Dataset:
    image = tmp_path / "src" / "p.png"
    image.parent.mkdir()
    cv2.imwrite(str(image), np.random.default_rng(0).integers(0, 256, (100, 200, 3), np.uint8))
    item = LabeledImage(image, tmp_path / "src" / "p.txt", dice)
    return Dataset(tmp_path / "src", ("1", "2"), (item,))


def test_a_window_clips_the_boxes_it_cuts_and_drops_slivers(tmp_path: Path) -> None:
    whole = LabeledDie(0, 0.5, 0.5, 0.1, 0.2)  # 20 x 20 px at the photo's centre
    source = _one_photo(
        tmp_path,
        (whole, LabeledDie(1, 0.05, 0.5, 0.1, 0.2), LabeledDie(1, 0.95, 0.5, 0.1, 0.2)),
    )

    class Fixed(random.Random):
        def randint(self, a: int, b: int) -> int:  # the window's left and top edges
            return 5 if b == 200 - 150 else 0

    made, cut = cut_window(source, tmp_path / "cut", (150, 100), Fixed())
    (item,) = made.items
    assert cv2.imread(str(item.image)).shape[:2] == (100, 150)
    # the left die (0..20 px) loses 5 px: 75 % seen, clipped; the right one (180..200)
    # lies wholly outside the window (5..155)
    assert cut == 1
    assert [d.cls for d in item.dice] == [0, 1]
    centre, left = item.dice
    assert (centre.cx, centre.cy, centre.w, centre.h) == pytest.approx(
        (95 / 150, 0.5, 20 / 150, 0.2), abs=1e-5
    )
    assert (left.cx - left.w / 2, left.w) == pytest.approx((0.0, 15 / 150), abs=1e-5)


def test_a_die_seen_less_than_keep_is_not_labelled(tmp_path: Path) -> None:
    source = _one_photo(tmp_path, (LabeledDie(0, 0.05, 0.5, 0.1, 0.2),))  # 0..20 px

    class Fixed(random.Random):
        def randint(self, a: int, b: int) -> int:
            return round(20 * (1 - KEEP)) + 1 if b == 50 else 0  # under KEEP in view

    made, cut = cut_window(source, tmp_path / "cut", (150, 100), Fixed())
    assert made.items[0].dice == () and cut == 0


def test_a_photo_smaller_than_the_window_is_refused(tmp_path: Path) -> None:
    source = _one_photo(tmp_path, ())
    with pytest.raises(ImageReadError, match=r"p\.png: not a photo of 300x100 pixels or more"):
        cut_window(source, tmp_path / "cut", (300, 100), random.Random(1))


@pytest.mark.skipif(not (SHARED / "pi-tray").is_dir(), reason="no shared sets beside the repo")
def test_the_shared_sets_are_cut_alike_for_a_seed(tmp_path: Path) -> None:
    first = cut_edge_sets(SHARED, tmp_path / "a", seed=3)
    again = cut_edge_sets(SHARED, tmp_path / "b", seed=3)
    assert first is not None and again is not None
    assert [name for name, _, _ in first] == list(WINDOWS)
    for (name, train, test), (_, train2, test2) in zip(first, again, strict=True):
        for (made, cut), (made2, cut2) in ((train, train2), (test, test2)):
            assert [i.dice for i in made.items] == [i.dice for i in made2.items] and cut == cut2
            assert cut > 0, f"{name}: some dice lie cut by the window's edge"
            w, h = WINDOWS[name]
            assert cv2.imread(str(made.items[0].image)).shape[:2] == (h, w)
            assert not any(p.is_relative_to(SHARED) for p in made.root.rglob("*"))
    assert load_dataset(tmp_path / "a" / "pi-tray" / "test").names == ("1", "2", "3", "4", "5", "6")


def test_without_the_shared_sets_the_figure_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cut_edge_sets(tmp_path, tmp_path / "made", seed=1) is None
    bench.bench_cut_edges(tmp_path)
    assert capsys.readouterr().out.startswith("dice cut by the edge: skipped (")
