"""tools/embedding/offline: the share of views read by their nearest face prototype."""

from __future__ import annotations

import numpy as np

from tools.embedding.dice import views
from tools.embedding.offline import faces_right
from vision.reading.embedding import default_embedding


def test_views_alike_within_a_face_are_read_right_and_a_misplaced_prototype_wrong() -> None:
    one = views(2, 1, seed=4)  # one view a face of two designs
    same_within = np.repeat(one, 4, axis=2)  # each face: four copies of its view
    assert np.array_equal(faces_right(default_embedding(), same_within), [1.0, 1.0])
    # each face's prototype made of the next face's view: every read lands on the wrong face
    misplaced = same_within.copy()
    misplaced[:, :, :2] = np.roll(same_within[:, :, :2], -1, axis=1)
    assert np.array_equal(faces_right(default_embedding(), misplaced), [0.0, 0.0])
