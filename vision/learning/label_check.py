"""Likely label mistakes: labeled dice that look like another face than their label
to the owner's other dice, named by file and line."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.learning.dataset import LabeledImage, label_rows


def label_problems(
    views: NDArray[Any],
    samples: NDArray[Any],
    labels: NDArray[Any],
    groups: NDArray[Any],
    die_cls: NDArray[Any],
    where: list[str],
    names: Sequence[str],
    photos: NDArray[Any] | None = None,
) -> list[tuple[int, str]]:
    """Labeled dice that the face classifier, learned without them, reads clearly as
    another face (views: n x D, each die's description as labeled): likely label mistakes,
    each as its die's index and the warning naming it.

    With ``photos`` (the photo of each die), a die is compared only with the dice of the
    other photos: its neighbours share its light and view, and on dice whose faces look
    alike (marbled, translucent) a neighbour of another face can be its nearest die
    though its label is right. A wrong label still looks like its true face's dice in
    the other photos.

    A mislabeled die also makes its true face's other dice look like its wrong label
    (each is the other's nearest die): the clearest case is named first, and its
    samples no longer count against the others.
    """
    out: list[tuple[int, str]] = []
    n = len(views)
    if n < 3:
        return out
    sq = (samples**2).sum(1)
    dist = np.empty((n, len(samples)), np.float32)  # each die to each sample, not its own
    for i in range(n):
        v = views[i]
        dist[i] = np.sqrt(np.maximum(float(v @ v) + sq - 2 * samples @ v, 0))
        dist[i, groups == i] = np.inf
        if photos is not None:
            dist[i, photos[groups] == photos[i]] = np.inf
    named: set[int] = set()
    while True:
        counted = ~np.isin(groups, list(named))
        worst: tuple[float, int, int, int] | None = None  # ratio, die, face, like die
        for i in (i for i in range(n) if i not in named):
            d = np.where(counted, dist[i], np.inf)
            per = np.array([d[labels == c].min(initial=np.inf) for c in range(len(names))])
            best = int(np.argmin(per))
            own = per[die_cls[i]]
            ratio = float(per[best] / own) if np.isfinite(own) and own > 0 else 1.0
            if best != die_cls[i] and ratio < 0.8 and (worst is None or ratio < worst[0]):
                like = int(groups[int(np.argmin(np.where(labels == best, d, np.inf)))])
                worst = (ratio, i, best, like)
        if worst is None:
            return out
        _, i, best, like = worst
        named.add(i)
        out.append((
            i,
            f"{where[i]}: labeled {names[die_cls[i]]!r} but looks like {names[best]!r} "
            f"(like {where[like]}); check the label, and if it is right photograph more "
            f"{names[die_cls[i]]!r} dice like it (a face seen on one die in this look is "
            "read as the look-alike seen on many)",
        ))  # fmt: skip


def label_lines(item: LabeledImage, pose: bool = False) -> list[int]:
    """The line number of each die of a label file, in order (blank lines and a die's
    repeated line skipped, as the dataset's loader skips them; ``pose``: a pose set's)."""
    return [number for number, _ in label_rows(item.label, 10**9, "", [], pose)]


def relative_name(path: Path, root: Path) -> str:
    """``path`` relative to ``root`` when it lies under it, else as it is."""
    try:
        return str(path.relative_to(root))
    except ValueError:
        return str(path)
