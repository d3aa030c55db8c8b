"""Colour groups of the owner's dice: sets of clearly different colours mixed in one tray.

One linear finder (:mod:`vision.learning.detect_train`) learns one direction in colour:
asked to like brown dice and blue ones, it likes neither well (what lies between them is
the table). Calibration measures each labeled die's mean colour and gives each group of
clearly different colour a finder of its own.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

# a group needs this many labeled dice, and an empty stretch between it and the other of
# this many times the groups' spread (one set's dice, lit and shaded, leave no such gap:
# at most 0.6 on the one-colour tables of 60 generated ones; sets of other colours 1.8 to 21)
MIN_GROUP_DICE = 8
GROUP_GAP = 1.5


def die_colour(square: NDArray[Any]) -> NDArray[Any]:
    """The mean CIE Lab colour of the middle half of a die's square (balanced, 0..255)."""
    n = square.shape[0]
    middle = square[n // 4 : n - n // 4, n // 4 : n - n // 4]
    lab = cv2.cvtColor(np.ascontiguousarray(middle, np.float32) * (1.0 / 255.0), cv2.COLOR_BGR2Lab)
    out: NDArray[Any] = lab.reshape(-1, 3).mean(0)
    return out


def colour_groups(colours: NDArray[Any]) -> NDArray[Any]:
    """Each die's colour group (0, 1, ...) from the dice's colours (n x 3, Lab): the dice
    are split in two by their colours (two means) when each part holds ``MIN_GROUP_DICE``
    dice or more and, along the line through the two means, an empty stretch of
    ``GROUP_GAP`` times the parts' spread lies between them; each part is split again
    the same way (three sets of three colours: three groups)."""
    x = np.asarray(colours, np.float64).reshape(-1, 3)
    out = np.zeros(len(x), np.int64)
    todo = [np.arange(len(x))]
    groups = 0
    while todo:
        members = todo.pop()
        parts = _colour_split(x[members])
        if parts is None:
            out[members] = groups
            groups += 1
        else:
            todo.extend([members[parts == 1], members[parts == 0]])
    return out


def _colour_split(x: NDArray[Any]) -> NDArray[Any] | None:
    """Each colour's part (0 or 1) when ``x`` (n x 3) falls in two parts apart, else None."""
    if len(x) < 2 * MIN_GROUP_DICE:
        return None
    # two means, from the two colours farthest apart (deterministic); the squared
    # distances summed a coordinate at a time: n x n, not n x n x 3 (a tray of 1,000 dice)
    far = np.zeros((len(x), len(x)))
    for k in range(x.shape[1]):
        far += (x[:, k, None] - x[None, :, k]) ** 2
    i, j = np.unravel_index(int(np.argmax(far)), far.shape)
    means = x[[i, j]]
    part = np.zeros(len(x), np.int64)
    for _ in range(20):
        part = np.argmin(((x[:, None] - means[None]) ** 2).sum(2), axis=1)
        if np.bincount(part, minlength=2).min() < MIN_GROUP_DICE:
            return None
        means = np.stack([x[part == k].mean(0) for k in (0, 1)])
    axis = (means[1] - means[0]) / max(float(np.linalg.norm(means[1] - means[0])), 1e-9)
    along = x @ axis
    gap = float(along[part == 1].min() - along[part == 0].max())
    spread = math.sqrt(float(((along - (means @ axis)[part]) ** 2).mean()))
    return part if gap >= GROUP_GAP * max(spread, 1e-9) else None
