"""The strangers' leaning dice (:mod:`vision.synth.leaning`): flat photos unchanged, leaning
dice drawn tilted on an edge, each label told leaning or not."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from vision.synth.leaning import LeaningCamera
from vision.synth.strangers import StrangerCamera, stranger


def test_with_no_share_the_photos_are_the_strangers_own() -> None:
    who = stranger(2805, tiny=True)
    plain, leaning = StrangerCamera(who, 4), LeaningCamera(who, 4, share=0.0)
    for _ in range(3):
        a, labels_a = plain.photo()
        b, labels_b = leaning.photo()
        assert np.array_equal(a, b) and labels_a == labels_b
        assert leaning.leaning == [False] * len(labels_b)


def test_a_leaning_die_takes_more_room_than_the_same_die_flat() -> None:
    """The same die in the same place, flat and then leaning: flat, its label is its top
    face; leaning, its box holds the top face foreshortened and the side it leans towards
    (a footprint cos + sin of the lean long: 1.33 to 1.41 times a side)."""
    who = replace(stranger(2811, tiny=True), tilt=0.0, dice=(1, 1))
    leaned = 0
    for seed in range(8):
        flat_photo, flat_labels = LeaningCamera(who, seed, share=0.0).photo()
        camera = LeaningCamera(who, seed, share=1.0)
        photo, labels = camera.photo()
        assert len(camera.leaning) == len(labels) == 1
        if not camera.leaning[0]:
            continue  # too near the photo's edge to lean
        leaned += 1
        (_, (_, _, w0, h0)), (_, (_, _, w1, h1)) = flat_labels[0], labels[0]
        assert w1 * h1 > 1.15 * w0 * h0
        assert not np.array_equal(photo, flat_photo)
    assert leaned >= 5
