"""The faces a labelled set shows: a face its names hold and no die is labelled with is
warned of and left unlearned; labels of one face of several are refused before any work;
the leave-photos-out check measures only with folds that show every face."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.errors import ModelError
from vision.learning.dataset import Dataset, LabeledDie, LabeledImage, load_dataset
from vision.learning.photo_budget import faces_shown, unshown_faces
from vision.learning.report import calibrate_with_report
from vision.synth.scenes import write_dataset


def _set(faces_per_photo: list[list[int]], names: tuple[str, ...]) -> Dataset:
    """A dataset (never decoded) whose photo ``k`` shows the faces ``faces_per_photo[k]``."""
    items = tuple(
        LabeledImage(
            Path(f"/set/images/p{k}.jpg"),
            Path(f"/set/labels/p{k}.txt"),
            tuple(LabeledDie(c, 0.1 + 0.1 * i, 0.5, 0.05, 0.05) for i, c in enumerate(faces)),
        )
        for k, faces in enumerate(faces_per_photo)
    )
    return Dataset(Path("/set"), names, items)


def test_every_face_shown_warns_nothing() -> None:
    shown = _set([[0, 1], [2]], ("1", "2", "3"))
    assert faces_shown(shown) == {0, 1, 2}
    assert unshown_faces(shown) is None


def test_a_face_never_labelled_is_named_in_a_warning() -> None:
    one = unshown_faces(_set([[0, 1], [2]], ("1", "2", "3", "blank")))
    assert one == (
        "no die labeled 'blank' (class 3) in its 2 photos: the model cannot read it, and reads "
        "a die showing one as the nearest face it learned or asks about it; photograph and "
        "label each face, then calibrate again"
    )
    two = unshown_faces(_set([[0, 2]], ("1", "2", "3", "4")))
    assert two is not None
    assert two.startswith("no die labeled '2' (class 1), '4' (class 3) in its 1 photos: ")
    assert "cannot read them" in two


def test_labels_of_one_face_of_several_are_refused() -> None:
    with pytest.raises(ModelError, match=r"^/set: no die labeled '2' \(class 1\), '3' \(class 2\)"):
        unshown_faces(_set([[0, 0], [0]], ("1", "2", "3")))
    assert unshown_faces(_set([[0, 0]], ("die",))) is None  # one face, as the set names


def test_no_fold_that_leaves_a_face_out_is_measured(tmp_path: Path) -> None:
    """Six photos whose faces cycle: each fold's photos miss two faces, so no fold is
    calibrated and the report says why instead of a figure of nothing."""
    dataset = load_dataset(write_dataset(tmp_path / "ds", 6, seed=5, hard=False, per_image=2))
    folds = [[i for i in range(6) if i % 3 != k] for k in range(3)]
    assert all(faces_shown(dataset.subset(f)) < faces_shown(dataset) for f in folds)
    model, report = calibrate_with_report(dataset)
    assert report.cv is None and report.folds == 0
    assert any("each face is shown in too few photos" in w for w in report.warnings)
    assert not any("misses or misreads" in w for w in report.warnings)
    assert model.unlearned == ()
