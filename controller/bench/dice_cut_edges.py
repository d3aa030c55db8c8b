"""The dice bench's real photos cut by a smaller window: pi-tray's and catan-webcam's
photos each cut to one window of the same size at a seeded place per photo, so that some
dice lie in part out of the frame, as an owner's photos often show them. The labels are
clipped to the window, as labelling tools clip a box, and a die is labelled when 30 % or
more of its box is in view (a labeller skips a sliver).

The cut photos are written to a folder of the caller's (a temporary one), never beside
the shared sets."""

from __future__ import annotations

import random
from pathlib import Path

import cv2

from controller.bench.dice_two_tables import PI_TRAY_TRAIN
from vision.errors import ImageReadError
from vision.images import write_image
from vision.learning.dataset import Dataset, LabeledImage, load_dataset

KEEP = 0.3  # a die is labelled when this share of its box or more lies in the window
# each set's window (pixels): about 0.7 of its photos' width and height
WINDOWS = {"pi-tray": (2400, 1900), "catan-webcam": (1300, 760)}


def _clipped_rows(item: LabeledImage, size: tuple[int, int], window: tuple[int, int, int, int]
                  ) -> tuple[list[str], int]:  # fmt: skip
    """``item``'s label rows clipped to ``window`` (x, y, width, height in pixels of a photo
    of ``size``), normalised to the window; and how many of them are cut by its edge."""
    w, h = size
    x0, y0, cw, ch = window
    rows: list[str] = []
    cut = 0
    for die in item.dice:
        bx, by, bw, bh = die.box_px(w, h)
        left, top = max(bx, x0), max(by, y0)
        right, bottom = min(bx + bw, x0 + cw), min(by + bh, y0 + ch)
        if right <= left or bottom <= top:
            continue
        seen = (right - left) * (bottom - top) / (bw * bh)
        if seen < KEEP:
            continue
        cut += seen < 0.999
        cx, cy = (left + right) / 2 - x0, (top + bottom) / 2 - y0
        rows.append(f"{die.cls} {cx / cw:.6f} {cy / ch:.6f} {(right - left) / cw:.6f} "
                    f"{(bottom - top) / ch:.6f}")  # fmt: skip
    return rows, cut


def cut_window(
    dataset: Dataset, root: Path, window: tuple[int, int], rng: random.Random
) -> tuple[Dataset, int]:
    """``dataset``'s photos each cut to a ``window`` (width, height) at a place drawn from
    ``rng``, written with their clipped labels to ``root``; with the count of labelled dice
    cut by the window's edge.

    Raises:
        ImageReadError: a photo cannot be decoded, or is smaller than the window.
    """
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir(parents=True)
    cw, ch = window
    cut = 0
    for item in dataset.items:
        image = cv2.imread(str(item.image))
        if image is None or image.shape[1] < cw or image.shape[0] < ch:
            raise ImageReadError(f"{item.image}: not a photo of {cw}x{ch} pixels or more")
        h, w = image.shape[:2]
        x0, y0 = rng.randint(0, w - cw), rng.randint(0, h - ch)
        rows, n = _clipped_rows(item, (w, h), (x0, y0, cw, ch))
        cut += n
        name = item.image.stem
        write_image(root / "images" / f"{name}.jpg", image[y0 : y0 + ch, x0 : x0 + cw],
                    [cv2.IMWRITE_JPEG_QUALITY, 95])  # fmt: skip
        (root / "labels" / f"{name}.txt").write_text("".join(f"{r}\n" for r in rows))
    names = "".join(f"  {k}: {name!r}\n" for k, name in enumerate(dataset.names))
    (root / "data.yaml").write_text(f"# {dataset.root.name} cut to {cw}x{ch}\nnames:\n{names}")
    return load_dataset(root), cut


def cut_edge_sets(
    datasets: Path, root: Path, seed: int
) -> list[tuple[str, tuple[Dataset, int], tuple[Dataset, int]]] | None:
    """pi-tray (its first ``PI_TRAY_TRAIN`` photos to calibrate on, the others to read) and
    catan-webcam (``train/``, ``valid/``), each photo cut to its set's window at a place
    drawn from ``seed``: (name, (train, cut dice), (test, cut dice)) per set; None when a
    shared set is absent.

    Raises:
        DataError: a shared set is malformed.
        ImageReadError: a photo cannot be decoded.
    """
    pi_root, catan_root = datasets / "pi-tray", datasets / "catan-webcam"
    if not (pi_root / "data.yaml").is_file() or not (catan_root / "train").is_dir():
        return None
    pi = load_dataset(pi_root)
    splits = {
        "pi-tray": (
            pi.subset(range(PI_TRAY_TRAIN)),
            pi.subset(range(PI_TRAY_TRAIN, len(pi.items))),
        ),
        "catan-webcam": (load_dataset(catan_root / "train"), load_dataset(catan_root / "valid")),
    }
    rng = random.Random(seed)
    made = []
    for name, (train, test) in splits.items():
        window = WINDOWS[name]
        made.append((
            name,
            cut_window(train, root / name / "train", window, rng),
            cut_window(test, root / name / "test", window, rng),
        ))  # fmt: skip
    return made
