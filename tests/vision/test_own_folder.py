"""The labelled sets toptable writes: their data.yaml reads back, and only their own
folders are written into."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from controller.core.errors import DataError, DataProblem
from vision.learning.dataset import load_dataset
from vision.learning.dataset_layout import read_yaml, write_data_yaml
from vision.learning.same_faces import check_same_faces
from vision.own_folder import check_own_folder, made_with_line

AWKWARD_NAMES = [
    "\U0001f3b2 six",  # past U+FFFF: JSON writes it as two halves of a pair
    'ki"ck',
    "back\\slash",
    "tab\there",
    "next\x85line",
    "line\u2028sep",
    "yes",
    "null",
    "x: y",
    " spaced ",
    "é",
]


def _photo_set(root: Path, names: list[str]) -> None:
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    cv2.imwrite(str(root / "images" / "a.png"), np.zeros((64, 64, 3), np.uint8))
    (root / "labels" / "a.txt").write_text("0 0.5 0.5 0.2 0.2\n", encoding="utf-8")
    write_data_yaml(root, names, "toptable dice capture")


def test_every_face_name_reads_back_as_written(tmp_path: Path) -> None:
    write_data_yaml(tmp_path, AWKWARD_NAMES, "toptable dice capture")
    problems: list[DataProblem] = []
    names = read_yaml(tmp_path / "data.yaml", problems)["names"]
    assert problems == []
    assert [names[i] for i in range(len(AWKWARD_NAMES))] == AWKWARD_NAMES


def test_a_set_of_awkward_names_is_its_own_faces(tmp_path: Path) -> None:
    _photo_set(tmp_path, AWKWARD_NAMES)
    assert load_dataset(tmp_path).names == tuple(AWKWARD_NAMES)
    check_same_faces(tmp_path, AWKWARD_NAMES, "give another folder")


def test_a_set_of_other_faces_is_refused(tmp_path: Path) -> None:
    _photo_set(tmp_path, ["one", "two"])
    with pytest.raises(DataError) as err:
        check_same_faces(tmp_path, ["two", "one"], "give another folder")
    assert str(err.value) == (
        f"{tmp_path / 'data.yaml'}: field 'names': holds photos of the faces one, two, "
        "not two, one: give another folder"
    )


def test_a_folder_without_photos_has_no_faces_to_differ(tmp_path: Path) -> None:
    write_data_yaml(tmp_path, ["one"], "toptable dice capture")
    check_same_faces(tmp_path, ["two"], "give another folder")


def test_only_a_folder_the_command_wrote_is_its_own(tmp_path: Path) -> None:
    check_own_folder(tmp_path / "new", made_with_line("x"), "x")
    check_own_folder(tmp_path, made_with_line("x"), "x")  # empty
    write_data_yaml(tmp_path, ["one"], "x")
    check_own_folder(tmp_path, made_with_line("x"), "x")
    with pytest.raises(DataError) as err:
        check_own_folder(tmp_path, made_with_line("y"), "y", hint=", or say so")
    assert str(err.value) == (
        f"{tmp_path}: holds files y did not write (your own photos are never written "
        "over): give a new or empty folder, or say so"
    )


def test_an_owner_folder_without_a_data_yaml_is_not_ours(tmp_path: Path) -> None:
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(DataError, match="did not write"):
        check_own_folder(tmp_path, made_with_line("x"), "x")
