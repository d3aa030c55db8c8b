"""Bad input to ``toptable dice ...``: one line naming the file, exit 2, nothing written."""

from __future__ import annotations

import json
import shutil
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
    old = tmp_path / "old.npz"
    np.savez(old, format=np.int64(4))
    assert main(["dice", "read", str(photo), "--model", str(old)]) == 2
    (line,) = _error(capsys)
    assert line == (
        f"toptable: error: {old}: model format 4, this program reads format 6 (calibrate again: "
        "toptable dice calibrate DATASET --out MODEL.npz)"
    )
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a zip")
    assert main(["dice", "read", str(photo), "--model", str(bad)]) == 2
    (line,) = _error(capsys)
    assert line.startswith(f"toptable: error: {bad}: not a toptable face model (")
