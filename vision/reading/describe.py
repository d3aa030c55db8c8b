"""A die's description: what the face model compares.

Two views of a die, joined: the hand-made features of its top face
(:mod:`vision.reading.features`: a gradient histogram, a thumbnail and the layout of its
marks, on the patch cut upright at its centre) and the embedding of its
surroundings by the shipped network (:mod:`vision.reading.embedding`, trained on
thousands of invented dice designs to tell a die's faces apart). Each part has
unit length, so a calibration sample is near only if both agree. Alone, the
features read symbol dice and straight-down views perfectly but misread oblique
pip dice (side faces' pips fall in the patch); the embedding alone read those but
let a neighbour pressed against a die into its view (18 of 10,000 stress dice
wrong above the threshold). Joined, each covers the other's weak case (figures in
docs/decisions/vision.md). The surroundings are embedded by two shipped networks side
by side, each part times 1/sqrt(2) (together they weigh what one did): the first
trained on random designs only, the second on the strangers' dice sets too
(translucent, engraved, marbled, logo faces). Alone the second read the strangers
better and the real catan photos worse; joined, the strangers better and catan as
before (issue 28).

Both are cut in neutral light (:func:`light_gains`: the frame's colour cast taken
out), at calibration as at reading; a die read unsure is described again from a few
slightly moved cuts (:func:`describe_again`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading.embedding import EMBED_DIMS, default_embedding, die_views, strangers_embedding
from vision.reading.features import FEATURE_SIZE, Rect, cut_patches, features

DESCRIPTION_SIZE = FEATURE_SIZE + 2 * EMBED_DIMS
HALF = np.float32(1.0 / np.sqrt(2.0))  # two networks' parts weigh together what one did


def join(patches: NDArray[Any], views: NDArray[Any]) -> NDArray[Any]:
    """Descriptions (n x DESCRIPTION_SIZE) of n dice from their top-face patches
    (n x PATCH x PATCH) and their views (n x VIEW_PX x VIEW_PX), each pair in the same
    quarter turn.

    Raises:
        ModelError: a shipped network's file is missing or damaged.
    """
    out: NDArray[Any] = np.concatenate(
        [
            features(patches),
            HALF * default_embedding().embed(views),
            HALF * strangers_embedding().embed(views),
        ],
        axis=1,
    )
    return out


MAX_GAIN = 4.0  # a channel almost empty (a deep-coloured scene) is not blown up into noise


def light_gains(image: NDArray[Any]) -> NDArray[Any] | None:
    """The gains (one per colour channel, float32) that put a BGR frame (0..255) in
    neutral light: its three channel means made equal, their level kept (the grey-world
    assumption: a warm lamp or a cold day mostly scales the channels), each within
    1/MAX_GAIN..MAX_GAIN. None for a frame that is not three-channel."""
    if image.ndim != 3 or image.shape[2] != 3:
        return None
    means = np.array(cv2.mean(image)[:3], np.float64) + 1.0
    gains = np.clip(means.mean() / means, 1.0 / MAX_GAIN, MAX_GAIN)
    out: NDArray[Any] = gains.astype(np.float32)
    return out


def cut_die(
    image: NDArray[Any],
    rect: Rect,
    gains: NDArray[Any] | None = None,
    ink: NDArray[Any] | None = None,
    aspect: float = 1.0,
) -> tuple[NDArray[Any], NDArray[Any]]:
    """The die's top-face patch and its view, from an image at the face scale, each
    cut's colour channels times ``gains`` when given (:func:`light_gains`), read along
    the colour ``ink`` when given (the model's, :attr:`vision.reading.model.FaceModel.ink`);
    the patch stretched back to square by ``aspect`` (the model's
    :attr:`~vision.reading.detect.DetectorParams.face_aspect`)."""
    patch = cut_patches(image, [rect], gains, ink, aspect)[0]
    return patch, die_views(image, [rect], gains, ink)[0]


def describe_dice(
    image: NDArray[Any],
    rects: Sequence[Rect],
    gains: NDArray[Any] | None = None,
    ink: NDArray[Any] | None = None,
    aspect: float = 1.0,
) -> NDArray[Any]:
    """The descriptions (n x DESCRIPTION_SIZE) of the dice at ``rects`` (each cut's colour
    channels times ``gains`` when given, read along the colour ``ink`` when given, the
    patches stretched back to square by ``aspect``, as :func:`cut_die`).

    Raises:
        ModelError: a shipped network's file is missing or damaged.
    """
    if not rects:
        return np.zeros((0, DESCRIPTION_SIZE), np.float32)
    patches = cut_patches(image, rects, gains, ink, aspect)
    return join(patches, die_views(image, rects, gains, ink))


# a second look at a die read unsure: its cut turned, zoomed and moved a little
# (degrees, scale, and the shift as a share of the die's side); the first is the first
# look's own cut
SECOND_LOOK: tuple[tuple[float, float, float, float], ...] = (
    (0.0, 1.0, 0.0, 0.0),
    (7.0, 1.0, 0.0, 0.0),
    (-7.0, 1.0, 0.0, 0.0),
    (0.0, 1.08, 0.0, 0.0),
    (0.0, 0.93, 0.0, 0.0),
    (0.0, 1.0, 0.06, -0.06),
    (0.0, 1.0, -0.06, 0.06),
)


def describe_again(
    image: NDArray[Any],
    rects: Sequence[Rect],
    gains: NDArray[Any] | None = None,
    first: NDArray[Any] | None = None,
    ink: NDArray[Any] | None = None,
    aspect: float = 1.0,
) -> NDArray[Any]:
    """The descriptions of the dice at ``rects``, each cut the ``SECOND_LOOK`` ways:
    n x len(SECOND_LOOK) x DESCRIPTION_SIZE (for :meth:`vision.reading.model.FaceModel.classify`).
    ``first`` (n x DESCRIPTION_SIZE), the dice's descriptions as :func:`describe_dice` gave
    them, is taken for the first cut instead of cutting it again; ``ink`` and ``aspect``
    as there.

    Raises:
        ModelError: a shipped network's file is missing or damaged.
    """
    looks = SECOND_LOOK if first is None else SECOND_LOOK[1:]
    moved = [
        ((cx + dx * w, cy + dy * w), (w * zoom, h * zoom), angle + turn)
        for (cx, cy), (w, h), angle in rects
        for turn, zoom, dx, dy in looks
    ]
    described = describe_dice(image, moved, gains, ink, aspect)
    described = described.reshape(len(rects), len(looks), -1)
    if first is not None:
        described = np.concatenate([np.asarray(first)[:, None], described], axis=1)
    return described


def quarter_turned(patch: NDArray[Any], view: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """A die's patch and view, each in its four quarter turns (4 x side x side)."""
    return (
        np.stack([np.rot90(patch, k) for k in range(4)]),
        np.stack([np.rot90(view, k) for k in range(4)]),
    )
