"""Training the face classifier (:class:`vision.reading.model.FaceModel`) from description
rows: the projection onto their principal directions and the novelty distance, set from
the samples' own spread. Calibration (:mod:`vision.learning.calibrate`) calls it; the model
and its file format are :mod:`vision.reading.model`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.errors import ModelError
from vision.reading.detect import Detector, DetectorParams
from vision.reading.model import DEFAULT_THRESHOLD, FaceModel

NOVELTY_ROWS = 3000  # rows per face used to measure the novelty distance
# ... measured a block of rows at a time: a block's distances to a face's 8,000 samples
# take 16 MB, where all its rows at once took some 400 MB at calibration's peak
NOVELTY_BLOCK = 512


def enough_faces(learned: int, faces: int) -> bool:
    """Whether a model of ``faces`` faces may be learned from samples of ``learned`` of
    them: the one face of a one-face set, two or more of several (a model of one face of
    several would read every die as that face, sure: its runner-up is never near)."""
    return learned >= min(2, faces)


def train(
    face_set: str,
    names: Sequence[str],
    feats: NDArray[Any],
    labels: NDArray[Any],
    detector: Detector | DetectorParams,
    threshold: float = DEFAULT_THRESHOLD,
    groups: NDArray[Any] | None = None,
    dims: int | None = None,
) -> FaceModel:
    """Build a model from feature rows and their face indices.

    With ``dims``, distances are measured in the rows' ``dims`` principal
    directions (learned here, stored in the model).

    The novelty distance is set from the samples' own spread: twice the
    98th percentile of each sample's distance to its nearest sample of the same
    face from another die (``groups`` numbers the die each row comes from, so
    that a die's own turned copies do not count).

    Raises:
        ModelError: no samples, or samples of only one face of several (a face without
            samples is left unlearned: never read).
    """
    feats = np.asarray(feats, dtype=np.float32)
    labels = np.asarray(labels, dtype=np.int64)
    if len(feats) == 0:
        raise ModelError("no face samples to learn from")
    missing = [names[c] for c in range(len(names)) if not (labels == c).any()]
    if len(names) < 1:
        raise ModelError("a face set needs at least one face")
    if not enough_faces(len(names) - len(missing), len(names)):
        raise ModelError(
            f"no sample of face(s) {', '.join(missing)}: a model tells two or more faces apart"
        )
    mean: NDArray[Any] | None = None
    basis: NDArray[Any] | None = None
    if dims is not None and dims < min(feats.shape):
        mean = feats.mean(0)
        step = max(1, len(feats) // 8000)
        _, _, vt = np.linalg.svd(feats[::step] - mean, full_matrices=False)
        basis = np.ascontiguousarray(vt[:dims].T, dtype=np.float32)
        feats = ((feats - mean) @ basis).astype(np.float32)
    nn: list[float] = []
    sq = (feats**2).sum(1)
    group = np.arange(len(feats)) if groups is None else np.asarray(groups)
    for c in range(len(names)):
        sel = labels == c
        x = feats[sel]
        if len(x) < 2:
            continue
        rows = np.arange(len(x))[:: max(1, len(x) // NOVELTY_ROWS)]
        sq_c, group_c = sq[sel], group[sel]
        for start in range(0, len(rows), NOVELTY_BLOCK):  # a block of rows x the face's samples
            block = rows[start : start + NOVELTY_BLOCK]
            d2 = sq_c[block, None] + sq_c[None, :] - 2 * x[block] @ x.T
            d2[group_c[block, None] == group_c[None, :]] = np.inf
            nearest = d2.min(1)
            nn.extend(np.sqrt(np.maximum(nearest[np.isfinite(nearest)], 0)).tolist())
    novelty = 2.0 * float(np.percentile(nn, 98)) if nn else 10.0
    if isinstance(detector, DetectorParams):
        detector = Detector(detector)
    return FaceModel(
        face_set, tuple(names), feats, labels, detector, threshold, novelty, mean=mean, basis=basis
    )
