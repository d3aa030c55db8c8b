"""Datasets in the layouts labelling tools write: a data.yaml naming its splits
(Ultralytics, Roboflow, CVAT), labelImg's labels beside the photos, polygon labels."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from controller.core.errors import DataError
from vision.learning.dataset import READ_SPLITS, TRAIN_SPLITS, label_box, load_dataset
from vision.learning.dataset_layout import find_yaml, label_path
from vision.synth.scenes import write_dataset

NAMES = ("kick", "punch", "sphere", "strength", "star", "teleport")


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A 3-photo synthetic dataset in this project's layout (never changed by a test)."""
    return write_dataset(tmp_path_factory.mktemp("own") / "own", 3, seed=5, hard=False)


def _boxes(root: Path | str, *args: object) -> list[tuple[str, int, tuple[float, ...]]]:
    ds = load_dataset(root, *args)  # type: ignore[arg-type]
    return [
        (item.image.name, d.cls, (d.cx, d.cy, d.w, d.h)) for item in ds.items for d in item.dice
    ]


def _roboflow(own: Path, tmp_path: Path) -> Path:
    """``own`` exported as Roboflow writes a YOLO dataset: splits side by side, one
    data.yaml beside them whose entries start with ``../``."""
    export = tmp_path / "dice.v1i.yolov8"
    photos = sorted((own / "images").iterdir())
    for split, chosen in (("train", photos[:2]), ("valid", photos[2:])):
        (export / split / "images").mkdir(parents=True)
        (export / split / "labels").mkdir()
        for photo in chosen:
            shutil.copy(photo, export / split / "images" / photo.name)
            label = own / "labels" / f"{photo.stem}.txt"
            shutil.copy(label, export / split / "labels" / label.name)
    (export / "data.yaml").write_text(
        f"train: ../train/images\nval: ../valid/images\n\nnc: 6\nnames: {list(NAMES)}\n",
        encoding="utf-8",
    )
    (export / "README.roboflow.txt").write_text("exported\n", encoding="utf-8")
    return export


def test_a_roboflow_export_reads_its_train_split_for_calibration_and_val_for_reading(
    own: Path, tmp_path: Path
) -> None:
    export = _roboflow(own, tmp_path)
    mine = _boxes(own)
    train = _boxes(export, None, TRAIN_SPLITS)
    val = _boxes(export, None, READ_SPLITS)
    assert load_dataset(export).names == NAMES
    assert {name for name, _, _ in train} == {"synth_0000.png", "synth_0001.png"}
    assert {name for name, _, _ in val} == {"synth_0002.png"}
    assert sorted(train + val) == sorted(mine)  # the same dice, split in two
    assert _boxes(export / "data.yaml", "val") == val  # the yaml itself, a split named
    assert load_dataset(export, "val").root == export


def test_an_ultralytics_layout_with_path_and_nested_splits(own: Path, tmp_path: Path) -> None:
    # images/train and labels/train, as CVAT's "Ultralytics YOLO" export and COCO8 lay them out
    root = tmp_path / "data"
    for sub in ("images/train", "labels/train"):
        (root / sub).mkdir(parents=True)
    for photo in (own / "images").iterdir():
        shutil.copy(photo, root / "images" / "train" / photo.name)
        shutil.copy(own / "labels" / f"{photo.stem}.txt", root / "labels" / "train")
    (root / "dice.yaml").write_text(
        "path: .\ntrain: images/train\nnames:\n  0: kick\n  1: punch\n  2: sphere\n"
        "  3: strength\n  4: star\n  5: teleport\n",
        encoding="utf-8",
    )
    assert sorted(_boxes(root)) == sorted(_boxes(own))


def test_labelimg_folder_with_labels_beside_photos_and_classes_txt(
    own: Path, tmp_path: Path
) -> None:
    flat = tmp_path / "flat"
    flat.mkdir()
    for photo in (own / "images").iterdir():
        shutil.copy(photo, flat / photo.name)
        shutil.copy(own / "labels" / f"{photo.stem}.txt", flat)
    (flat / "classes.txt").write_text("\n".join(NAMES) + "\n", encoding="utf-8")
    (flat / "notes.txt").write_text("taken on Tuesday\n", encoding="utf-8")  # not a label
    ds = load_dataset(flat)
    assert ds.names == NAMES
    assert sorted(_boxes(flat)) == sorted(_boxes(own))


def test_a_classes_txt_name_with_a_nul_character_is_refused(own: Path, tmp_path: Path) -> None:
    flat = tmp_path / "flat"
    flat.mkdir()
    for photo in (own / "images").iterdir():
        shutil.copy(photo, flat / photo.name)
        shutil.copy(own / "labels" / f"{photo.stem}.txt", flat)
    (flat / "classes.txt").write_text("kick\x00\n" + "\n".join(NAMES[1:]) + "\n", "utf-8")
    with pytest.raises(DataError) as err:
        load_dataset(flat)
    assert "classes.txt: field 'names[0]': expected a name without a NUL character" in str(
        err.value
    )


def test_polygon_and_oriented_box_lines_become_the_box_around_their_points(
    own: Path, tmp_path: Path
) -> None:
    root = tmp_path / "poly"
    shutil.copytree(own, root)
    label = root / "labels" / "synth_0000.txt"
    lines = label.read_text(encoding="utf-8").splitlines()
    cls, cx, cy, w, h = lines[0].split()
    x0, y0 = float(cx) - float(w) / 2, float(cy) - float(h) / 2
    x1, y1 = x0 + float(w), y0 + float(h)
    # the die's four corners as an oriented box, then a six-point outline inside the same box
    lines[0] = f"{cls} {x0} {y0} {x1} {y0} {x1} {y1} {x0} {y1}"
    lines[1] = lines[1].split()[0] + " " + " ".join(str(v) for v in _hexagon(lines[1]))
    label.write_text("\n".join(lines) + "\n", encoding="utf-8")
    before = [d for item in load_dataset(own).items[:1] for d in item.dice]
    after = [d for item in load_dataset(root).items[:1] for d in item.dice]
    assert [d.cls for d in after] == [d.cls for d in before]
    for old, new in zip(before, after, strict=True):
        assert (new.cx, new.cy, new.w, new.h) == pytest.approx((old.cx, old.cy, old.w, old.h))


def test_a_die_labelled_twice_alike_is_one(own: Path, tmp_path: Path) -> None:
    """As Ultralytics reads a label file (repeated rows dropped): a labelling service's
    export can hold a box twice; a box of another class at the same place stays."""
    root = tmp_path / "twice"
    shutil.copytree(own, root)
    label = root / "labels" / "synth_0000.txt"
    lines = label.read_text(encoding="utf-8").splitlines()
    other = str((int(lines[0].split()[0]) + 1) % len(NAMES)) + lines[0][1:]
    label.write_text("\n".join([lines[0], *lines, lines[0], other]) + "\n", encoding="utf-8")
    before = load_dataset(own).items[0].dice
    after = load_dataset(root).items[0].dice
    assert after[: len(before)] == before
    assert len(after) == len(before) + 1 and after[-1].cls != after[0].cls


def _hexagon(line: str) -> list[float]:
    _, cx, cy, w, h = (float(v) for v in line.split())
    return [cx - w / 2, cy, cx - w / 4, cy - h / 2, cx + w / 4, cy - h / 2,
            cx + w / 2, cy, cx + w / 4, cy + h / 2, cx - w / 4, cy + h / 2]  # fmt: skip


@pytest.mark.parametrize(
    ("values", "box"),
    [
        ([0.5, 0.5, 0.2, 0.1], (0.5, 0.5, 0.2, 0.1)),
        ([0.996, 0.5, 0.01, 0.1], (0.9955, 0.5, 0.009, 0.1)),  # past the edge: the part in
        ([0.3, 0.04, 0.2, 0.1], (0.3, 0.045, 0.2, 0.09)),  # view, as tools that clip write it
        ([0.5, 0.9500004, 0.2, 0.1], (0.5, 0.9500004, 0.2, 0.1)),  # a rounding past: kept
        ([1.005, 0.5, 0.01, 0.1], (1.005, 0.5, 0.01, 0.1)),  # within Ultralytics' 1 %
        ([1.02, 0.5, 0.01, 0.1], None),
        ([0.5, 0.5, 0.0, 0.1], None),
        ([0.5, 0.5, 1.5, 0.1], None),
        ([0.5, 0.5, float("nan"), 0.1], None),
        ([0.1, 0.2, 0.3, 0.2, 0.2, 0.6], (0.2, 0.4, 0.2, 0.4)),
        ([-0.01, 0.2, 0.3, 0.2, 0.2, 0.6], (0.15, 0.4, 0.3, 0.4)),  # an outline past the edge
        ([0.1, 0.2, 0.1, 0.2, 0.1, 0.2], None),  # three times the same point
        ([0.1, 0.2, 0.3, 0.2, 0.2, -0.5], None),
    ],
)
def test_label_box(values: list[float], box: tuple[float, ...] | None) -> None:
    got = label_box(values)
    assert got == (pytest.approx(box) if box is not None else None)


def test_label_path_is_where_ultralytics_looks() -> None:
    assert label_path(Path("/d/train/images/a.jpg")) == Path("/d/train/labels/a.txt")
    assert label_path(Path("/d/images/train/a.b.png")) == Path("/d/labels/train/a.b.txt")
    assert label_path(Path("/images/x/images/a.jpg")) == Path("/images/x/labels/a.txt")
    assert label_path(Path("/d/photos/a.jpg")) == Path("/d/photos/a.txt")


def test_bad_layouts_name_the_file_and_field(own: Path, tmp_path: Path) -> None:
    export = _roboflow(own, tmp_path)
    with pytest.raises(DataError, match=r"data\.yaml: field 'test': missing: the split asked"):
        load_dataset(export, "test")
    (export / "data.yaml").write_text(
        f"train: ../nowhere/images\nnc: 5\nnames: {list(NAMES)}\n", encoding="utf-8"
    )
    with pytest.raises(DataError) as err:
        load_dataset(export)
    text = str(err.value)
    assert "data.yaml: field 'train': ../nowhere/images: no such folder" in text
    assert "data.yaml: field 'nc': 5, but names lists 6 faces" in text
    (export / "data.yaml").write_text(f"names: {list(NAMES)}\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"missing images/ folder \(or photos beside"):
        load_dataset(export)
    with pytest.raises(DataError, match=r"split 'val' asked for, and no yaml names it"):
        load_dataset(export / "valid", "val")


def test_a_label_without_its_photo_in_a_split_is_reported(own: Path, tmp_path: Path) -> None:
    export = _roboflow(own, tmp_path)
    (export / "train" / "images" / "synth_0001.png").unlink()
    with pytest.raises(DataError) as err:
        load_dataset(export)
    assert str(err.value) == (
        "train/labels/synth_0001.txt: no image train/images/synth_0001.* "
        "(.jpg, .jpeg, .png, .bmp, .webp, .tif, .tiff): its dice would be skipped"
    )


def test_files_written_with_a_byte_order_mark_read_as_without(own: Path, tmp_path: Path) -> None:
    # Windows tools (Notepad, some exporters) start UTF-8 text with U+FEFF
    root = tmp_path / "bom"
    shutil.copytree(own, root)
    for path in [root / "data.yaml", *(root / "labels").glob("*.txt")]:
        path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert sorted(_boxes(root)) == sorted(_boxes(own))
    assert load_dataset(root).names == NAMES


@pytest.mark.parametrize("where", [".", "labels"])
def test_label_studio_export_with_classes_txt_beside_images_and_labels(
    own: Path, tmp_path: Path, where: str
) -> None:
    # Label Studio's YOLO export (label-studio-converter's convert_to_yolo): classes.txt,
    # images/, labels/ and notes.json, no yaml; labelImg may save classes.txt in labels/
    root = tmp_path / "project-1-at-2026"
    shutil.copytree(own / "images", root / "images")
    shutil.copytree(own / "labels", root / "labels")
    (root / where / "classes.txt").write_text("\n".join(NAMES) + "\n", encoding="utf-8")
    (root / "notes.json").write_text('{"categories": []}', encoding="utf-8")
    assert load_dataset(root).names == NAMES
    assert sorted(_boxes(root)) == sorted(_boxes(own))


def test_a_malformed_yaml_is_one_line_at_its_line_and_column(own: Path, tmp_path: Path) -> None:
    root = tmp_path / "broken"
    shutil.copytree(own, root)
    (root / "data.yaml").write_text("names: [kick, punch\n  star: : :\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_dataset(root)
    text = str(err.value)
    assert "\n" not in text and "<unicode string>" not in text
    assert text.startswith(f"{root / 'data.yaml'}: line 2, column 7: not valid YAML: expected ")


def test_a_name_given_to_two_classes_is_refused(own: Path, tmp_path: Path) -> None:
    root = tmp_path / "twice"
    shutil.copytree(own, root)
    copied = ["kick", "punch", "sphere", "punch", "star", "teleport"]
    (root / "data.yaml").write_text(f"names: {copied}\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_dataset(root)
    assert str(err.value) == (
        f"{root / 'data.yaml'}: field 'names': 'punch' names classes 1 and 3: "
        "each face needs a name of its own"
    )
    (root / "data.yaml").unlink()
    (root / "classes.txt").write_text("\n".join(copied), encoding="utf-8")
    with pytest.raises(DataError, match=r"classes\.txt: 'punch' names classes 1 and 3"):
        load_dataset(root)


def test_text_files_in_another_encoding_name_the_first_bad_byte(own: Path, tmp_path: Path) -> None:
    root = tmp_path / "latin1"
    shutil.copytree(own, root)
    label = sorted((root / "labels").iterdir())[0]
    label.write_bytes(label.read_bytes() + "0 0.5 0.5 0.1 0.1 é\n".encode("latin-1"))
    with pytest.raises(DataError) as err:
        load_dataset(root)
    size = len(label.read_bytes())
    assert str(err.value) == f"labels/{label.name}: not UTF-8 text (byte {size - 2})"
    label.unlink()
    (root / "data.yaml").write_bytes("names: [kické]\n".encode("latin-1"))
    with pytest.raises(DataError, match=r"data\.yaml: not UTF-8 text \(byte 12\)"):
        load_dataset(root)


ROBOFLOW_TAIL = (
    "roboflow:\n  workspace: table\n  project: dice\n  version: 1\n"
    "  license: CC BY 4.0\n  url: https://universe.roboflow.com/table/dice/dataset/1\n"
)


def test_a_key_given_twice_in_data_yaml_is_refused_at_its_line(own: Path, tmp_path: Path) -> None:
    export = _roboflow(own, tmp_path)
    as_mapping = "".join(f"  {i}: {name}\n" for i, name in enumerate(NAMES))
    heads = "train: ../train/images\nval: ../valid/images\ntest: ../test/images\n\nnc: 6\n"
    for names in (f"names: {list(NAMES)}\n", f"names:\n{as_mapping}"):  # Roboflow's forms
        (export / "data.yaml").write_text(heads + names + ROBOFLOW_TAIL, encoding="utf-8")
        assert load_dataset(export).names == NAMES
    twice = f"{heads}names: {list(reversed(NAMES))}\n{ROBOFLOW_TAIL}names: {list(NAMES)}\n"
    (export / "data.yaml").write_text(twice, encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_dataset(export)
    assert str(err.value.problems[0]) == (  # (then: no photos, as the yaml named none)
        f"{export / 'data.yaml'}: line 13: key 'names' given twice (first on line 6): "
        "expected each key once, else the later one silently wins"
    )
    moved = as_mapping.replace("  5: teleport", "  0: teleport")  # one index, two names
    (export / "data.yaml").write_text(f"{heads}names:\n{moved}  5: kick\n", encoding="utf-8")
    with pytest.raises(
        DataError, match=r"data\.yaml: line 12: key 0 given twice \(first on line 7\)"
    ):
        load_dataset(export)


def test_photos_kept_in_subfolders_of_images_are_read_too(own: Path, tmp_path: Path) -> None:
    """images/ holding photos and a day's subfolder (and a symlinked one): Ultralytics reads
    them all (a recursive glob); they were left out without a word. A split's folder is not
    read with them (its photos are held out)."""
    root = tmp_path / "set"
    shutil.copytree(own, root)
    photos = sorted((root / "images").iterdir())
    for sub, photo in (("day2", photos[1]), ("val", photos[2])):
        (root / "images" / sub).mkdir()
        (root / "labels" / sub).mkdir()
        photo.rename(root / "images" / sub / photo.name)
        label = root / "labels" / f"{photo.stem}.txt"
        label.rename(root / "labels" / sub / label.name)
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(own, elsewhere)
    (elsewhere / "images" / photos[0].name).rename(elsewhere / "images" / "more.jpg")
    (elsewhere / "labels" / f"{photos[0].stem}.txt").rename(elsewhere / "labels" / "more.txt")
    (root / "images" / "linked").symlink_to(elsewhere / "images", target_is_directory=True)
    (root / "labels" / "linked").symlink_to(elsewhere / "labels", target_is_directory=True)
    (elsewhere / "images" / "loop").symlink_to(root / "images", target_is_directory=True)
    for stray in (".picasaoriginals", "@eaDir"):  # an editor's originals, a NAS's thumbnails
        (root / "images" / stray).mkdir()
        shutil.copy(photos[0], root / "images" / stray / photos[0].name)
    names = sorted(
        str(item.image.relative_to(root / "images")) for item in load_dataset(root).items
    )
    assert names == sorted(
        [photos[0].name, f"day2/{photos[1].name}", "linked/more.jpg",
         *(f"linked/{p.name}" for p in photos[1:])]
    )  # fmt: skip


def test_a_pose_sets_lines_are_read_as_their_box(own: Path, tmp_path: Path) -> None:
    """A pose export (its yaml gives ``kpt_shape``: ``class cx cy w h`` then keypoints, as
    CVAT's Ultralytics YOLO Pose writes them) is read by its first five columns, as
    Ultralytics reads it: the points made a box around all nine numbers, silently wrong."""
    root = tmp_path / "pose"
    shutil.copytree(own, root)
    plain = _boxes(own)
    for label in (root / "labels").glob("*.txt"):
        lines = label.read_text().splitlines()
        label.write_text("".join(f"{ln} 0.1 0.9 0.95 0.05\n" for ln in lines if ln.strip()))
    yaml = root / "data.yaml"
    yaml.write_text(yaml.read_text() + "kpt_shape: [2, 2]\n")
    assert _boxes(root) == plain


def test_cvat_yolo_1_1_export_reads_its_train_subset(own: Path, tmp_path: Path) -> None:
    """CVAT's "YOLO 1.1" export (Darknet's layout): obj.names, obj.data, train.txt and
    obj_train_data/ holding the photos with their labels beside them (it was not read)."""
    export = tmp_path / "task_dice-yolo 1.1"
    subset = export / "obj_train_data"
    subset.mkdir(parents=True)
    for photo in sorted((own / "images").iterdir()):
        shutil.copy(photo, subset / photo.name)
        shutil.copy(own / "labels" / f"{photo.stem}.txt", subset / f"{photo.stem}.txt")
    (export / "obj.names").write_text("\n".join(NAMES) + "\n")
    (export / "obj.data").write_text(
        f"classes = {len(NAMES)}\ntrain = data/train.txt\nnames = data/obj.names\n"
        "backup = backup/\n"
    )
    (export / "train.txt").write_text(
        "".join(f"data/obj_train_data/{p.name}\n" for p in sorted(subset.glob("*.png")))
    )
    assert _boxes(export) == _boxes(own)
    assert load_dataset(export).names == NAMES
    subset.rename(export / "obj_Train_data")  # a subset named in CVAT's UI
    assert _boxes(export) == _boxes(own)


def _flat(own: Path, tmp_path: Path) -> Path:
    """``own`` as labelImg keeps it: photos and labels in one folder (no names yet)."""
    flat = tmp_path / "flat"
    flat.mkdir()
    for photo in (own / "images").iterdir():
        shutil.copy(photo, flat / photo.name)
        shutil.copy(own / "labels" / f"{photo.stem}.txt", flat)
    return flat


def test_an_empty_classes_txt_is_refused(own: Path, tmp_path: Path) -> None:
    flat = _flat(own, tmp_path)
    (flat / "classes.txt").write_text("\n\n", encoding="utf-8")
    with pytest.raises(DataError, match=r"classes\.txt: expected one face name a line"):
        load_dataset(flat)


def test_a_folder_named_like_a_photo_and_hidden_files_are_no_photos(
    own: Path, tmp_path: Path
) -> None:
    """A folder ``album.jpg`` and macOS's ``._`` files (AppleDouble, written beside each
    photo copied to a USB stick or SD card) are not photos, in either layout."""
    flat = _flat(own, tmp_path)
    (flat / "classes.txt").write_text("\n".join(NAMES) + "\n", encoding="utf-8")
    root = tmp_path / "own"
    shutil.copytree(own, root)
    for photos in (flat, root / "images"):
        (photos / "album.jpg").mkdir()
        (photos / "._synth_0000.png").write_bytes(b"\x00\x05\x16\x07")
    assert sorted(_boxes(flat)) == sorted(_boxes(own))
    assert sorted(_boxes(root)) == sorted(_boxes(own))


def test_a_triangle_line_is_the_box_around_its_three_points(own: Path, tmp_path: Path) -> None:
    # a segmentation outline needs 3 points: class and 6 numbers
    root = tmp_path / "tri"
    shutil.copytree(own, root)
    label = root / "labels" / "synth_0000.txt"
    lines = label.read_text(encoding="utf-8").splitlines()
    lines[0] = lines[0].split()[0] + " 0.2 0.3 0.4 0.3 0.3 0.6"
    label.write_text("\n".join(lines) + "\n", encoding="utf-8")
    die = load_dataset(root).items[0].dice[0]
    assert (die.cx, die.cy, die.w, die.h) == pytest.approx((0.3, 0.45, 0.2, 0.3))


def test_each_copy_of_a_name_is_named_against_its_first_class(own: Path, tmp_path: Path) -> None:
    root = tmp_path / "thrice"
    shutil.copytree(own, root)
    copied = ["kick", "punch", "kick", "kick", "star", "teleport"]
    (root / "data.yaml").write_text(f"names: {copied}\n", encoding="utf-8")
    with pytest.raises(DataError) as err:
        load_dataset(root)
    assert [p.message.split(":")[0] for p in err.value.problems] == [
        "'kick' names classes 0 and 2",
        "'kick' names classes 0 and 3",
    ]


def test_a_split_folder_not_found_is_the_one_problem(own: Path, tmp_path: Path) -> None:
    export = _roboflow(own, tmp_path)
    (export / "data.yaml").write_text(
        f"train: ../nowhere/images\nnames: {list(NAMES)}\n", encoding="utf-8"
    )
    with pytest.raises(DataError) as err:
        load_dataset(export)
    assert str(err.value) == (
        f"{export / 'data.yaml'}: field 'train': ../nowhere/images: no such folder "
        f"({export / 'nowhere' / 'images'})"
    )


def test_a_yaml_is_found_as_data_yaml_or_the_only_one(tmp_path: Path) -> None:
    (tmp_path / "dice.yml").write_text("names: [a]\n")
    assert find_yaml(tmp_path) == tmp_path / "dice.yml"
    (tmp_path / "other.yaml").write_text("names: [b]\n")
    assert find_yaml(tmp_path) is None  # which one is meant is not guessed
    (tmp_path / "data.yaml").write_text("names: [c]\n")
    assert find_yaml(tmp_path) == tmp_path / "data.yaml"


def test_a_yaml_with_merge_keys_reads(own: Path, tmp_path: Path) -> None:
    # YAML's merge key (``<<:``) may appear in a mapping, twice too, and be overridden
    root = tmp_path / "merged"
    shutil.copytree(own, root)
    (root / "data.yaml").write_text(
        f"common: &common {{nc: 6}}\nfaces: &faces {{names: {list(reversed(NAMES))}}}\n"
        f"set:\n  <<: *common\n  <<: *faces\n<<: *faces\nnames: {list(NAMES)}\n",
        encoding="utf-8",
    )
    assert load_dataset(root).names == NAMES


def test_splits_are_relative_to_the_yamls_path(own: Path, tmp_path: Path) -> None:
    root = tmp_path / "export"
    shutil.copytree(own, root / "data")
    (root / "data" / "data.yaml").unlink()
    (root / "dice.yaml").write_text(f"path: data\ntrain: images\nnames: {list(NAMES)}\n")
    assert sorted(_boxes(root)) == sorted(_boxes(own))


def test_a_list_of_photos_is_read_from_its_own_folder(own: Path, tmp_path: Path) -> None:
    """Ultralytics reads a list's ``./`` lines from the list's folder, wherever the shell
    is; a line naming no photo is named by its line number."""
    export = _roboflow(own, tmp_path)
    listed = export / "lists" / "train.txt"
    listed.parent.mkdir()
    photos = sorted((export / "train" / "images").iterdir())
    listed.write_text(f"./../train/images/{photos[0].name}\n../train/images/{photos[1].name}\n")
    (export / "data.yaml").write_text(f"train: lists/train.txt\nnames: {list(NAMES)}\n")
    assert [item.image.name for item in load_dataset(export).items] == [p.name for p in photos]
    listed.write_text(f"./../train/images/{photos[0].name}\n./gone.jpg\n")
    with pytest.raises(DataError, match=r"train\.txt: line 2: no such photo"):
        load_dataset(export)


def test_a_split_the_yaml_names_under_images_is_held_out(own: Path, tmp_path: Path) -> None:
    root = tmp_path / "set"
    shutil.copytree(own, root)
    photo = sorted((root / "images").iterdir())[2]
    (root / "images" / "holdout").mkdir()
    (root / "labels" / "holdout").mkdir()
    photo.rename(root / "images" / "holdout" / photo.name)
    (root / "labels" / f"{photo.stem}.txt").rename(
        root / "labels" / "holdout" / f"{photo.stem}.txt"
    )
    (root / "data.yaml").write_text(f"val: images/holdout\nnames: {list(NAMES)}\n")
    assert [item.image.name for item in load_dataset(root).items] == [
        "synth_0000.png", "synth_0001.png"
    ]  # fmt: skip


def test_reading_takes_val_before_test(own: Path, tmp_path: Path) -> None:
    export = _roboflow(own, tmp_path)
    shutil.copytree(export / "train", export / "test")
    (export / "data.yaml").write_text(
        f"train: ../train/images\nval: ../valid/images\ntest: ../test/images\n"
        f"names: {list(NAMES)}\n"
    )
    assert [item.image.name for item in load_dataset(export, None, READ_SPLITS).items] == [
        "synth_0002.png"
    ]


def test_an_entry_up_a_folder_that_exists_is_read_as_written(own: Path, tmp_path: Path) -> None:
    # only an entry that does not exist is tried without its ``../`` (Roboflow's)
    root = tmp_path / "set"
    shutil.copytree(own, root)
    (root / "config").mkdir()
    (root / "config" / "images").mkdir()  # no photos: not the folder meant
    (root / "data.yaml").rename(root / "config" / "data.yaml")
    (root / "config" / "data.yaml").write_text(f"train: ../images\nnames: {list(NAMES)}\n")
    assert sorted(_boxes(root / "config" / "data.yaml")) == sorted(_boxes(own))


def test_cvat_yolo_1_1_export_reads_its_valid_subset_for_reading(own: Path, tmp_path: Path) -> None:
    export = tmp_path / "task"
    subset = export / "obj_valid_data"
    subset.mkdir(parents=True)
    for photo in sorted((own / "images").iterdir()):
        shutil.copy(photo, subset / photo.name)
        shutil.copy(own / "labels" / f"{photo.stem}.txt", subset / f"{photo.stem}.txt")
    (export / "obj.names").write_text("\n".join(NAMES) + "\n")
    assert _boxes(export, None, READ_SPLITS) == _boxes(own)
