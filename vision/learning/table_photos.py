"""Throws played at the table, kept as labelled photos the next calibration learns from.

Every settled throw's frame is kept as evidence, its dice boxes beside it
(:mod:`vision.reading.evidence`), and the game's journal says which faces the table
settled on: the faces read sure, which the players let stand, and the faces they answered
or corrected. :func:`write_table_photos` turns such throws into a labelled set in this
project's own layout (``images/``, ``labels/``, ``data.yaml``), which
``toptable dice calibrate OWNER_PHOTOS --also TABLE_PHOTOS`` learns from beside the owner's
own photos (:func:`joined`). A table of few dice, whose twenty calibration photos hold few
labelled dice, asks less and misreads less once its played throws are learned
(docs/decisions/vision.md, "Throws played at the table, learned").

A throw is left out, with its reason, when its dice cannot each be given a face: the reader
found more or fewer dice than were thrown, a die leaned (cocked), the frame or its boxes are
gone or do not agree. The folder written holds only such photos: one holding anything else
(the owner's own photos) is refused, never written over.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from controller.core.checked import name_key
from controller.core.errors import DataError, DataProblem
from controller.core.pathkind import is_file
from controller.core.quoting import printable
from vision.errors import DatasetWriteError
from vision.images import header_size
from vision.learning.dataset import Dataset, LabeledDie, LabeledImage
from vision.learning.dataset_layout import write_data_yaml
from vision.learning.same_faces import check_same_faces
from vision.own_folder import check_own_folder, made_with_line
from vision.reading.evidence import read_boxes

MADE_BY = "toptable dice table-photos"


@dataclass(frozen=True)
class PlayedThrow:
    """One throw the table settled on: its evidence frame and the faces, die by die in the
    order the camera read them (as the journal keeps them)."""

    frame: Path
    faces: tuple[str, ...]
    game: str = ""  # the game's id: photos of several games keep apart names


@dataclass
class TablePhotos:
    """What :func:`write_table_photos` wrote and what it left out (each with why)."""

    folder: Path
    photos: int = 0
    dice: int = 0
    left_out: list[tuple[Path, str]] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The summary a person reads: the counts, then each throw left out."""
        out = [f"wrote {self.photos} photos ({self.dice} dice) to {self.folder}"]
        if self.left_out:
            out.append(f"left out {len(self.left_out)} throws:")
            out.extend(f"  {printable(str(frame))}: {why}" for frame, why in self.left_out)
        return out


def write_table_photos(
    throws: Iterable[PlayedThrow], names: Sequence[str], folder: Path
) -> TablePhotos:
    """Write each of ``throws`` as a labelled photo in ``folder`` (made if need be; a photo
    written before is written again, so running it twice adds nothing twice).

    Raises:
        DataError: ``folder`` holds files this command did not write (the owner's own
            photos: they are never written over), or a set of other faces.
        DatasetWriteError: a photo or its labels cannot be written (the path is named;
            the photos written before it stay).
    """
    check_own_folder(
        folder,
        made_with_line(MADE_BY),
        MADE_BY,
        hint=", and learn both with `dice calibrate YOUR_PHOTOS --also FOLDER`",
    )
    check_same_faces(folder, names, "give another folder")
    images, labels = folder / "images", folder / "labels"
    try:
        images.mkdir(parents=True, exist_ok=True)
        labels.mkdir(exist_ok=True)
        write_data_yaml(folder, names, MADE_BY)
    except OSError as exc:
        raise DatasetWriteError(f"{folder}: cannot be written ({exc.strerror or exc})") from None
    report = TablePhotos(folder)
    index = {name: i for i, name in enumerate(names)}
    for throw in throws:
        lines, why = _label_lines(throw, index)
        if lines is None:
            report.left_out.append((throw.frame, why))
            continue
        stem = f"{throw.game[:12]}_{throw.frame.stem}" if throw.game else throw.frame.stem
        photo = images / f"{stem}{throw.frame.suffix}"
        try:
            _link_or_copy(throw.frame, photo)
            (labels / f"{stem}.txt").write_text("".join(lines), encoding="utf-8")
        except OSError as exc:
            raise DatasetWriteError(
                f"{photo}: cannot be written ({exc.strerror or exc}); "
                f"{report.photos} photos were written before it"
            ) from None
        report.photos += 1
        report.dice += len(lines)
    return report


def _link_or_copy(source: Path, target: Path) -> None:
    """``target`` made the same file as ``source``: a hard link (no second copy on the
    card), else a copy (another file system)."""
    target.unlink(missing_ok=True)
    try:
        os.link(source, target)
    except OSError:
        shutil.copyfile(source, target)


def _label_lines(throw: PlayedThrow, index: dict[str, int]) -> tuple[list[str] | None, str]:
    """The throw's label lines (``class cx cy w h``), or None and why it is left out."""
    if not is_file(throw.frame):  # (a name no file can have, too long: gone too)
        return None, "the frame is gone"
    try:
        kept = read_boxes(throw.frame)
    except FileNotFoundError:
        return None, "no dice boxes beside it (a frame kept by an older toptable)"
    except DataError as exc:
        return None, str(exc)
    if len(kept.boxes) != len(throw.faces):
        return None, (
            f"{len(throw.faces)} dice settled on but {len(kept.boxes)} found in the frame "
            "(the reader found more or fewer dice than were thrown): which face lay where "
            "is not known"
        )
    leaning = [i + 1 for i, face in enumerate(kept.read) if face is None]
    if leaning:
        return None, f"die {leaning[0]} leaned (cocked): no flat face to learn"
    frame_size = header_size(throw.frame)
    if frame_size != kept.size:
        return None, (
            f"the frame is {_size_text(frame_size)}, but its boxes are of a "
            f"{kept.size[0]}x{kept.size[1]} frame"
        )
    unknown = sorted({face for face in throw.faces if face not in index})
    if unknown:
        return None, f"faces {', '.join(unknown)} are not of this face set ({', '.join(index)})"
    w, h = kept.size
    lines = []
    for face, (x, y, bw, bh) in zip(throw.faces, kept.boxes, strict=True):
        cx, cy = (x + bw / 2) / w, (y + bh / 2) / h
        lines.append(f"{index[face]} {cx:.6f} {cy:.6f} {bw / w:.6f} {bh / h:.6f}\n")
    return lines, ""


def _size_text(size: tuple[int, int] | None) -> str:
    return "not an image" if size is None else f"{size[0]}x{size[1]}"


def joined(first: Dataset, *more: Dataset) -> Dataset:
    """``first`` with the photos of ``more`` added, their classes matched by face name (in
    any case; the first set's names and folder are kept: its face set is the model's), the
    first set's photos learned first where calibration's budget cannot take them all.

    Raises:
        DataError: a set labels a die with a face ``first`` does not name.
    """
    items = list(first.items)
    index = {name_key(name): i for i, name in enumerate(first.names)}
    problems: list[DataProblem] = []
    for other in more:
        used = sorted({die.cls for item in other.items for die in item.dice})
        strange = [other.names[c] for c in used if name_key(other.names[c]) not in index]
        if strange:
            problems.append(
                DataProblem(
                    str(other.root),
                    "",
                    "names",
                    f"faces {', '.join(strange)} are not among {first.root}'s "
                    f"({', '.join(first.names)})",
                )
            )
            continue
        remap = [index.get(name_key(name), -1) for name in other.names]  # -1: none shows it
        items.extend(
            LabeledImage(
                item.image,
                item.label,
                tuple(
                    LabeledDie(remap[die.cls], die.cx, die.cy, die.w, die.h) for die in item.dice
                ),
            )
            for item in other.items
        )
    if problems:
        raise DataError(problems)
    return Dataset(
        first.root, first.names, tuple(items), len(first.items), first.turned, first.pose
    )
