"""The bench's two tables in one set: pi-tray's and catan-webcam's photos, linked (never
copied) with their labels, split as the bench's own figures split each."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from controller.bench import dice as bench
from controller.bench.dice_two_tables import PI_TRAY_TRAIN, two_tables_set
from tests.paths import REPO
from vision.learning.dataset import load_dataset

SHARED = REPO.parent / "shared" / "datasets"
needs_shared = pytest.mark.skipif(
    not (SHARED / "pi-tray").is_dir() or not (SHARED / "catan-webcam").is_dir(),
    reason="the shared datasets are not beside the repository",
)


@needs_shared
def test_the_set_holds_both_tables_photos_linked_with_their_labels(tmp_path: Path) -> None:
    made = two_tables_set(SHARED, tmp_path)
    assert made is not None
    train, test = made
    pi = load_dataset(SHARED / "pi-tray")
    catan = {split: load_dataset(SHARED / "catan-webcam" / split) for split in ("train", "valid")}
    assert train.names == test.names == pi.names
    by_table = Counter(item.image.name[:2] for item in train.items)
    assert by_table == {"pt": PI_TRAY_TRAIN, "ct": len(catan["train"].items)}
    assert Counter(item.image.name[:2] for item in test.items) == {
        "pt": len(pi.items) - PI_TRAY_TRAIN,
        "ct": len(catan["valid"].items),
    }
    originals = {item.image.resolve(): item for d in (pi, *catan.values()) for item in d.items}
    for item in (*train.items, *test.items):
        assert item.image.is_symlink()  # the shared photos are linked, never copied
        assert item.dice == originals[item.image.resolve()].dice


def test_without_the_shared_sets_the_figure_is_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert two_tables_set(tmp_path, tmp_path / "made") is None
    bench.bench_two_tables(tmp_path)
    assert capsys.readouterr().out.startswith("two tables in one set: skipped (")
