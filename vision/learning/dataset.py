"""Labeled dice datasets in the YOLO format, read and checked.

Where the photos, labels and face names are is :mod:`vision.learning.dataset_layout`'s
(this project's ``data.yaml``, ``images/``, ``labels/``; a data.yaml naming its splits;
labelImg's labels beside the photos). Names: ``names`` in the yaml (a list, or a mapping
class id -> name), or one a line in ``classes.txt``. A label file has one line per die:
``class cx cy w h`` normalised to the photo's size, or ``class x1 y1 x2 y2 x3 y3 ...``
(a segmentation's outline or an oriented box's corners: the box around the points).
A photo too small to hold a die (a side under the face cut's, from its header) is a
problem. Every problem is reported at once as a :class:`~controller.core.errors.DataError`
naming the file and line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.core.checked import name_problem
from controller.core.errors import DataError, DataProblem
from controller.core.textfile import unreadable
from vision.images import header_size, suffix_list, undecoded_twin
from vision.learning.dataset_layout import (
    NAME_LISTS,
    YAML_SUFFIXES,
    Layout,
    find_layout,
    photo_folder,
)
from vision.learning.turned_labels import turn_stored_labels
from vision.reading.detect import DIE_FRAC, FACE_DIE_PX

TRAIN_SPLITS = ("train",)  # what calibration reads from a yaml that names its splits
READ_SPLITS = ("val", "test")  # what evaluation reads from one


TOUCH = 0.005  # a box side this near the frame's edge (a share of the frame) touches it: a
# labelling tool clips a box to the frame, a hand may stop it a few pixels short


@dataclass(frozen=True)
class LabeledDie:
    """One labeled die: its class index and its box (cx, cy, w, h) normalised to 0..1."""

    cls: int
    cx: float
    cy: float
    w: float
    h: float

    def touches(self) -> tuple[bool, bool]:
        """Whether the box touches a side edge (left, right) and a top or bottom edge of
        the photo (within ``TOUCH``)."""
        x0, x1 = self.cx - self.w / 2, self.cx + self.w / 2
        y0, y1 = self.cy - self.h / 2, self.cy + self.h / 2
        return x0 <= TOUCH or x1 >= 1 - TOUCH, y0 <= TOUCH or y1 >= 1 - TOUCH

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
    # the first ``first`` photos are the owner's own, before photos added to them (the
    # table's, ``dice calibrate --also``): a calibration over its budget learns them first
    first: int = 0
    # photos whose labels were drawn on them as stored, turned as shown (turned_labels.py)
    turned: int = 0
    pose: bool = False  # a pose set's labels: each line a box, then keypoints

    def subset(self, indices: Sequence[int]) -> Dataset:
        """The same dataset restricted to the images at ``indices`` (in that order)."""
        lead = next((n for n, i in enumerate(indices) if i >= self.first), len(indices))
        items = tuple(self.items[i] for i in indices)
        return Dataset(self.root, self.names, items, lead, self.turned, self.pose)

    @property
    def dice_count(self) -> int:
        """The number of labeled dice."""
        return sum(len(item.dice) for item in self.items)


def _rel(path: Path, root: Path) -> str:
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)


def _read_names(layout: Layout, problems: list[DataProblem]) -> tuple[str, ...]:
    """The face names, from the layout's yaml (``names``: a list, or a mapping id -> name;
    ``nc``, when given, must count them) or its name list (one a line)."""
    path = layout.names_file
    if path is None or not path.is_file():
        shown = path or layout.root / "data.yaml"
        problems.append(
            DataProblem(str(shown), "", "", "missing: a dataset needs data.yaml (or classes.txt)")
        )
        return ()
    if path.suffix not in YAML_SUFFIXES:
        try:
            listed = path.read_text(encoding="utf-8-sig").splitlines()
        except (OSError, UnicodeDecodeError) as exc:
            problems.append(DataProblem(str(path), "", "", unreadable(exc)))
            return ()
        names = tuple(n.strip() for n in listed if n.strip())
        if not names:
            problems.append(DataProblem(str(path), "", "", "expected one face name a line"))
        return _named_once(path, "", names, problems)
    data = layout.data
    if not data:  # (an unreadable yaml was reported when the layout was found)
        return ()
    names = _named_once(path, "names", _yaml_names(path, data.get("names"), problems), problems)
    count = data.get("nc")
    if names and count is not None and count != len(names):
        problems.append(
            DataProblem(str(path), "", "nc", f"{count!r}, but names lists {len(names)} faces")
        )
    return names


def _named_once(
    path: Path, field: str, names: tuple[str, ...], problems: list[DataProblem]
) -> tuple[str, ...]:
    """``names``, or none with a problem for each name that is not one (a NUL character)
    and each name given to two classes: a die read as either would be told to the game as
    the one face (a name copied and not changed)."""
    bad = [(i, why) for i, n in enumerate(names) if (why := name_problem(n)) is not None]
    for i, why in bad:
        problems.append(DataProblem(str(path), "", f"names[{i}]", why))
    if bad:
        return ()
    first: dict[str, int] = {}
    for cls, name in enumerate(names):
        if name in first:
            problems.append(DataProblem(str(path), "", field, (
                f"'{name}' names classes {first[name]} and {cls}: each face needs a name of its own"
            )))  # fmt: skip
        first.setdefault(name, cls)
    return names if len(first) == len(names) else ()


def _yaml_names(path: Path, names: object, problems: list[DataProblem]) -> tuple[str, ...]:
    """The class names of a data.yaml's ``names`` (a list, or a mapping of class ids 0..n-1,
    written as numbers or digits, to names), or none with a problem noted."""
    listed: list[object]
    if isinstance(names, dict):
        ids = {i: v for k, v in names.items() if (i := _class_id(k)) is not None}
        if sorted(ids) != list(range(len(names))):  # an id not a whole number, or twice
            problems.append(
                DataProblem(
                    str(path), "", "names", "class ids must be 0..n-1, each once, with no gap"
                )
            )
            return ()
        listed = [ids[k] for k in range(len(ids))]
    elif isinstance(names, list) and names:
        listed = names
    else:
        problems.append(
            DataProblem(str(path), "", "names", "expected a non-empty list or id -> name mapping")
        )
        return ()
    return tuple(str(n) for n in listed)


def _class_id(key: object) -> int | None:
    """A class id as a data.yaml writes it (``0`` or ``'0'``), or None (``1.5``, ``true``)."""
    if isinstance(key, int) and not isinstance(key, bool):
        return key
    if isinstance(key, str) and key.strip().isdecimal() and key.strip().isascii():
        return int(key)
    return None


def parse_label_file(
    path: Path, n_classes: int, shown_as: str, problems: list[DataProblem], pose: bool = False
) -> tuple[LabeledDie, ...]:
    """Parse one YOLO label file; append a problem per bad line (named ``shown_as``). A
    die labelled twice alike (class and box) is one: Ultralytics' ``verify_image_label``
    (``ultralytics/data/utils.py``, read at its commit 00bfe34) drops such repeated rows."""
    return tuple(die for _, die in label_rows(path, n_classes, shown_as, problems, pose))


def label_rows(
    path: Path, n_classes: int, shown_as: str, problems: list[DataProblem], pose: bool = False
) -> list[tuple[int, LabeledDie]]:
    """Each die of a YOLO label file with its line number (a repeat left out); a problem
    appended per bad line, as :func:`parse_label_file`. ``pose``: the lines are a pose
    set's (its yaml gives ``kpt_shape``): a box, then points that are no outline, which
    Ultralytics' ``verify_image_label`` reads as the first five columns."""
    rows: list[tuple[int, LabeledDie]] = []
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(DataProblem(shown_as, "", "", unreadable(exc)))
        return []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        parts = line.split()[:5] if pose else line.split()
        if len(parts) != 5 and (len(parts) < 7 or len(parts) % 2 == 0):
            problems.append(
                DataProblem(
                    shown_as,
                    where,
                    "",
                    "expected 5 numbers (class cx cy w h) or a class and 3 or more points "
                    f"(class x1 y1 x2 y2 x3 y3 ...), got {len(parts)}",
                )
            )
            continue
        try:
            cls_f = float(parts[0])
            values = [float(p) for p in parts[1:]]
        except ValueError:
            problems.append(DataProblem(shown_as, where, "", f"not a number in {line.strip()!r}"))
            continue
        if not cls_f.is_integer() or not 0 <= cls_f < n_classes:
            why = "is outside names" if cls_f.is_integer() else "is not a whole number of names"
            problems.append(
                DataProblem(shown_as, where, "class", f"{parts[0]} {why} (0..{n_classes - 1})")
            )
            continue
        box = label_box(values)
        if box is None:
            what = "cx cy w h" if len(values) == 4 else "the points"
            problems.append(
                DataProblem(shown_as, where, "box", f"{what} must be normalised to 0..1")
            )
            continue
        die = LabeledDie(int(cls_f), *box)
        if all(die != d for _, d in rows):  # a line repeated is one die (as Ultralytics)
            rows.append((number, die))
    return rows


# Ultralytics takes coordinates up to 1 % outside the photo (verify_image_label in
# ultralytics/data/utils.py, read at its commit 00bfe34): a box a labelling tool drew to
# the photo's very edge may come out at 1.0000001 or 1.004
EDGE_TOLERANCE = 0.01
ROUNDING = 1e-5  # a 6-decimal label file's rounding, and a little more


def label_box(values: Sequence[float]) -> tuple[float, float, float, float] | None:
    """A label line's box (cx, cy, w, h) from its numbers after the class: a box, or a
    polygon (a segmentation's outline, an oriented box's four corners) taken as the box
    around its points, as Ultralytics' ``segments2boxes`` does, cut to the photo
    (:func:`in_photo`); None when a number lies more than ``EDGE_TOLERANCE`` outside 0..1
    or the box is empty."""
    lo, hi = -EDGE_TOLERANCE, 1.0 + EDGE_TOLERANCE
    if not all(math.isfinite(v) and lo <= v <= hi for v in values):
        return None
    if len(values) == 4:
        cx, cy, w, h = values
    else:
        xs, ys = values[0::2], values[1::2]
        cx, cy, w, h = (
            (min(xs) + max(xs)) / 2,
            (min(ys) + max(ys)) / 2,
            max(xs) - min(xs),
            max(ys) - min(ys),
        )
    if w <= 0 or h <= 0:
        return None
    return in_photo(cx, cy, w, h)


def in_photo(cx: float, cy: float, w: float, h: float) -> tuple[float, float, float, float]:
    """The part of a normalised box inside the photo: a box drawn past the edge (a die in
    part out of view, its hidden part guessed) is the part seen, as tools that clip their
    boxes write it. A box past the edge by no more than a file's rounding, or with no part
    inside (a sliver drawn on the edge), stays as it is."""
    x0, x1, y0, y1 = cx - w / 2, cx + w / 2, cy - h / 2, cy + h / 2
    if min(x0, y0) >= -ROUNDING and max(x1, y1) <= 1.0 + ROUNDING:
        return (cx, cy, w, h)
    x0, y0, x1, y1 = max(x0, 0.0), max(y0, 0.0), min(x1, 1.0), min(y1, 1.0)
    if x1 - x0 <= ROUNDING or y1 - y0 <= ROUNDING:
        return (cx, cy, w, h)
    return ((x0 + x1) / 2, (y0 + y1) / 2, x1 - x0, y1 - y0)


def _too_small(image: Path) -> str | None:
    """Why the photo ``image`` cannot hold a die, from its header (None: it can, or its
    header is not read here: decoding it says what is wrong)."""
    from PIL import Image  # loaded when a photo is opened, as vision.images loads it

    try:
        size = header_size(image)
    except Image.DecompressionBombError:  # far from small: refused when it is decoded
        return None
    if size is None or min(size) >= FACE_DIE_PX:
        return None
    return (
        f"a {size[0]}x{size[1]} photo is too small to hold a die: its sides must be at least "
        f"{FACE_DIE_PX:.0f} px, the side a die's face is read at (a camera's photo is "
        "about 1280x960 or larger)"
    )


# a box this many times larger (its area's side) or smaller (its longer side) than the
# median die is no die: dice of one table differ far less, by distance and perspective;
# nor is a box larger than the reader's largest die (DIE_FRAC)
ODD_SIZE = 8.0


def _odd_sizes(
    items: Sequence[LabeledImage], lines: Sequence[tuple[str, list[int]]]
) -> list[DataProblem]:
    """A problem for each labelled box ``ODD_SIZE`` times larger or smaller than the
    dataset's median die, or larger than the reader's largest (``DIE_FRAC``): a box
    around several dice or the tray, or around a pip, that calibration would learn as a
    die. ``lines``: each item's label file name and its dice's line numbers."""
    sides = [math.sqrt(d.w * d.h) for item in items for d in item.dice]
    if len(sides) < 3:
        return []
    median = sorted(sides)[len(sides) // 2]
    if median > DIE_FRAC[1]:  # every box: calibration names the dataset (with_labelled_size)
        return []
    out: list[DataProblem] = []
    for item, (shown_as, numbers) in zip(items, lines, strict=True):
        for die, number in zip(item.dice, numbers, strict=True):
            side = math.sqrt(die.w * die.h)
            small = median / max(die.w, die.h)
            if side / median >= ODD_SIZE or side > DIE_FRAC[1]:
                how = f"{side / median:.1f} times the median die ({median:.4f})"
                if side > DIE_FRAC[1]:
                    how += f", over the largest die the reader takes ({DIE_FRAC[1]:g})"
            elif small >= ODD_SIZE and not any(die.touches()):  # not a die cut by the edge
                how = f"{small:.0f} times smaller than the median die ({median:.4f})"
            else:
                continue
            out.append(DataProblem(shown_as, f"line {number}", "box", (
                f"{die.w:.4f} x {die.h:.4f} of the photo is {how}: a box holds one die "
                "(not several dice, the tray or a pip)"
            )))  # fmt: skip
    return out


def load_dataset(
    root: str | Path, split: str | None = None, splits: Sequence[str] = TRAIN_SPLITS
) -> Dataset:
    """Read and check a labeled dataset: ``root`` is its folder or its yaml, in any layout of
    :mod:`vision.learning.dataset_layout`; ``split`` the split to read (else the folder's
    own ``images/``, or the first of ``splits`` its yaml names).

    Raises:
        DataError: the names, photos or labels are missing or malformed (all problems).
    """
    root = Path(root)
    problems: list[DataProblem] = []
    if not root.is_dir() and not (root.is_file() and root.suffix in YAML_SUFFIXES):
        raise DataError.single(str(root), "", "", "no such dataset folder")
    layout = find_layout(root, split, splits, problems)
    root = layout.root
    names = _read_names(layout, problems)
    if not layout.images and all(p.file != layout.looked_in[0] for p in problems):
        problems.append(
            DataProblem(
                layout.looked_in[0], "", layout.looked_in[1], f"no images ({suffix_list()})"
            )
        )
    items: list[LabeledImage] = []
    lines: list[tuple[str, list[int]]] = []  # each label file's name and its dice's lines
    pose = bool(layout.data.get("kpt_shape"))  # a pose set: each line a box, then points
    for image, label in zip(layout.images, layout.labels, strict=True):
        if not label.is_file():
            problems.append(
                DataProblem(_rel(image, root), "", "", f"no label file {_rel(label, root)}")
            )
            continue
        too_small = _too_small(image)
        if too_small is not None:
            problems.append(DataProblem(_rel(image, root), "", "", too_small))
        rows = label_rows(label, len(names) or 10**9, _rel(label, root), problems, pose)
        items.append(LabeledImage(image, label, tuple(die for _, die in rows)))
        lines.append((_rel(label, root), [number for number, _ in rows]))
    expected = set(layout.labels)
    for folder in layout.label_dirs:
        if not folder.is_dir():
            continue
        for label in sorted(folder.glob("*.txt")):
            if label not in expected and label.name not in NAME_LISTS:
                photos = photo_folder(label.parent)
                why = undecoded_twin(photos, label.stem) or suffix_list()
                problems.append(
                    DataProblem(
                        _rel(label, root),
                        "",
                        "",
                        f"no image {_rel(photos, root)}/{label.stem}.* ({why}): its dice would "
                        "be skipped",
                    )
                )
    problems += _odd_sizes(items, lines)
    if problems:
        raise DataError(problems)
    items, turned = turn_stored_labels(items)
    return Dataset(root, names, tuple(items), turned=turned, pose=pose)
