"""The colour the owner's faces are read in, chosen at calibration.

A face is read in one channel of its colours
(:func:`vision.reading.features.contrast_channels`). By default each die is read along
its own colours' widest spread: black pips on ivory, red pips on yellow, white numerals
on blue all stand out so. On a marbled die the widest spread is often the marble's
swirls, not the marks: pink numerals on a purple and green marble stand out along
magenta against green, and are faint along the swirls. No rule of thumb finds that
direction for every set of dice, so calibration measures it: the owner's labeled dice
are read in each of ``CANDIDATES`` (and each die's own), each die against the dice of
the *other* photos (its ``NEIGHBOURS`` nearest, each in its best quarter turn, vote on
its face), and a fixed colour replaces each die's own only when it wins clearly more of
those votes (``MIN_Z``: more dice with more votes than with fewer, beyond chance among
the candidates). Most sets keep their own.
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
# each die's nearest dice among the other photos' that vote on its face: one nearest die
# says right or wrong, and a table of 80 dice read 93 % right has too few wrong ones for
# any colour to pass MIN_Z; three also weigh the dice read right (docs/decisions/vision.md)
NEIGHBOURS = 3


@dataclass(frozen=True)
class ChannelChoice:
    """The colour chosen (None: each die's own) and how each candidate read."""

    ink: NDArray[Any] | None  # BGR, unit length
    name: str
    held_out: dict[str, float]  # share of the other photos' nearest dice of the same face

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
    aspect: float = 1.0,
) -> ChannelChoice:
    """Choose the colour to read faces in from labeled dice: ``dice`` are (photo index,
    the die's rectangle in ``faces[photo]`` at the face scale, its face); ``gains`` each
    photo's gains to neutral light; ``aspect`` the top faces' foreshortening, undone in
    the patches as reading undoes it. Gray photos, or dice from fewer than two photos, keep
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
    patches, views = _cuts(faces, gains, dice, aspect)
    same_photo = photo[:, None] == photo[None, :]  # the dice that do not vote on each other
    votes = {EACH_DIES_OWN: _votes(_nearness(patches, views, None), cls, same_photo)}
    for name, direction in CANDIDATES:
        votes[name] = _votes(_nearness(patches, views, unit(direction)), cls, same_photo)
    shares = {name: float(v.mean()) / NEIGHBOURS for name, v in votes.items()}
    best = max((name for name, _ in CANDIDATES), key=lambda name: shares[name])
    won = int((votes[best] > votes[EACH_DIES_OWN]).sum())
    lost = int((votes[best] < votes[EACH_DIES_OWN]).sum())
    if won - lost < MIN_Z * math.sqrt(max(won + lost, 1)):
        return ChannelChoice(None, EACH_DIES_OWN, shares)
    return ChannelChoice(unit(dict(CANDIDATES)[best]), best, shares)


def _cuts(
    faces: Sequence[NDArray[Any]],
    gains: Sequence[NDArray[Any] | None],
    dice: Sequence[tuple[int, Rect, int]],
    aspect: float,
) -> tuple[NDArray[Any], NDArray[Any]]:
    """Each die's patch (stretched back to square by ``aspect``) and view cut in colour,
    in neutral light (n x s x s x 3 each)."""
    patches, views = [], []
    for k, rect, _ in dice:
        g = np.ones(3, np.float32) if gains[k] is None else gains[k]
        patches.append(upright_cuts(faces[k], [rect], aspect)[0] * g)
        views.append(view_cuts(faces[k], [rect])[0].astype(np.float32) * g)
    return np.stack(patches), np.stack(views)


def _nearness(patches: NDArray[Any], views: NDArray[Any], ink: NDArray[Any] | None) -> NDArray[Any]:
    """How alike each pair of dice is, read along ``ink`` (n x n: die i as cut against
    die j in the quarter turn that brings it nearest)."""
    p, v = in_channel(patches, ink=ink), in_channel(views, ink=ink)
    turns = np.stack(
        [join(np.rot90(p, k, axes=(1, 2)), np.rot90(v, k, axes=(1, 2))) for k in range(4)], 1
    )
    n = len(p)
    sims = turns[:, 0] @ turns.reshape(n * 4, -1).T  # n x 4n, each die against every turn
    nearness: NDArray[Any] = sims.reshape(n, n, 4).max(axis=2)
    return nearness


def _votes(nearness: NDArray[Any], cls: NDArray[Any], same_photo: NDArray[Any]) -> NDArray[Any]:
    """How many of each die's ``NEIGHBOURS`` nearest dice show its face, among the dice
    not of its own photo (``same_photo``: n x n; fewer vote where fewer are left)."""
    near = np.where(same_photo, -np.inf, nearness)
    nearest = np.argsort(-near, axis=1, kind="stable")[:, :NEIGHBOURS]
    counted = np.take_along_axis(near, nearest, axis=1) > -np.inf
    votes: NDArray[Any] = ((cls[nearest] == cls[:, None]) & counted).sum(axis=1)
    return votes
