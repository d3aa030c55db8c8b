"""The face confidence threshold, learned from the owner's own dice.

A fixed threshold trusts every table alike: on a table whose faces the model
tells apart well it asks too often, on one where two faces look alike (a marbled
3 and 5, engraved numerals seen obliquely) it guesses. Calibration knows which
table it has: each labeled die is read by the model without its own copies
(``held_out_reads``), and the threshold is raised over the surest of those reads
that came out wrong, with a margin for new photos (``learned_threshold``). Dice reported as
likely label mistakes do not count: their label, not the model, is wrong.

Zero mistakes among few held-out dice vouch for little: with n dice all read right, the
share read wrong and sure may still be up to about 3/n (the rule of three, 95 %), so
only ``CERTIFIED_DICE`` (600: 3/600 is the 0.5 % goal) vouch for the default threshold.
Under that the threshold starts higher (``few_dice_floor``): by the cube root of the
shortfall, at most ``FEW_DICE_CAP``. A table of 40 dice asks under about 0.30, one of
200 under 0.17, one of 600 or more as before.

Two faces that look alike are mostly one pair (a marbled 3 and 5; a 2 and a 3 of two
sets seen obliquely), so each pair of faces has its own threshold too
(``pair_thresholds``): raised over the surest held-out read of one as the other, with
the same margin, and applied to a die read as one with the other its runner-up. There a
die named as a likely label mistake counts: if its label is right, its faces do look
alike and the reader must ask; if it is wrong, the reader asks about that one pair
until the label is mended, and reads every other die as before. The mistakes the one
threshold tolerates (the surest 0.25 % of a large table's dice) are tolerated here too.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from vision.reading.model import FaceModel

MAX_THRESHOLD = 0.45  # past this a table reads too poorly to ask about every die: warn
# A die of a new photo (another throw, another light) is read wrong more surely than
# calibration's own dice are: on a translucent, oblique stranger (seed 2800) the surest
# held-out mistake had confidence 0.11, its new photos' mistakes 0.12-0.29.
NEW_PHOTO_MARGIN = 1.6
TOLERATED = 0.0025  # the share of held-out dice that may stay wrong and sure (half the 0.5 % goal)
CERTIFIED_DICE = 600  # held-out dice that, all read right, vouch for the 0.5 % goal (3/600)
FEW_DICE_CAP = 0.3  # the most few_dice_floor asks for (a table of 38 dice or fewer)
ROWS_AT_ONCE = 64  # dice measured per matrix product (bounds memory: 64 x samples)


class HeldOutReads(NamedTuple):
    """Calibration's own dice, each read without its own copies: per die, the face read,
    its confidence and the runner-up face."""

    guess: NDArray[np.int64]
    conf: NDArray[np.float64]
    second: NDArray[np.int64]


def held_out_reads(
    model: FaceModel,
    rows: NDArray[np.int64],
    groups: NDArray[np.int64],
    leave_out: Iterable[int] = (),
) -> HeldOutReads:
    """Read the model's own sample ``rows`` (one per die) as the reader would, each
    without the samples of its own die (``groups``: the die of every sample, in the
    model's sample order) and of the dice ``leave_out`` (likely label mistakes, which
    would pull the others their way): the face read, its confidence and the runner-up,
    per row (the runner-up of a one-face set is its face)."""
    samples, labels = model.samples, model.labels
    gone = np.isin(groups, list(leave_out))
    masks = [labels == c for c in range(len(model.names))]
    sq = (samples**2).sum(1)
    guess = np.zeros(len(rows), np.int64)
    conf = np.zeros(len(rows), np.float64)
    runner_up = np.zeros(len(rows), np.int64)
    for start in range(0, len(rows), ROWS_AT_ONCE):
        chunk = rows[start : start + ROWS_AT_ONCE]
        x = samples[chunk]
        d2 = (x**2).sum(1)[:, None] + sq[None, :] - 2 * (x @ samples.T)
        d2[groups[chunk][:, None] == groups[None, :]] = np.inf
        d2[:, gone] = np.inf
        per_face = np.stack([d2[:, m].min(1, initial=np.inf) for m in masks], axis=1)
        per_face = np.sqrt(np.maximum(per_face, 0.0)).astype(np.float64)
        order = np.argsort(per_face, axis=1)
        best = np.take_along_axis(per_face, order[:, :1], 1)[:, 0]
        if len(model.names) > 1:
            second = np.take_along_axis(per_face, order[:, 1:2], 1)[:, 0]
            runner_up[start : start + len(chunk)] = order[:, 1]
        else:
            second = np.full_like(best, np.inf)
            runner_up[start : start + len(chunk)] = order[:, 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            c = np.where(np.isfinite(second) & (second > 0), 1.0 - best / second, 1.0)
        guess[start : start + len(chunk)] = order[:, 0]
        conf[start : start + len(chunk)] = np.where(np.isfinite(best), c, 0.0)
    return HeldOutReads(guess, conf, runner_up)


def few_dice_floor(floor: float, dice: int) -> float:
    """``floor`` raised where calibration's ``dice`` (held out, each read without its own
    copies) are too few to vouch for it (see the module notes): ``floor`` times the cube
    root of ``CERTIFIED_DICE / dice``, at most ``FEW_DICE_CAP`` (or ``floor`` if higher)."""
    if dice >= CERTIFIED_DICE:
        return floor
    raised = floor * (CERTIFIED_DICE / max(dice, 1)) ** (1.0 / 3.0)
    return float(max(floor, min(raised, FEW_DICE_CAP)))


def threshold_warning(
    threshold: float, floor: float, default: float, confused: int, dice: int
) -> str | None:
    """Why calibration asks about more dice than ``default`` would (None: it does not):
    held-out dice read as another face raised ``threshold`` over ``floor``, or ``dice``
    were too few to vouch for ``default`` (``floor`` raised by :func:`few_dice_floor`)."""
    if threshold > floor:
        return (
            f"faces look alike: {confused} of {dice} labeled dice, each read without its own "
            f"copies, were read as another face; the reader asks about every die read with "
            f"confidence under {threshold:.2f} (not {default:.2f}); more photos of every "
            "face make it surer"
        )
    if floor > default:
        return (
            f"{dice} labeled dice are too few to show that the reader seldom misreads a "
            f"face: it asks about every die read with confidence under {floor:.2f} (not "
            f"{default:.2f}); with {CERTIFIED_DICE} or more it asks as little as it can"
        )
    return None


def learned_threshold(
    guess: NDArray[np.int64],
    conf: NDArray[np.float64],
    truth: NDArray[np.int64],
    floor: float,
    ignore: Iterable[int] = (),
) -> float:
    """The confidence under which a read is unsure: ``floor``, raised to
    ``NEW_PHOTO_MARGIN`` times the surest wrong held-out read (past the ``TOLERATED``
    share of the dice; dice ``ignore``d aside), at most ``MAX_THRESHOLD``."""
    wrong, tolerated = _surest_mistakes(guess, conf, truth, ignore)
    if len(wrong) <= tolerated:
        return floor
    surest = float(conf[wrong[tolerated]])
    return float(min(max(floor, NEW_PHOTO_MARGIN * surest), MAX_THRESHOLD))


def tolerated_mistakes(
    guess: NDArray[np.int64],
    conf: NDArray[np.float64],
    truth: NDArray[np.int64],
    ignore: Iterable[int] = (),
) -> NDArray[np.int64]:
    """The held-out dice whose mistakes :func:`learned_threshold` tolerates (the surest
    ``TOLERATED`` share of the dice counted), by index."""
    wrong, tolerated = _surest_mistakes(guess, conf, truth, ignore)
    return wrong[:tolerated]


def _surest_mistakes(
    guess: NDArray[np.int64],
    conf: NDArray[np.float64],
    truth: NDArray[np.int64],
    ignore: Iterable[int],
) -> tuple[NDArray[np.int64], int]:
    """The wrong held-out reads of the dice not ``ignore``d, surest first (indices), and
    how many of them are tolerated."""
    counted = np.ones(len(guess), bool)
    counted[list(ignore)] = False
    wrong = np.flatnonzero(counted & (guess != truth))
    wrong = wrong[np.argsort(-conf[wrong], kind="stable")]
    return wrong, int(TOLERATED * int(counted.sum()))


def pair_thresholds(
    reads: HeldOutReads, truth: NDArray[np.int64], faces: int, ignore: Iterable[int] = ()
) -> NDArray[Any]:
    """Each pair of faces' own threshold (faces x faces, symmetric; 0 where the pair was
    never confused): ``NEW_PHOTO_MARGIN`` times the surest held-out die read as one of
    the two with the other its runner-up, wrong, at most ``MAX_THRESHOLD``. Likely label
    mistakes count (see the module notes); the dice ``ignore``d do not (calibration
    passes the mistakes the one threshold tolerates: a pair is not raised by the one
    mistake a large table is forgiven)."""
    out = np.zeros((faces, faces), np.float32)
    counted = np.ones(len(truth), bool)
    counted[list(ignore)] = False
    for i in np.flatnonzero((reads.guess != truth) & counted):
        a, b = int(reads.guess[i]), int(reads.second[i])
        if a == b:
            continue
        bar = min(NEW_PHOTO_MARGIN * float(reads.conf[i]), MAX_THRESHOLD)
        out[a, b] = out[b, a] = max(float(out[a, b]), bar)
    return out


def raised_pairs(pairs: NDArray[Any], threshold: float) -> list[tuple[float, int, int]]:
    """The pairs of faces held to more than ``threshold``: (their threshold, face, face),
    each pair once, surest first."""
    faces = len(pairs)
    return sorted(
        (
            (float(pairs[a, b]), a, b)
            for a in range(faces)
            for b in range(a + 1, faces)
            if pairs[a, b] > threshold
        ),
        reverse=True,
    )


def pair_warning(
    pairs: NDArray[Any],
    threshold: float,
    names: Sequence[str],
    by_mistakes: NDArray[Any] | None = None,
) -> str | None:
    """The calibration warning naming the pairs of faces held to more than ``threshold``
    (surest first), or None when there are none. ``by_mistakes`` (faces x faces, true
    where a likely label mistake raised the pair's threshold over what the other dice
    did) marks those pairs as such."""
    raised = raised_pairs(pairs, threshold)
    if not raised:
        return None
    listed = ", ".join(
        f"{names[a]!r} and {names[b]!r} (under {bar:.2f}"
        + (
            "; raised by a die named above as a likely label mistake"
            if by_mistakes is not None and by_mistakes[a, b]
            else ""
        )
        + ")"
        for bar, a, b in raised
    )
    return (
        f"faces that look alike: {listed}; a die read as one of a pair with the other "
        "close behind is asked about under that confidence; more photos of those faces "
        "make the reader surer"
    )
