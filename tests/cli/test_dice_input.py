"""Bad input to ``toptable dice ...``: one line naming the file, exit 2, nothing written."""

from __future__ import annotations

import json
import shutil
import zipfile
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.cli.main import main
from vision.reading.model import load_model
from vision.synth.scenes import write_dataset


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    return write_dataset(tmp_path / "ds", 3, seed=5, hard=False, per_image=2)


def _error(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return capsys.readouterr().err.strip().splitlines()


def test_photo_without_labels(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (dataset / "labels" / "synth_0001.txt").unlink()
    out = dataset.parent / "m.npz"
    assert main(["dice", "calibrate", str(dataset), "--out", str(out)]) == 2
    assert _error(capsys) == [
        "toptable: error: images/synth_0001.png: no label file labels/synth_0001.txt"
    ]  # (named within the dataset given)
    assert not out.exists()


def test_labels_without_photo(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shutil.copy(dataset / "labels" / "synth_0000.txt", dataset / "labels" / "lost.txt")
    (dataset / "labels" / "classes.txt").write_text("kick\npunch\n")  # labelImg's names
    assert main(["dice", "eval", str(dataset)]) == 2
    (line,) = _error(capsys)
    assert line.endswith(
        "labels/lost.txt: no image images/lost.* (.jpg, .jpeg, .png, .bmp, .webp, .tif, .tiff): its "
        "dice would be skipped"
    )


def test_a_class_the_names_do_not_have(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    label = dataset / "labels" / "synth_0002.txt"
    label.write_text("9 0.5 0.5 0.1 0.1\n" + label.read_text())
    assert main(["dice", "eval", str(dataset)]) == 2
    (line,) = _error(capsys)
    assert line.endswith("labels/synth_0002.txt: line 1: field 'class': 9 is outside names (0..5)")


def test_a_class_the_model_does_not_know(dataset: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (dataset / "data.yaml").write_text("names: [one, two, three, four, five, six]\n")
    assert main(["dice", "eval", str(dataset)]) == 2
    (line,) = _error(capsys)
    assert "model for face set 'top-synthetic'" in line and "cannot read" in line
    assert "(one, two, three, four, five, six)" in line


def test_a_huge_face_name_is_shown_in_part(
    dataset: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A data.yaml naming a face of 100,000 characters: the model's face set and the start of
    the dataset's names, in one short line."""
    huge = "y" * 100_000
    (dataset / "data.yaml").write_text(f"names: [{huge}, b, c, d, e, f]\n", encoding="utf-8")
    assert main(["dice", "eval", str(dataset)]) == 2
    (line,) = _error(capsys)
    assert "model for face set 'top-synthetic' (kick, punch" in line
    assert line.endswith("yyy... (100015 characters))") and len(line) < 400


def test_photos_with_no_dice(dataset: Path, tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    empty = tmp_path / "empty.png"
    cv2.imwrite(str(empty), np.full((480, 640, 3), 200, np.uint8))
    assert main(["dice", "read", str(empty)]) == 0  # a photo with no dice reads as none
    assert capsys.readouterr().out.startswith("0 dice")
    for label in (dataset / "labels").glob("*.txt"):
        label.write_text("")
    out = tmp_path / "m.npz"
    assert main(["dice", "calibrate", str(dataset), "--out", str(out)]) == 2
    (line,) = _error(capsys)
    assert line == f"toptable: error: {dataset}: no labeled die to calibrate from"
    assert not out.exists()


def test_a_face_no_die_is_labeled_with(dataset: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    """A face the names hold and no photo shows is warned of and left unlearned; the faces
    shown are learned (a set's names often hold a class none of its photos shows)."""
    (dataset / "data.yaml").write_text(
        "names: [kick, punch, sphere, strength, star, teleport, blank]\n"
    )
    out = tmp_path / "m.npz"
    assert main(["dice", "calibrate", str(dataset), "--out", str(out), "--json"]) == 0
    said = json.loads(capsys.readouterr().out)
    assert (
        "no die labeled 'blank' (class 6) in its 3 photos: the model cannot read it, "
        "and reads a die showing one as the nearest face it learned or asks about it; "
        "photograph and label each face, then calibrate again"
    ) in said["warnings"]
    assert said["unlearned_faces"] == ["blank"]
    model = load_model(out)
    assert model.unlearned == ("blank",)
    assert json.loads(model.report)["unlearned_faces"] == ["blank"]
    assert main(["dice", "eval", str(dataset), "--model", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["f1"] > 0.9  # the faces shown are read


def test_labels_of_only_one_face_of_several(dataset: Path, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    for label in (dataset / "labels").glob("*.txt"):
        label.write_text("".join("2" + line[1:] + "\n" for line in label.read_text().splitlines()))
    out = tmp_path / "m.npz"
    assert main(["dice", "calibrate", str(dataset), "--out", str(out)]) == 2
    (line,) = _error(capsys)
    assert line.startswith(
        f"toptable: error: {dataset}: no die labeled 'kick' (class 0), 'punch' (class 1), "
        "'strength' (class 3), 'star' (class 4), 'teleport' (class 5) in its 3 photos; "
    )  # said before any photo is measured, not after minutes of calibration
    assert "tells two or more apart" in line
    assert not out.exists()


def test_a_model_of_another_format(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    photo = tmp_path / "p.png"
    cv2.imwrite(str(photo), np.full((48, 64, 3), 200, np.uint8))

    def refused(model: Path) -> str:
        """The one line ``dice read`` exits 2 with for ``model``."""
        assert main(["dice", "read", str(photo), "--model", str(model)]) == 2
        (line,) = _error(capsys)
        return line

    old = tmp_path / "old.npz"
    np.savez(old, format=np.int64(4))
    assert refused(old) == (
        f"toptable: error: {old}: model format 4, this program reads format 6 (calibrate again: "
        "toptable dice calibrate DATASET --out MODEL.npz)"
    )
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    assert refused(bad).startswith(f"toptable: error: {bad}: not a toptable face model (")
    newer = tmp_path / "newer.npz"  # a newer toptable's: the program is to be updated
    np.savez(newer, format=np.int64(99))
    assert refused(newer) == (
        f"toptable: error: {newer}: model format 99, this program reads format 6 (made by a "
        "newer toptable: update toptable to read it)"
    )
    torch_file = tmp_path / "best.pt"  # torch.save writes a zip holding <name>/data.pkl
    with zipfile.ZipFile(torch_file, "w") as archive:
        archive.writestr("best/data.pkl", b"\x80\x02}q\x00.")
        archive.writestr("best/version", "3\n")
    assert refused(torch_file).startswith(
        f"toptable: error: {torch_file}: not a toptable face model (a PyTorch"
    )


def test_labels_of_boxes_no_die_fills_name_the_dataset(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a bare "die_frac 0.9 must be within 0.005..0.5" before, naming neither file nor fix
    root = tmp_path / "boxes"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    (root / "data.yaml").write_text("names: [kick, punch, sphere, strength, star, teleport]\n")
    for i in range(3):
        cv2.imwrite(str(root / "images" / f"p{i}.png"), np.full((480, 640, 3), 90, np.uint8))
        (root / "labels" / f"p{i}.txt").write_text(
            "".join(f"{c} 0.5 0.5 0.9 0.9\n" for c in range(6))
        )
    out = tmp_path / "m.npz"
    assert main(["dice", "calibrate", str(root), "--out", str(out)]) == 2
    assert _error(capsys) == [
        f"toptable: error: {root}: its labeled dice measure 0.900 of sqrt(width x height) (the "
        "median box), but die_frac 0.9 must be within 0.005..0.5: are the labels YOLO boxes of "
        "single dice (class, centre x, centre y, width, height, each a share of the photo)?"
    ]
    assert not out.exists()


def test_a_model_write_stopped_midway_keeps_the_model_there(tmp_path: Path) -> None:
    from typing import cast

    from controller.cli.dice import _save_whole
    from vision.errors import ModelError
    from vision.reading.model import FaceModel

    out = tmp_path / "m.npz"
    out.write_bytes(b"the model that reads this table")

    class Writer:
        def __init__(self, stop: BaseException | None) -> None:
            self.stop = stop

        def save(self, path: Path) -> Path:
            Path(path).write_bytes(b"half a model")
            if self.stop is not None:
                raise self.stop
            return Path(path)

    with pytest.raises(KeyboardInterrupt):  # Ctrl-C while the new model is written
        _save_whole(cast(FaceModel, Writer(KeyboardInterrupt())), out)
    full = OSError(28, "No space left on device")
    with pytest.raises(ModelError, match=r"m\.npz: cannot write the model \(No space left"):
        _save_whole(cast(FaceModel, Writer(full)), out)
    assert out.read_bytes() == b"the model that reads this table"
    assert list(tmp_path.iterdir()) == [out]  # no half-written file left beside it
    assert _save_whole(cast(FaceModel, Writer(None)), tmp_path / "m") == out
    assert out.read_bytes() == b"half a model"


def _moved(dataset: Path, stem: str, folder: Path) -> None:
    """Move photo ``stem`` of ``dataset`` (and its labels) to a set of its own at ``folder``."""
    for sub in ("images", "labels"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    shutil.move(dataset / "images" / f"{stem}.png", folder / "images" / f"{stem}.png")
    shutil.move(dataset / "labels" / f"{stem}.txt", folder / "labels" / f"{stem}.txt")


def test_also_learns_from_another_set_by_face_name(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    more = tmp_path / "table"
    _moved(dataset, "synth_0002", more)
    # the same faces in another order, and one no die shows: matched by name
    names = ["teleport", "star", "strength", "sphere", "punch", "kick", "blank"]
    (more / "data.yaml").write_text(f"names: {names}\n".replace("'", ""))
    order = ["kick", "punch", "sphere", "strength", "star", "teleport"]
    label = more / "labels" / "synth_0002.txt"
    rows = [line.split(" ", 1) for line in label.read_text().splitlines()]
    label.write_text("".join(f"{names.index(order[int(c)])} {box}\n" for c, box in rows))
    out = tmp_path / "m.npz"
    args = ["dice", "calibrate", str(dataset), "--also", str(more), "--out", str(out), "--json"]
    assert main(args) == 0
    said = json.loads(capsys.readouterr().out)
    assert said["photos"] == 3 and said["dice"] == 6 and said["names"] == order
    # a set showing a face the owner's names do not hold is refused before calibrating
    label.write_text("6 0.5 0.5 0.1 0.1\n")
    out.unlink()
    assert main(args) == 2
    (line,) = _error(capsys)
    assert line == (
        f"toptable: error: {more}: field 'names': faces blank are not among {dataset}'s "
        f"({', '.join(order)})"
    )
    assert not out.exists()


def test_also_is_refused_beside_synthetic(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "m.npz"
    args = ["dice", "calibrate", "--synthetic", "--also", str(dataset), "--out", str(out)]
    assert main(args) == 2
    (line,) = _error(capsys)
    assert line == (
        "toptable: error: --also adds photos to a DATASET's; --synthetic learns rendered dice"
    )
    assert not out.exists()


def test_synth_never_writes_over_a_labelled_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`dice synth` into the owner's labelled photos is refused: their data.yaml (the names
    of their faces) and photos are left as they were."""
    owner = tmp_path / "mine"
    (owner / "images").mkdir(parents=True)
    yaml = "names: [alpha, beta, gamma, delta, epsilon, zeta]\n"
    (owner / "data.yaml").write_text(yaml, encoding="utf-8")
    before = sorted(p.relative_to(owner) for p in owner.rglob("*"))
    assert main(["dice", "synth", str(owner), "--images", "1"]) == 2
    assert _error(capsys) == [
        f"toptable: error: {owner}: holds files toptable dice synth did not write (your "
        "own photos are never written over): give a new or empty folder"
    ]
    assert (owner / "data.yaml").read_text(encoding="utf-8") == yaml
    assert sorted(p.relative_to(owner) for p in owner.rglob("*")) == before
    # a set it wrote before is written again
    ours = tmp_path / "synth"
    assert main(["dice", "synth", str(ours), "--images", "1", "--easy"]) == 0
    assert main(["dice", "synth", str(ours), "--images", "1", "--easy"]) == 0


@pytest.mark.parametrize("name", ["read.txt", "read"])
def test_an_annotated_image_of_no_image_suffix_is_refused(
    dataset: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """OpenCV has no writer for a .txt: its cv2.error came as a traceback, after the read."""
    photo = dataset / "images" / "synth_0000.png"
    out = tmp_path / name
    assert main(["dice", "read", str(photo), "--annotate", str(out)]) == 2
    assert _error(capsys) == [
        f"toptable: error: argument --annotate: {out}: expected an image file (.jpg, .jpeg, "
        ".png, .bmp, .webp, .tif, .tiff)"
    ]
    assert not out.exists()
