"""Likely label mistakes: named when a die looks like another face to the other photos'
dice, not when only its neighbours (same light, same view) make it look so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.learning.dataset import LabeledImage, parse_label_file
from vision.learning.label_check import label_lines, label_problems

Array = NDArray[Any]


def _table(rng: np.random.Generator) -> tuple[Array, Array, Array, Array, Array, list[str]]:
    """Two faces ``a`` and ``b`` one apart; photo 0's light moves its dice 1.5 across
    (orthogonally), photos 1 and 2 are plain. Dice: photo 0 an ``a`` and a ``b``, photos
    1 and 2 one ``a`` and one ``b`` each, and in photo 1 a ``b`` labeled ``a`` (the
    mistake). Returns each die's view, the samples (three copies a die), their labels
    and dice, each die's label and photo, and where each die is."""
    a, b, light = np.array([0.0, 0, 0]), np.array([1.0, 0, 0]), np.array([0.0, 1.5, 0])
    dice = [  # (true look, label, photo)
        (a + light, 0, 0),
        (b + light, 1, 0),
        (a, 0, 1),
        (b, 1, 1),
        (b, 0, 1),  # a 'b' labeled 'a'
        (a, 0, 2),
        (b, 1, 2),
    ]
    views = np.array([look for look, _, _ in dice], np.float32)
    samples = np.repeat(views, 3, axis=0) + rng.normal(0, 0.01, (3 * len(dice), 3))
    groups = np.repeat(np.arange(len(dice)), 3)
    die_cls = np.array([label for _, label, _ in dice])
    photos = np.array([photo for _, _, photo in dice])
    where = [f"labels/p{photo}.txt: line {i + 1}" for i, (_, _, photo) in enumerate(dice)]
    return views, samples.astype(np.float32), die_cls[groups], groups, photos, where


def test_neighbours_in_one_light_are_not_label_mistakes() -> None:
    views, samples, labels, groups, photos, where = _table(np.random.default_rng(3))
    die_cls = labels[::3]
    by_dice = label_problems(views, samples, labels, groups, die_cls, where, ["a", "b"])
    by_photos = label_problems(views, samples, labels, groups, die_cls, where, ["a", "b"], photos)
    # compared with every die, photo 0's two dice look like each other (the same light),
    # and one of them, labeled right, is named
    assert {0, 1} & {i for i, _ in by_dice}
    # compared with the other photos' dice only, the mistake alone is named
    assert [i for i, _ in by_photos] == [4]
    assert by_photos[0][1].startswith("labels/p1.txt: line 5: labeled 'a' but looks like 'b'")
    assert "(like labels/p2.txt: line 7)" in by_photos[0][1]
    # a right label seen on one die alone is named too: the owner is told what helps then
    assert by_photos[0][1].endswith(
        "check the label, and if it is right photograph more 'a' dice like it (a face seen on "
        "one die in this look is read as the look-alike seen on many)"
    )


def test_one_mistake_does_not_get_the_right_labels_near_it_named() -> None:
    """A 'b' labeled 'a' sits nearer one right 'b' than the other 'b' does: each looks like
    the other's label. The mistake is the clearer and is named; once named, its samples no
    longer count, so the right 'b' beside it is not named as looking like 'a'."""
    looks = [0.0, 0.1, 1.0, 1.4, 1.05]  # a, a, b, b, and a 'b' labeled 'a' beside the first b
    die_cls = np.array([0, 0, 1, 1, 0])
    views = np.array([[x, 0.0, 0.0] for x in looks], np.float32)
    rng = np.random.default_rng(5)
    samples = (np.repeat(views, 3, axis=0) + rng.normal(0, 0.01, (15, 3))).astype(np.float32)
    groups = np.repeat(np.arange(5), 3)
    where = [f"labels/p{i}.txt: line 1" for i in range(5)]
    found = label_problems(views, samples, die_cls[groups], groups, die_cls, where, ["a", "b"])
    assert [i for i, _ in found] == [4]
    assert found[0][1].startswith("labels/p4.txt: line 1: labeled 'a' but looks like 'b'")


def test_a_die_after_a_repeated_line_is_named_by_its_own_line(tmp_path: Path) -> None:
    """A repeated line is one die (as Ultralytics drops it): the dice after it keep their
    own line numbers in calibration's warnings (they were named one line early)."""
    label = tmp_path / "p.txt"
    label.write_text("0 0.2 0.2 0.1 0.1\n\n0 0.2 0.2 0.1 0.1\n1 0.6 0.6 0.1 0.1\n")
    item = LabeledImage(tmp_path / "p.jpg", label, parse_label_file(label, 2, "p.txt", []))
    assert len(item.dice) == 2
    assert label_lines(item) == [1, 4]


def test_a_pose_sets_dice_are_named_by_their_own_lines(tmp_path: Path) -> None:
    """Keypoints with a visibility flag of 2 are no outline: a pose set's lines are read by
    their box (as the loader reads them), so no die is named by another's line."""
    label = tmp_path / "p.txt"
    label.write_text(
        "0 0.20 0.20 0.05 0.05 0.19 0.19 2 0.21 0.21 2\n"
        "1 0.50 0.50 0.05 0.05 0.49 0.49 2 0.51 0.51 2\n"
        "0 0.80 0.80 0.05 0.05 0.79 0.79 1 0.81 0.81 1\n"
    )
    dice = parse_label_file(label, 2, "p.txt", [], pose=True)
    item = LabeledImage(tmp_path / "p.jpg", label, dice)
    assert len(dice) == 3 and label_lines(item, pose=True) == [1, 2, 3]
