"""Where a labeled dataset's photos, labels and face names lie, in the layouts that
labelling tools write.

Five layouts are read:

- **This project's own** (``toptable dice capture``, the shared sets): a folder with
  ``data.yaml``, ``images/`` and ``labels/`` (``labels/<photo's stem>.txt``).
- **A data.yaml that names its splits** (Ultralytics' layout; Roboflow's and CVAT's
  YOLO exports): ``train:``, ``val:``, ``test:`` each a folder of photos (searched
  through its subfolders), a ``.txt`` file listing photos, or a list of these, relative
  to the yaml's ``path:`` (itself relative to the yaml's folder) or else to the yaml's
  folder. A photo's labels are where Ultralytics looks for them (``img2label_paths`` in
  ultralytics/data/utils.py, read at its commit 00bfe34): its path with the last
  ``images`` folder read as ``labels`` and ``.txt`` for its suffix; a photo under no
  ``images`` folder has its labels beside it. An entry that does not exist and starts
  with ``../`` is tried without it, as Ultralytics' ``check_det_dataset`` does (Roboflow
  writes ``../train/images`` in a data.yaml that sits beside ``train/``). Two differences,
  both where Ultralytics' reading depends on the shell's folder: a relative ``path:`` is
  taken from the yaml's folder (Ultralytics: the current folder, then its datasets
  folder), and every relative line of a ``.txt`` list from the list's folder
  (Ultralytics: only lines starting ``./``).
- **labelImg's**: the photos and their labels in one folder, the names in
  ``classes.txt`` (or ``obj.names``, Darknet's) when there is no yaml.
- **Label Studio's YOLO export**: this project's ``images/`` and ``labels/`` with the
  names in ``classes.txt`` beside them (or in ``labels/``) instead of a yaml.
- **CVAT's "YOLO 1.1" export** (Darknet's layout): ``obj.names``, ``obj.data`` and a
  folder ``obj_train_data/`` (``obj_valid_data/``...) of photos with their labels beside.

Which split is read: the one asked for; else the folder's own ``images/`` when it has
one; else the first of the caller's splits the yaml names (calibration: ``train``;
evaluation: ``val``, then ``test``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from controller.core.errors import DataProblem
from controller.core.quoting import printable, short_repr
from controller.core.textfile import unreadable
from vision.images import is_photo, photos_here
from vision.own_folder import made_with_line

YAML_SUFFIXES = (".yaml", ".yml")
NAME_LISTS = ("classes.txt", "obj.names")  # labelImg's, Darknet's: one face name a line


@dataclass(frozen=True)
class Layout:
    """Where one dataset's parts lie: ``root`` (files are named against it), the file the
    face names come from (None: none found) and the yaml's contents, the photos and, for
    each, its label file, the folders whose label files must each have a photo, and where
    the photos were looked for (a file and a field, for a message)."""

    root: Path
    names_file: Path | None
    data: dict[str, Any]
    images: tuple[Path, ...]
    labels: tuple[Path, ...]
    label_dirs: tuple[Path, ...]
    looked_in: tuple[str, str]


def _swap_last(folder: Path, old: str, new: str) -> Path:
    """``folder`` with its last part named ``old`` named ``new`` (as it is if none is)."""
    parts = list(folder.parts)
    for i in range(len(parts) - 1, -1, -1):
        if parts[i] == old:
            parts[i] = new
            return Path(*parts)
    return folder


def label_path(image: Path) -> Path:
    """Where a photo's labels are: its path with the last ``images`` folder read as
    ``labels`` and ``.txt`` for its suffix (beside it when under no ``images`` folder)."""
    return _swap_last(image.parent, "images", "labels") / (image.stem + ".txt")


def photo_folder(label_folder: Path) -> Path:
    """Where the photos of the labels in ``label_folder`` are (``label_path`` undone)."""
    return _swap_last(label_folder, "labels", "images")


NOT_PHOTOS = ("@eaDir",)
"""Folders of thumbnails a NAS writes beside photos (Synology's), never the owner's."""


def photos_in(folder: Path, deep: bool, skip: Sequence[str] = ()) -> list[Path]:
    """The photos in ``folder`` (and its subfolders when ``deep``, symlinked ones too, as
    Ultralytics' recursive ``glob`` reads them; not those of its own named in ``skip``),
    sorted."""
    if not deep:
        return photos_here(folder)
    found: list[Path] = []
    seen: set[str] = set()  # a symlink back up the tree is walked once
    for top, dirs, files in os.walk(folder, followlinks=True):
        real = os.path.realpath(top)
        if real in seen:
            dirs[:] = []
            continue
        seen.add(real)
        # not hidden ones (a glob's ** skips them: .picasaoriginals) nor a NAS's thumbnails
        dirs[:] = [d for d in dirs if not d.startswith(".") and d not in NOT_PHOTOS]
        if Path(top) == folder:
            dirs[:] = [d for d in dirs if d not in skip]
        found += [Path(top) / f for f in files if not f.startswith(".")]
    return sorted(p for p in found if is_photo(p) and p.is_file())


def find_yaml(root: Path) -> Path | None:
    """The dataset's yaml: ``data.yaml``, else the only ``*.yaml``/``*.yml`` in ``root``."""
    if (root / "data.yaml").is_file():
        return root / "data.yaml"
    found = sorted(p for p in root.iterdir() if p.suffix in YAML_SUFFIXES and p.is_file())
    return found[0] if len(found) == 1 else None


class _KeyTwice(yaml.constructor.ConstructorError):
    """A mapping gives one key twice: the key (as shown) and its two lines (1-based)."""

    def __init__(self, key: str, first: int, again: int) -> None:
        super().__init__(problem=f"key {key} given twice")
        self.key, self.first, self.again = key, first, again


class _UniqueKeyLoader(yaml.SafeLoader):
    """PyYAML's safe loader refusing a key given twice in one mapping, which it would
    take silently, the later value winning (a merge key's ``<<:`` values may still be
    overridden: that is what a merge is for)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        """The mapping; raises :class:`_KeyTwice` at the first key given again."""
        seen: dict[Any, int] = {}
        for key_node, _ in node.value:
            if key_node.tag == "tag:yaml.org,2002:merge":
                continue
            key = self.construct_object(key_node, deep=True)
            line = key_node.start_mark.line + 1
            try:
                if key in seen:
                    raise _KeyTwice(short_repr(key), seen[key], line)
                seen[key] = line
            except TypeError:  # an unhashable key: PyYAML's own error says so
                continue
        return super().construct_mapping(node, deep=deep)


def read_yaml(path: Path, problems: list[DataProblem]) -> dict[str, Any]:
    """The yaml's mapping ({} after a problem is noted: one line, at the line and column
    where PyYAML stopped, as a label file's problems are; a key given twice in one
    mapping, at its second line, naming the key and its first line)."""
    try:
        data = yaml.load(path.read_text(encoding="utf-8-sig"), Loader=_UniqueKeyLoader)
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(DataProblem(str(path), "", "", unreadable(exc)))
        return {}
    except _KeyTwice as exc:
        problems.append(DataProblem(str(path), f"line {exc.again}", "", (
            f"key {exc.key} given twice (first on line {exc.first}): "
            "expected each key once, else the later one silently wins"
        )))  # fmt: skip
        return {}
    except yaml.YAMLError as exc:
        problems.append(_yaml_problem(path, exc))
        return {}
    except (ValueError, OverflowError, RecursionError) as exc:  # a value PyYAML cannot build:
        # a date past the calendar (2001-13-45: datetime's ValueError), nesting too deep
        why = printable(str(exc), 200) if str(exc) else type(exc).__name__
        problems.append(DataProblem(str(path), "", "", f"not valid YAML: {why}"))
        return {}
    if not isinstance(data, dict):
        problems.append(DataProblem(str(path), "", "", "expected a mapping (names: ...)"))
        return {}
    return data


def _yaml_problem(path: Path, exc: yaml.YAMLError) -> DataProblem:
    """PyYAML's error as one line: its ``MarkedYAMLError`` (``yaml/error.py``, PyYAML 6)
    carries the mark where parsing stopped (0-based line and column) and the problem,
    where ``str(exc)`` spans several lines and names the text "<unicode string>"."""
    mark = getattr(exc, "problem_mark", None)
    problem = getattr(exc, "problem", None) or " ".join(str(exc).split())
    where = f"line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
    return DataProblem(str(path), where, "", f"not valid YAML: {problem}")


def _split_photos(
    yaml_path: Path, data: dict[str, Any], split: str, problems: list[DataProblem]
) -> list[Path]:
    """The photos the yaml's ``split`` entry names (a problem for each entry not found)."""
    base = yaml_path.parent
    if isinstance(data.get("path"), str) and data["path"]:
        base = base / data["path"]
    value = data.get(split)
    entries = value if isinstance(value, list) else [value]
    photos: list[Path] = []
    for entry in entries:
        if not isinstance(entry, str) or not entry:
            problems.append(
                DataProblem(
                    str(yaml_path), "", split, f"expected a folder or a list of them, got {entry!r}"
                )
            )
            continue
        where = base / entry
        try:  # Python 3.11's Path.exists and is_* raise for a name too long to be a file's
            if not where.exists() and entry.startswith("../"):
                where = base / entry[3:]
            folder, listed = where.is_dir(), where.is_file() and where.suffix == ".txt"
        except OSError as exc:
            problems.append(DataProblem(str(yaml_path), "", split, f"{where}: {exc.strerror}"))
            continue
        if folder:
            photos += photos_in(where, deep=True)
        elif listed:
            photos += _listed(where, problems)
        else:
            problems.append(
                DataProblem(str(yaml_path), "", split, f"{entry}: no such folder ({where})")
            )
    return photos


def _listed(path: Path, problems: list[DataProblem]) -> list[Path]:
    """The photos a ``.txt`` list names, one a line (relative lines: from its folder)."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        problems.append(DataProblem(str(path), "", "", unreadable(exc)))
        return []
    out = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        photo = path.parent / line.strip()
        try:
            there = photo.is_file()
        except OSError as exc:  # a name too long to be a file's
            problems.append(DataProblem(str(path), f"line {number}", "", str(exc.strerror)))
            continue
        if not there:
            problems.append(DataProblem(str(path), f"line {number}", "", "no such photo"))
            continue
        out.append(photo)
    return out


def _name_list(*folders: Path) -> Path | None:
    """The first list of face names (``NAME_LISTS``) in ``folders``: beside the photos
    (labelImg), at the export's root (Label Studio's YOLO export: ``classes.txt``,
    ``images/``, ``labels/``, ``notes.json``) or in ``labels/`` (where labelImg saves it
    when its labels go there)."""
    return next((f / n for f in folders for n in NAME_LISTS if (f / n).is_file()), None)


SPLIT_NAMES = {"train": ("train",), "val": ("val", "valid", "validation"), "test": ("test",)}
"""The folder names each split goes by (Ultralytics', Roboflow's, CVAT's as named in its
UI), by the yaml key that names it."""


def _split_folders(data: dict[str, Any]) -> list[str]:
    """The names of folders that hold a split: the usual ones, and the last folder of each
    entry a yaml gives its splits."""
    usual = [name for names in SPLIT_NAMES.values() for name in names]
    named = [data.get(k) for k in SPLIT_NAMES]
    entries = [e for v in named for e in (v if isinstance(v, list) else [v])]
    return [*usual, *(Path(e).name for e in entries if isinstance(e, str) and e)]


def _darknet_folder(root: Path, split: str | None, splits: Sequence[str]) -> Path | None:
    """The photos' folder of CVAT's "YOLO 1.1" (Darknet) export: ``obj.names``, ``obj.data``
    and a folder ``obj_<subset>_data/`` a subset (``obj_Train_data``, as named in CVAT),
    its labels beside its photos; the subset asked for, else the first of ``splits`` it
    has."""
    if not (root / "obj.names").is_file():
        return None
    subsets = {
        p.name[4:-5].casefold(): p
        for p in root.iterdir()
        if p.is_dir() and p.name.casefold().startswith("obj_") and p.name.endswith("_data")
    }
    for name in [split] if split is not None else splits:
        for subset in SPLIT_NAMES.get(name.casefold(), (name.casefold(),)):
            if subset in subsets:
                return subsets[subset]
    return None


def find_layout(
    given: Path, split: str | None, splits: Sequence[str], problems: list[DataProblem]
) -> Layout:
    """Where the dataset at ``given`` (its folder or its yaml) keeps its photos, labels and
    names: ``split`` when asked for, else as the module notes say (``splits`` in order).
    Problems found are appended; the layout may then hold no photo."""
    root = given.parent if given.is_file() else given
    yaml_path = given if given.is_file() else find_yaml(root)
    data = read_yaml(yaml_path, problems) if yaml_path else {}
    own = root / "images"
    named = [s for s in splits if data.get(s)]
    if split is None and own.is_dir() and (not named or photos_in(own, deep=False)):
        # its subfolders too (a day's photos kept apart), not a split's (held out)
        photos = photos_in(own, deep=True, skip=_split_folders(data))
        names = yaml_path or _name_list(root, root / "labels") or root / "data.yaml"
        return _layout(root, names, data, photos, (str(own), ""), (root / "labels",))
    if yaml_path is None and split is not None:
        problems.append(
            DataProblem(
                str(root / "data.yaml"),
                "",
                "",
                f"missing: split {split!r} asked for, and no yaml names it",
            )
        )
        return _layout(root, None, data, [], (str(root), ""))
    if yaml_path is not None:
        chosen = split if split is not None else next(iter(named), None)
        if chosen is not None:
            if not data.get(chosen):
                problems.append(
                    DataProblem(str(yaml_path), "", chosen, "missing: the split asked for")
                )
                return _layout(root, yaml_path, data, [], (str(yaml_path), chosen))
            photos = _split_photos(yaml_path, data, chosen, problems)
            return _layout(root, yaml_path, data, photos, (str(yaml_path), chosen))
    darknet = _darknet_folder(root, split, splits) if yaml_path is None else None
    if darknet is not None:
        photos = photos_in(darknet, deep=True)
        return _layout(root, _name_list(root), data, photos, (str(darknet), ""))
    names_file = yaml_path or _name_list(root)
    photos = photos_in(root, deep=False)
    if not photos:
        problems.append(
            DataProblem(
                str(own),
                "",
                "",
                "missing images/ folder (or photos beside their "
                f"labels, or a yaml naming {' or '.join(splits)} photos)",
            )
        )
    return _layout(root, names_file, data, photos, (str(own) if not photos else str(root), ""))


def _layout(
    root: Path,
    names_file: Path | None,
    data: dict[str, Any],
    photos: list[Path],
    looked_in: tuple[str, str],
    extra_label_dirs: tuple[Path, ...] = (),
) -> Layout:
    labels = [label_path(p) for p in photos]
    # label folders are checked for files without a photo; a folder of photos with their
    # labels beside them is not (a loose .txt there may be anything: a readme, notes)
    under = [label.parent for label in labels if "labels" in label.parent.parts]
    dirs = dict.fromkeys([*extra_label_dirs, *under])
    return Layout(root, names_file, data, tuple(photos), tuple(labels), tuple(dirs), looked_in)


def write_data_yaml(root: Path, names: Sequence[str], made_by: str) -> None:
    """Write this project's own layout's ``data.yaml`` in ``root``, naming the faces in
    class order (``made_by``: the command that made the set, in its first line). Each name
    is written as a double-quoted YAML string, escaped by YAML's own writer, so it reads
    back as it was: a ``"``, a ``\\``, a line break or a character past U+FFFF too (JSON's
    escapes write those as two halves of a pair, which YAML reads as two characters)."""
    lines = "\n".join(f"  {i}: {_quoted(n)}" for i, n in enumerate(names))
    (root / "data.yaml").write_text(
        f"{made_with_line(made_by)}\npath: .\ntrain: images\nval: images\nnames:\n{lines}\n",
        encoding="utf-8",
    )


def _quoted(name: str) -> str:
    """``name`` as one double-quoted YAML scalar on one line."""
    text: str = yaml.safe_dump(name, allow_unicode=True, default_style='"', width=1 << 30)
    return text.rstrip("\n")
