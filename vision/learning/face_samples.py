"""Face samples: each labeled die of the calibration photos, copied as reading may see it.

Each labeled die's top-face patch and view (:mod:`vision.reading.describe`), slightly
shifted, turned, zoomed (``JITTER``), stretched and sheared as if seen from another
angle (``WARPS``) and re-lit (:func:`relit`), each copy in its four quarter turns, is
described in the colour calibration chose (:mod:`vision.learning.face_channel`): the face
classifier's samples. Past ``MAX_SAMPLES`` of them (many dice), each die keeps fewer
copies (:func:`die_copies`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading.describe import cut_die, join, quarter_turned
from vision.reading.detect import FACE_DIE_PX, DetectorParams, face_side_at
from vision.reading.features import Rect

# each calibration die is also stored slightly turned, zoomed and shifted
# (degrees, scale, dx, dy in face-scale pixels: a die is FACE_DIE_PX wide)
JITTER: tuple[tuple[float, float, float, float], ...] = (
    (0.0, 1.0, 0.0, 0.0),
    (7.0, 1.0, 0.0, 0.0),
    (-7.0, 1.0, 0.0, 0.0),
    (0.0, 1.08, 0.0, 0.0),
    (0.0, 0.93, 0.0, 0.0),
    (0.0, 1.0, 2.5, -2.5),
    (0.0, 1.0, -2.5, 2.5),
    (15.0, 1.0, 0.0, 0.0),
    (-15.0, 1.0, 0.0, 0.0),
    (30.0, 1.0, 0.0, 0.0),
    (-30.0, 1.0, 0.0, 0.0),
    (45.0, 1.0, 0.0, 0.0),
)
# ... and seen as if from another angle: stretched along one of its axes or sheared
# (x scale, y scale, shear, along the die's own axes): an oblique camera foreshortens
WARPS: tuple[tuple[float, float, float], ...] = (
    (1.0, 1.0, 0.0),
    (1.0, 0.85, 0.0),
    (0.85, 1.0, 0.0),
    (1.0, 1.0, 0.12),
    (1.0, 1.0, -0.12),
    (1.0, 0.72, 0.0),
    (0.72, 1.0, 0.0),
)
COPIES = tuple((w, j) for w in range(len(WARPS)) for j in range(len(JITTER)))
# face samples a calibration keeps at most (each copy is stored in its four quarter turns):
# beyond it, each die keeps fewer copies (its own cut and a seeded draw of the others), so
# that a tray of many dice is learned in time and its model stays small (about 12 MB on
# disk, 25 MB in memory); fewer dice keep every copy
MAX_SAMPLES = 48_000


def _warped(
    face: NDArray[Any], cx: float, cy: float, angle: float, warp: tuple[float, float, float]
) -> tuple[NDArray[Any], float, float]:
    """The surroundings of a die (centre ``cx, cy``, rotation ``angle`` in degrees) with
    ``warp`` applied along the die's axes about its centre; the centre in the crop."""
    r = int(FACE_DIE_PX * 1.5)
    x0, y0 = int(cx) - r, int(cy) - r
    padded = cv2.copyMakeBorder(face, r, r, r, r, cv2.BORDER_REPLICATE)
    crop = padded[y0 + r : y0 + 3 * r, x0 + r : x0 + 3 * r]
    ccx, ccy = cx - x0, cy - y0
    if warp == (1.0, 1.0, 0.0):
        return crop, ccx, ccy
    sx, sy, shear = warp
    t = math.radians(angle)
    rot = np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])
    a = rot @ np.array([[sx, shear], [0.0, sy]]) @ rot.T
    c = np.array([ccx, ccy])
    m = np.hstack([a, (c - a @ c)[:, None]])
    out = cv2.warpAffine(crop, m, (crop.shape[1], crop.shape[0]), borderMode=cv2.BORDER_REPLICATE)
    return out, ccx, ccy


def relit(crop: NDArray[Any], rng: np.random.Generator) -> NDArray[Any]:
    """``crop`` (BGR uint8) in another light: brighter or dimmer, warmer or colder, another
    gamma, sometimes softer (a camera out of focus), with sensor noise."""
    y = crop.astype(np.float32) * rng.uniform(0.6, 1.3) * rng.uniform(0.85, 1.15, 3)
    y = 255.0 * (np.clip(y, 0, 255) / 255.0) ** rng.uniform(0.75, 1.35)
    if rng.random() < 0.5:
        y = cv2.GaussianBlur(y, (0, 0), rng.uniform(0.3, 1.0))
    y = y + rng.normal(0.0, rng.uniform(0.0, 5.0), y.shape)
    out: NDArray[Any] = np.clip(y, 0, 255).astype(np.uint8)
    return out


def die_copies(dice: int, rng: np.random.Generator) -> list[tuple[int, int]]:
    """The copies (warp, jitter indices, in order) one of ``dice`` calibration dice is
    stored as: all of them while the samples stay within ``MAX_SAMPLES``, else its own cut
    (the first) and a draw of the others from ``rng``."""
    keep = max(1, MAX_SAMPLES // (4 * max(1, dice)))
    if keep >= len(COPIES):
        return list(COPIES)
    others = rng.choice(np.arange(1, len(COPIES)), keep - 1, replace=False)
    return [COPIES[0]] + [COPIES[int(i)] for i in sorted(others)]


def labeled_rect(
    face: NDArray[Any], cx: float, cy: float, angle: float, params: DetectorParams
) -> Rect:
    """The rectangle a labeled die centred at face-scale (cx, cy), turned ``angle``
    degrees, is cut along: the side reading gives a die there (grown by the perspective)."""
    fh, fw = face.shape[:2]
    side = face_side_at(params, cx, cy, fw, fh)
    return ((cx, cy), (side, side), angle)


@dataclass(frozen=True)
class FaceSamples:
    """The described copies of the labeled dice, one row each."""

    feats: NDArray[Any]  # rows x DESCRIPTION_SIZE
    labels: NDArray[Any]  # each row's face
    groups: NDArray[Any]  # each row's die (its index in the dice given)
    plain: NDArray[Any]  # each row's copy is not warped (what label checks compare with)
    as_labeled: NDArray[Any]  # each die's row as labeled: not moved, warped nor turned


def face_samples(
    faces: Sequence[NDArray[Any]],
    light: Sequence[NDArray[Any] | None],
    dice: Sequence[tuple[int, float, float, float, int]],
    params: DetectorParams,
    ink: NDArray[Any] | None,
    seed: int,
) -> FaceSamples:
    """The samples of ``dice`` (photo index, face-scale centre x and y, rotation in
    degrees, face) on the photos at the face scale ``faces`` (``light``: each photo's
    gains to neutral light), read along the colour ``ink`` (None: each die's own).

    Raises:
        ModelError: a shipped network's file is missing or damaged.
    """
    feats: list[NDArray[Any]] = []
    labels: list[int] = []
    groups: list[int] = []
    plain: list[bool] = []
    as_labeled: list[int] = []
    light_rng = np.random.default_rng(seed + 1)  # the finder's stream stays as it was
    copies_rng = np.random.default_rng(seed + 2)
    for die_id, (k, cx, cy, angle, cls) in enumerate(dice):
        as_labeled.append(len(labels))  # the first copy: WARPS[0], JITTER[0], no turn
        patches: list[NDArray[Any]] = []
        views: list[NDArray[Any]] = []
        chosen = die_copies(len(dice), copies_rng)
        side = labeled_rect(faces[k], cx, cy, angle, params)[1][0]  # cut as reading will
        for w, warp in enumerate(WARPS):
            jitters = [j for ww, j in chosen if ww == w]
            if not jitters:
                continue
            warped, ccx, ccy = _warped(faces[k], cx, cy, angle, warp)
            for j in jitters:
                d_angle, zoom, dx, dy = JITTER[j]
                rect = ((ccx + dx, ccy + dy), (side * zoom, side * zoom), angle + d_angle)
                # the photo's gains, not the re-lit copy's: its cast stands for what grey
                # world leaves of another light (a scene that is not grey on average)
                crop = warped if w == 0 else relit(warped, light_rng)
                turned_patches, turned_views = quarter_turned(
                    *cut_die(crop, rect, light[k], ink, params.face_aspect)
                )
                patches.extend(turned_patches)
                views.extend(turned_views)
                plain.extend([w == 0] * len(turned_views))
        feats.append(join(np.stack(patches), np.stack(views)))
        labels.extend([cls] * len(views))
        groups.extend([die_id] * len(views))
    return FaceSamples(
        np.concatenate(feats),
        np.array(labels),
        np.array(groups),
        np.array(plain),
        np.array(as_labeled),
    )
