"""A die's description: what the face model compares.

Two views of a die, joined: the hand-made features of its top face
(:mod:`vision.features`: a gradient histogram, a thumbnail and the layout of its
marks, on the patch cut upright at its centre) and the embedding of its
surroundings by the shipped network (:mod:`vision.embedding`, trained on
thousands of invented dice designs to tell a die's faces apart). Each part has
unit length, so a calibration sample is near only if both agree. Alone, the
features read symbol dice and straight-down views perfectly but misread oblique
pip dice (side faces' pips fall in the patch); the embedding alone read those but
let a neighbour pressed against a die into its view (18 of 10,000 stress dice
wrong above the threshold). Joined, each covers the other's weak case (figures in
vision/README.md, "Why this method").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.embedding import EMBED_DIMS, Rect, default_embedding, die_view
from vision.features import FEATURE_SIZE, cut_patch, features_many

DESCRIPTION_SIZE = FEATURE_SIZE + EMBED_DIMS


def join(patches: NDArray[Any], views: NDArray[Any]) -> NDArray[Any]:
    """Descriptions (n x DESCRIPTION_SIZE) of n dice from their top-face patches
    (n x PATCH x PATCH) and their views (n x VIEW_PX x VIEW_PX), each pair in the same
    quarter turn.

    Raises:
        ModelError: the shipped network's file is missing or damaged.
    """
    out: NDArray[Any] = np.concatenate(
        [features_many(patches), default_embedding().embed(views)], axis=1
    )
    return out


def cut_die(image: NDArray[Any], rect: Rect) -> tuple[NDArray[Any], NDArray[Any]]:
    """The die's top-face patch and its view, from an image at the face scale."""
    return cut_patch(image, rect), die_view(image, rect)


def describe_dice(image: NDArray[Any], rects: Sequence[Rect]) -> NDArray[Any]:
    """The descriptions (n x DESCRIPTION_SIZE) of the dice at ``rects``.

    Raises:
        ModelError: the shipped network's file is missing or damaged.
    """
    if not rects:
        return np.zeros((0, DESCRIPTION_SIZE), np.float32)
    patches, views = zip(*(cut_die(image, r) for r in rects), strict=True)
    return join(np.stack(patches), np.stack(views))


def quarter_turned(patch: NDArray[Any], view: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """A die's patch and view, each in its four quarter turns (4 x side x side)."""
    return (
        np.stack([np.rot90(patch, k) for k in range(4)]),
        np.stack([np.rot90(view, k) for k in range(4)]),
    )
