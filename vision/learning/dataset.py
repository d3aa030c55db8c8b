"""Labeled dice datasets in the YOLO layout, read and checked.

Layout: ``data.yaml`` with ``names`` (a list, or a mapping class id -> name),
``images/*.jpg|png``, ``labels/<same stem>.txt`` with one ``class cx cy w h``
line per die, normalised to the image size. Every problem is reported at once
as a :class:`~controller.core.errors.DataError` naming the file and line.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import yaml

from controller.core.errors import DataError, DataProblem
from vision.images import IMAGE_SUFFIXES


@dataclass(frozen=True)
class LabeledDie:
    """One labeled die: its class index and its box (cx, cy, w, h) normalised to 0..1."""

    cls: int
    cx: float
    cy: float
    w: float
    h: float

    def box_px(self, width: int, height: int) -> tuple[float, float, float, float]:
        """The box as (x, y, w, h) in pixels of an image of that size."""
        return (
            (self.cx - self.w / 2) * width,
            (self.cy - self.h / 2) * height,
            self.w * width,
            self.h * height,
        )


@dataclass(frozen=True)
class LabeledImage:
    """One photo and its labeled dice."""

    image: Path
    label: Path
    dice: tuple[LabeledDie, ...]


@dataclass(frozen=True)
class Dataset:
    """A checked dataset: face names (class index order) and its labeled images."""

    root: Path
    names: tuple[str, ...]
    items: tuple[LabeledImage, ...]

    def subset(self, indices: Sequence[int]) -> Dataset:
        """The same dataset restricted to the images at ``indices``."""
        return Dataset(self.root, self.names, tuple(self.items[i] for i in indices))

    @property
    def dice_count(self) -> int:
        """The number of labeled dice."""
        return sum(len(item.dice) for item in self.items)


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _read_names(root: Path, problems: list[DataProblem]) -> tuple[str, ...]:
    yaml_path = root / "data.yaml"
    if not yaml_path.is_file():
        problems.append(DataProblem(str(yaml_path), "", "", "missing: a dataset needs data.yaml"))
        return ()
    try:
        data = yaml.safe_load(yaml_path.read_text(encoding="utf-8"))
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        problems.append(DataProblem(str(yaml_path), "", "", f"not valid YAML: {exc}"))
        return ()
    names = data.get("names") if isinstance(data, dict) else None
    if isinstance(names, dict):
        try:
            keys = sorted(int(k) for k in names)
        except (TypeError, ValueError):
            keys = []
        if keys != list(range(len(names))):
            problems.append(
                DataProblem(str(yaml_path), "", "names", "class ids must be 0..n-1 with no gap")
            )
            return ()
        return tuple(str(names[k] if k in names else names[str(k)]) for k in keys)
    if isinstance(names, list) and names:
        return tuple(str(n) for n in names)
    problems.append(
        DataProblem(str(yaml_path), "", "names", "expected a non-empty list or id -> name mapping")
    )
    return ()


def parse_label_file(
    path: Path, n_classes: int, shown_as: str, problems: list[DataProblem]
) -> tuple[LabeledDie, ...]:
    """Parse one YOLO label file; append a problem per bad line (named ``shown_as``)."""
    dice: list[LabeledDie] = []
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(DataProblem(shown_as, "", "", f"cannot read: {exc}"))
        return ()
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        parts = line.split()
        if len(parts) != 5:
            problems.append(
                DataProblem(
                    shown_as,
                    where,
                    "",
                    f"expected 5 numbers (class cx cy w h), got {len(parts)}",
                )
            )
            continue
        try:
            cls_f = float(parts[0])
            cx, cy, w, h = (float(p) for p in parts[1:])
        except ValueError:
            problems.append(DataProblem(shown_as, where, "", f"not a number in {line.strip()!r}"))
            continue
        if cls_f != int(cls_f) or not 0 <= int(cls_f) < n_classes:
            problems.append(
                DataProblem(
                    shown_as,
                    where,
                    "class",
                    f"{parts[0]} is outside names (0..{n_classes - 1})",
                )
            )
            continue
        if not all(0.0 <= v <= 1.0 for v in (cx, cy, w, h)) or w <= 0 or h <= 0:
            problems.append(
                DataProblem(shown_as, where, "box", "cx cy w h must be normalised to 0..1")
            )
            continue
        dice.append(LabeledDie(int(cls_f), cx, cy, w, h))
    return tuple(dice)


def load_dataset(root: str | Path) -> Dataset:
    """Read and check a YOLO-layout dataset.

    Raises:
        DataError: data.yaml, images or labels are missing or malformed (all problems).
    """
    root = Path(root)
    problems: list[DataProblem] = []
    if not root.is_dir():
        raise DataError.single(str(root), "", "", "no such dataset folder")
    names = _read_names(root, problems)
    images_dir, labels_dir = root / "images", root / "labels"
    images: list[Path] = []
    if not images_dir.is_dir():
        problems.append(DataProblem(str(images_dir), "", "", "missing images/ folder"))
    else:
        images = sorted(p for p in images_dir.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not images:
            problems.append(DataProblem(str(images_dir), "", "", "no images (jpg, png, bmp)"))
    items: list[LabeledImage] = []
    for image in images:
        label = labels_dir / f"{image.stem}.txt"
        if not label.is_file():
            problems.append(
                DataProblem(_rel(image, root), "", "", f"no label file {_rel(label, root)}")
            )
            continue
        dice = parse_label_file(label, len(names) or 10**9, _rel(label, root), problems)
        items.append(LabeledImage(image, label, dice))
    if labels_dir.is_dir():
        stems = {image.stem for image in images}
        for label in sorted(labels_dir.glob("*.txt")):  # (classes.txt: names, from labelImg)
            if label.stem not in stems and label.name != "classes.txt":
                problems.append(
                    DataProblem(
                        _rel(label, root),
                        "",
                        "",
                        f"no image {_rel(images_dir, root)}/"
                        f"{label.stem}.* ({', '.join(IMAGE_SUFFIXES)}): its dice would be skipped",
                    )
                )
    if problems:
        raise DataError(problems)
    return Dataset(root, names, tuple(items))
