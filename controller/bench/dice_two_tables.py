"""The dice bench's real photos of two tables in one owner's set: pi-tray's and
catan-webcam's photos labelled as one set (an owner who photographed the dice on two
tables, or with two cameras). Their dice lie some 6 steps of size apart, so calibration
takes the set for photos taken by hand and reads each photo at its own dice's size.

The set is made in a folder of the caller's: links to the shared photos (never copies)
and copies of their label files, named after the set they come from."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from vision.learning.dataset import Dataset, load_dataset

PI_TRAY_TRAIN = 14  # pi-tray's photos calibrated on, as the bench's pi-tray figure splits it


def two_tables_set(datasets: Path, root: Path) -> tuple[Dataset, Dataset] | None:
    """pi-tray's first ``PI_TRAY_TRAIN`` photos with catan-webcam's ``train/`` as one set
    to calibrate on (``root / "train"``), and pi-tray's other photos with catan's
    ``valid/`` as one to read (``root / "test"``); None when a shared set is absent.

    Raises:
        DataError: a shared set is malformed.
        ValueError: the two name their faces differently.
    """
    pi_root, catan_root = datasets / "pi-tray", datasets / "catan-webcam"
    if not (pi_root / "data.yaml").is_file() or not (catan_root / "train").is_dir():
        return None
    pi = load_dataset(pi_root)
    catan_train, catan_valid = (
        load_dataset(catan_root / "train"),
        load_dataset(catan_root / "valid"),
    )
    if not pi.names == catan_train.names == catan_valid.names:
        raise ValueError(f"{pi_root} and {catan_root} name their faces differently")
    n = len(pi.items)
    parts = {
        "train": ((pi.subset(range(PI_TRAY_TRAIN)), "pt"), (catan_train, "ct")),
        "test": ((pi.subset(range(PI_TRAY_TRAIN, n)), "pt"), (catan_valid, "ct")),
    }
    made = []
    for split, sets in parts.items():
        images, labels = root / split / "images", root / split / "labels"
        images.mkdir(parents=True)
        labels.mkdir(parents=True)
        for dataset, tag in sets:
            for item in dataset.items:
                os.symlink(item.image.resolve(), images / f"{tag}_{item.image.name}")
                shutil.copyfile(item.label, labels / f"{tag}_{item.label.name}")
        names = "".join(f"  {k}: {name!r}\n" for k, name in enumerate(pi.names))
        (root / split / "data.yaml").write_text(
            f"# pi-tray and catan-webcam in one set (toptable bench dice)\nnames:\n{names}",
            encoding="utf-8",
        )
        made.append(load_dataset(root / split))
    return made[0], made[1]
