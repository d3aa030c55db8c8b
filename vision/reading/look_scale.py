"""How large a photo's dice are, chosen by how much they look like the owner's dice.

Where the finder cannot tell a photo's die size (:mod:`vision.reading.photo_scale`'s
measure missed the calibration photos': one to three dice a photo, a steep tilt), the
face model can: a die cut at its own size lies near the owner's samples, one cut a
half or twice too large does not. A photo is read at the sizes ``SCALE_STEP`` apart
within ``STEPS`` of the learned one, and, while the curve below is lowest at one end,
a step further that way (:func:`further_step`; an end within ``FLAT`` of the lowest counts,
since a curve that flat does not tell the size), as far as the calibration photos' own
dice reached (:func:`look_reach_steps`: an owner who photographed the dice from half the
usual distance once will again). An end is smoothed over two sizes, so a valley next
to it often makes the end lowest too: the look then takes one size more, and the
valley is weighed like any other. Photos whose dice read best well inside the nine
pay for no further size, and are not looked at where a tray's pattern might read
better still. At each size, the mean distance of the dice found to
the owner's nearest samples (the first look, :func:`vision.reading.die_scale.look_at_sizes`)
is one point of a curve over sizes. The curve is smoothed over three neighbouring sizes
(a die reads alike within a step, and one size's lucky read is not the answer), a size
where nothing was found counting as ``EMPTY_SIZE`` times the worst found, and its lowest
point, refined between its neighbours by a parabola, is the dice's size.

Where the finder does measure, the look checks it: it is noisier than the measure
within a step or two (a die reads alike at sizes close to its own), but not fooled by
what fools the finder (a photo of few dice, where the tray's texture weighs more). A
photo whose look lies more than ``OVERRULES`` steps from its measure (a box a quarter too
large or small, which starts to miss its die) is read at the look's size
(:func:`checked_die_scale`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.reading.detect import DetectorParams
from vision.reading.scaling import SCALE_STEP

# a size where the finder found no die weighs as this many times the worst mean distance
# found at any size: it must not look better than any size that found dice
EMPTY_SIZE = 1.2

# an end of the sizes looked at whose smoothed distance lies within this share of the
# lowest point's counts as lowest: a curve that flat does not tell the dice's size (two
# dice far under the nine read alike, and poorly, at each of them: a real set of two
# tables' photos, its dice 6 steps apart, lay 1-4 % over the lowest point there;
# docs/decisions/vision.md), so the look goes on that way
FLAT = 0.05

# steps (of SCALE_STEP) between the measured size and the looked one beyond which the
# look is taken: on the 20 hand-held strangers the look taken at any gap lost F1 on six
# tables whose measure was right (its finer size), and taken over 2 steps it still gave
# the five whose measure was off their gain (docs/decisions/vision.md)
OVERRULES = 2.0


def checked_die_scale(measured: float, looked: float) -> float:
    """The size a photo is read at, given the finder's ``measured`` size and the look's
    ``looked`` (both over the learned side): the measure, unless the look lies more than
    ``OVERRULES`` steps from it."""
    gap = abs(math.log(looked / measured)) / math.log(SCALE_STEP)
    return looked if gap > OVERRULES else measured


def look_reach_steps(params: DetectorParams) -> range:
    """The sizes a look at a photo may reach (it takes the nine, then goes further only
    as :func:`further_step` says), as powers of ``SCALE_STEP`` over the learned side: from
    ``-look_under`` to ``look_over``."""
    return range(-params.look_under, params.look_over + 1)


def further_step(
    distances: Sequence[Sequence[float]], offsets: Sequence[int], reach: range
) -> int | None:
    """The next size to look at, beyond the sizes looked at so far (``distances`` at
    ``offsets``, as :func:`looked_die_scale`'s): one step past an end where the curve is
    lowest, or within ``FLAT`` of its lowest (the end lying lower first), while that lies within
    ``reach`` (:func:`look_reach_steps`); None where the lowest point lies clearly inside,
    no size found a die, or the reach is used up."""
    low = _lowest(distances)
    if low is None:
        return None
    curve, i = low
    ends = sorted(((curve[0], offsets[0] - 1), (curve[-1], offsets[-1] + 1)))
    for value, step in ends:
        if value <= (1.0 + FLAT) * curve[i] and step in reach:
            return step
    return None


def looked_die_scale(distances: Sequence[Sequence[float]], offsets: Sequence[int]) -> float:
    """The side of a photo's dice over the learned side: where ``distances`` (for each of
    the sizes ``SCALE_STEP ** j`` for j in ``offsets``, consecutive, the distances to the
    owner's dice of the dice found reading the photo at that size) are smallest on the
    whole (see the module notes); 1.0 when no size found a die.

    Raises:
        ValueError: not one list of distances for each size.
    """
    if len(distances) != len(offsets):
        raise ValueError(f"{len(distances)} lists of distances for {len(offsets)} sizes")
    low = _lowest(distances)
    if low is None:
        return 1.0
    curve, i = low
    return float(SCALE_STEP ** (offsets[i] + _vertex(curve, i)))


def _lowest(distances: Sequence[Sequence[float]]) -> tuple[NDArray[Any], int] | None:
    """The smoothed curve of the sizes' mean ``distances`` and where it is lowest; None
    when no size found a die."""
    means = np.array([_mean(found) for found in distances])
    if np.isnan(means).all():
        return None
    curve = smoothed(means)
    return curve, int(np.argmin(curve))


def smoothed(means: NDArray[Any]) -> NDArray[Any]:
    """Each size's mean distance averaged with its two neighbours' (a size that found no
    die, NaN, counts as ``EMPTY_SIZE`` times the largest found); infinite where the size
    itself found none."""
    filled = np.where(np.isnan(means), EMPTY_SIZE * np.nanmax(means), means)
    padded = np.concatenate([[np.nan], filled, [np.nan]])
    window = np.stack([padded[:-2], padded[1:-1], padded[2:]])
    out: NDArray[Any] = np.nanmean(window, axis=0)
    return np.where(np.isnan(means), np.inf, out)


def _vertex(curve: NDArray[Any], i: int) -> float:
    """How far (in steps, within half a step) the lowest point of the parabola through the
    ``i``-th value of ``curve`` and its neighbours lies from it; 0 at an end or where the
    three are not a valley."""
    if not 0 < i < len(curve) - 1 or not np.isfinite(curve[i - 1 : i + 2]).all():
        return 0.0
    before, at, after = curve[i - 1 : i + 2]
    bend = before - 2 * at + after
    if bend <= 0:
        return 0.0
    return float(np.clip(0.5 * (before - after) / bend, -0.5, 0.5))


def _mean(values: Sequence[float]) -> float:
    """The mean of ``values``; NaN for none."""
    return float(np.mean(values)) if len(values) else float("nan")
