"""The colour the owner's faces are read in, chosen at calibration.

A face is read in one channel of its colours
(:func:`vision.reading.features.contrast_channels`). By default each die is read along
its own colours' widest spread: black pips on ivory, red pips on yellow, white numerals
on blue all stand out so. On a marbled die the widest spread is often the marble's
swirls, not the marks: pink numerals on a purple and green marble stand out along
magenta against green, and are faint along the swirls. No rule of thumb finds that
direction for every set of dice, so calibration measures it: the owner's labeled dice
are read in each of ``CANDIDATES`` (and each die's own), each die against the dice of
the *other* photos (its nearest one, in its four quarter turns), and a fixed colour
replaces each die's own only when it reads clearly more of them right (``MIN_Z``: more
dice won than lost, beyond chance among the candidates). Most sets keep their own.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.reading.describe import join
from vision.reading.embedding import view_cuts
from vision.reading.features import Rect, in_channel, upright_cuts

EACH_DIES_OWN = "each die's own"
# fixed colours, BGR directions (the frame's cast is taken out first, so a grey body is
# grey): single channels, grey, and each channel against another or the other two
CANDIDATES: tuple[tuple[str, tuple[float, float, float]], ...] = (
    ("blue", (1.0, 0.0, 0.0)),
    ("green", (0.0, 1.0, 0.0)),
    ("red", (0.0, 0.0, 1.0)),
    ("grey", (1.0, 1.0, 1.0)),
    ("cyan", (1.0, 1.0, 0.0)),
    ("magenta", (1.0, 0.0, 1.0)),
    ("yellow", (0.0, 1.0, 1.0)),
    ("blue against green", (1.0, -1.0, 0.0)),
    ("blue against red", (1.0, 0.0, -1.0)),
    ("green against red", (0.0, 1.0, -1.0)),
    ("cyan against red", (1.0, 1.0, -1.0)),
    ("magenta against green", (1.0, -1.0, 1.0)),
    ("yellow against blue", (-1.0, 1.0, 1.0)),
)
MAX_DICE = 240  # dice the choice is measured on (a seeded draw past it): a few seconds
# a fixed colour must win this many standard deviations more dice than it loses against
# each die's own (a sign test): 2 for one candidate, about 3 for the best of 13
# (Bonferroni: a one-sided 2.5 % shared by 13 is z 2.9), so that luck does not choose
MIN_Z = 3.0


@dataclass(frozen=True)
class ChannelChoice:
    """The colour chosen (None: each die's own) and how each candidate read."""

    ink: NDArray[Any] | None  # BGR, unit length
    name: str
    held_out: dict[str, float]  # share of dice read right against other photos' dice

    def to_json(self) -> dict[str, Any]:
        """Plain values for calibration's report."""
        return {
            "chosen": self.name,
            "held_out": {name: round(share, 3) for name, share in self.held_out.items()},
        }


def unit(direction: Sequence[float]) -> NDArray[Any]:
    """``direction`` scaled to unit length (float32)."""
    v = np.asarray(direction, np.float32)
    out: NDArray[Any] = v / np.float32(np.linalg.norm(v))
    return out


def choose_channel(
    faces: Sequence[NDArray[Any]],
    gains: Sequence[NDArray[Any] | None],
    dice: Sequence[tuple[int, Rect, int]],
    rng: np.random.Generator,
) -> ChannelChoice:
    """Choose the colour to read faces in from labeled dice: ``dice`` are (photo index,
    the die's rectangle in ``faces[photo]`` at the face scale, its face); ``gains`` each
    photo's gains to neutral light. Gray photos, or dice from fewer than two photos, keep
    each die's own colours.

    Raises:
        ModelError: a shipped network's file is missing or damaged.
    """
    own = ChannelChoice(None, EACH_DIES_OWN, {})
    if len(dice) > MAX_DICE:
        dice = [dice[int(i)] for i in sorted(rng.choice(len(dice), MAX_DICE, replace=False))]
    photo = np.array([k for k, _, _ in dice])
    if len(np.unique(photo)) < 2 or any(faces[k].ndim != 3 for k in np.unique(photo)):
        return own
    cls = np.array([c for _, _, c in dice])
    patches, views = _cuts(faces, gains, dice)
    # each die against each quarter turn of every die: those of its own photo do not count
    same_photo = np.repeat(photo[:, None] == photo[None, :], 4, axis=1)
    right = {EACH_DIES_OWN: _reads_right(patches, views, None, cls, same_photo)}
    for name, direction in CANDIDATES:
        right[name] = _reads_right(patches, views, unit(direction), cls, same_photo)
    shares = {name: float(r.mean()) for name, r in right.items()}
    best = max((name for name, _ in CANDIDATES), key=lambda name: shares[name])
    won = int((right[best] & ~right[EACH_DIES_OWN]).sum())
    lost = int((right[EACH_DIES_OWN] & ~right[best]).sum())
    if won - lost < MIN_Z * math.sqrt(max(won + lost, 1)):
        return ChannelChoice(None, EACH_DIES_OWN, shares)
    return ChannelChoice(unit(dict(CANDIDATES)[best]), best, shares)


def _cuts(
    faces: Sequence[NDArray[Any]],
    gains: Sequence[NDArray[Any] | None],
    dice: Sequence[tuple[int, Rect, int]],
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Each die's patch and view cut in colour, in neutral light (n x s x s x 3 each)."""
    patches, views = [], []
    for k, rect, _ in dice:
        g = np.ones(3, np.float32) if gains[k] is None else gains[k]
        patches.append(upright_cuts(faces[k], [rect])[0] * g)
        views.append(view_cuts(faces[k], [rect])[0].astype(np.float32) * g)
    return np.stack(patches), np.stack(views)


def _reads_right(
    patches: NDArray[Any],
    views: NDArray[Any],
    ink: NDArray[Any] | None,
    cls: NDArray[Any],
    same_photo: NDArray[Any],
) -> NDArray[Any]:
    """Whether each die, read along ``ink``, is nearest to a die of its own face among
    the other photos' dice (each in its four quarter turns; ``same_photo``: n x 4n, the
    turns not to count)."""
    p, v = in_channel(patches, ink=ink), in_channel(views, ink=ink)
    turns = np.stack(
        [join(np.rot90(p, k, axes=(1, 2)), np.rot90(v, k, axes=(1, 2))) for k in range(4)], 1
    )
    n = len(cls)
    sims = turns[:, 0] @ turns.reshape(n * 4, -1).T  # n x 4n, each die against every turn
    sims[same_photo] = -np.inf
    nearest: NDArray[Any] = cls[sims.argmax(1) // 4] == cls
    return nearest
