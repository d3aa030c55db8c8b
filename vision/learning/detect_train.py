"""Training the finder (the window detector of :mod:`vision.reading.detect`) on calibration photos.

A linear window detector is trained by logistic regression on the labeled dice
(re-lit, turned, rescaled, blurred, noisy copies, some with a neighbour die pasted
beside them) against windows of the same photos away from any die, then twice
more with the windows it wrongly scored highest (hard negatives). Dice of clearly
different colours (:func:`colour_groups`: sets mixed in one tray) get a finder each,
trained on their own dice against the same windows. Its threshold
is the middle of the range that reads the calibration photos best, measured on
photos each finder did not learn from. The scenes' colour model is
:mod:`vision.learning.scene_colour`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.learning.colour_groups import colour_groups, die_colour
from vision.learning.dataset import LabeledImage
from vision.reading.box_fit import Box
from vision.reading.detect import (
    FACE_DIE_PX,
    PEAKS_APART,
    Detector,
    DetectorParams,
    marks_contrast,
)
from vision.reading.finder_maps import SPAN, STRIDE, WINDOW_SIZE, feature_maps, score_map, window
from vision.reading.peaks import peaks
from vision.reading.scaling import image_length, shrink

POSITIVE_COPIES = 12  # augmented copies of each labeled die for the finder
NEGATIVES_PER_PHOTO = 250
HARD_PER_PHOTO = 120
OBLIQUE_TURN = 20.0  # degrees a copy of a die seen obliquely may be turned (see _augment)
MINING_ROUNDS = 2


@dataclass
class Photo:
    """One calibration photo at the working scales, with its labeled dice."""

    item: LabeledImage
    face: NDArray[Any]  # BGR, a die FACE_DIE_PX wide
    bal: NDArray[Any]  # balanced working image (float32), a die work_die_px wide
    centers: list[tuple[float, float]]  # labeled dice centres, face-scale pixels
    boxes: list[Box]  # labeled boxes in face-scale pixels
    angles: list[float]


def at_face_scale(
    image: NDArray[Any], factor: float, params: DetectorParams, die_scale: float = 1.0
) -> NDArray[Any]:
    """A photo decoded ``factor`` times smaller than its file (:func:`load_scaled`),
    scaled so that a die of ``params.die_frac`` (times ``die_scale``: the photo's dice's
    own size, :func:`vision.learning.die_size.photo_scales`) is ``FACE_DIE_PX`` wide."""
    w0, h0 = image.shape[1], image.shape[0]
    s = FACE_DIE_PX / (params.die_frac * die_scale * image_length(w0, h0) * factor) * factor
    return shrink(image, s)


@dataclass
class FinderTraining:
    """A finder trained on every calibration photo, and what its held-out reads found."""

    detector: Detector  # trained on every photo (threshold not set yet)
    cut: float  # the threshold on the detector's scores
    scale: float  # the detector's typical score on the dice it learned from
    n_dice: int  # labeled dice read by held-out finders
    fp_scores: list[float]  # held-out false detections' scores, over their finder's scale
    fp_where: list[tuple[int, float, float]]  # each one's photo and face-scale centre


def train_finder(
    photos: Sequence[Photo],
    params: DetectorParams,
    work_px: float,
    ratio: float,
    rng: np.random.Generator,
    seed: int,
    tick: Callable[[str], None],
    ignore: Sequence[tuple[int, float, float]] = (),
) -> FinderTraining:
    """Train the finder on ``photos`` (``ratio``: working over face-scale pixels) and set
    its threshold from two halves of the photos, each read by a finder trained on the
    other; ``tick(what)`` after each half and after the final finder. ``ignore``: places
    (photo, face-scale centre) of dice without a label, no negative taken there and a
    held-out peak there counted neither way."""
    skipped: list[list[tuple[float, float]]] = [[] for _ in photos]
    for k, x, y in ignore:
        skipped[k].append((x * ratio, y * ratio))
    pos_of: list[list[NDArray[Any]]] = []
    neg_of: list[list[NDArray[Any]]] = []
    cells_of: list[NDArray[Any]] = []
    ok_of: list[NDArray[Any]] = []
    # the owner's dice, cut square along their rotation: pasted beside other dice
    # (touching, overlapping) so that the finder learns clusters
    bank: list[NDArray[Any]] = []
    tilt = (params.size_slope_x, params.size_slope_y) if params.oblique else None
    for photo in photos:
        for (cx, cy), angle in zip(photo.centers, photo.angles, strict=True):
            bank.append(_die_square(photo.bal, cx * ratio, cy * ratio, angle, work_px))
    group_of = colour_groups(np.array([die_colour(square) for square in bank]).reshape(-1, 3))
    pos_group_of: list[list[int]] = []
    die_no = 0
    for photo, unlabelled in zip(photos, skipped, strict=True):
        pos: list[NDArray[Any]] = []
        pos_group: list[int] = []
        neg: list[NDArray[Any]] = []
        cells = feature_maps(photo.bal, work_px)
        cells_of.append(cells)
        wc = np.array([(cx * ratio, cy * ratio) for cx, cy in photo.centers]).reshape(-1, 2)
        shape = (cells.shape[1] - SPAN, cells.shape[2] - SPAN)
        ok = _eligible(shape, np.concatenate([wc, np.reshape(unlabelled, (-1, 2))]), work_px)
        ok_of.append(ok)
        for cx, cy in wc:
            pos_group.extend([int(group_of[die_no])] * (POSITIVE_COPIES + 1))
            die_no += 1
            pos.append(_centre_window(_augment(photo.bal, cx, cy, rng, True, tilt), work_px))
            for n_copy in range(POSITIVE_COPIES):
                crop = _augment(photo.bal, cx, cy, rng, False, tilt)
                # one or two neighbour dice touching or overlapping this one (a cluster)
                for _ in range((n_copy % 3 == 0) + (n_copy % 6 == 0)):
                    _paste_die(crop, bank[int(rng.integers(len(bank)))], rng,
                               float(rng.uniform(0.95, 1.25)) * work_px)  # fmt: skip
                pos.append(_centre_window(crop, work_px))
            # two dice side by side with the window between them: not a die
            crop = _augment(photo.bal, cx, cy, rng, False, tilt)
            crop = np.roll(crop, round(0.55 * work_px), axis=int(rng.integers(2)))
            _paste_die(crop, bank[int(rng.integers(len(bank)))], rng, 1.1 * work_px)
            neg.append(_centre_window(crop, work_px))
        vs, us = np.nonzero(ok)
        if len(vs):
            pick = rng.choice(len(vs), min(NEGATIVES_PER_PHOTO, len(vs)), replace=False)
            neg.extend(window(cells, int(vs[k]), int(us[k])) for k in pick)
        # windows half a die off each labeled die: the finder must peak on the die, not beside
        for cx, cy in wc:
            for a in rng.uniform(0, 2 * math.pi, 4):
                r = rng.uniform(0.5, 0.8) * work_px
                u = round((cx + r * math.cos(a)) / STRIDE)
                v = round((cy + r * math.sin(a)) / STRIDE)
                if 0 <= v < shape[0] and 0 <= u < shape[1] and ok[v, u]:
                    neg.append(window(cells, v, u))
        pos_of.append(pos)
        pos_group_of.append(pos_group)
        neg_of.append(neg)

    def fit_group(which: Sequence[int], group: int) -> tuple[NDArray[Any], float]:
        """Weights and bias of the finder of ``group``'s dice on the photos ``which``."""
        x_pos = np.stack(
            [
                x
                for k in which
                for x, g in zip(pos_of[k], pos_group_of[k], strict=True)
                if g == group
            ]
        )
        neg = [x for k in which for x in neg_of[k]]
        w_, b_ = np.zeros(WINDOW_SIZE, np.float32), 0.0
        for round_no in range(MINING_ROUNDS + 1):
            x = np.concatenate([x_pos, np.stack(neg)]) if neg else x_pos
            y = np.concatenate([np.ones(len(x_pos)), np.zeros(len(neg))]).astype(np.float32)
            w_, b_ = logistic(x.astype(np.float32, copy=False), y, seed=seed)
            if round_no == MINING_ROUNDS:
                break
            detector = Detector(params, w_, b_)
            for k in which:
                scores = score_map(cells_of[k], detector)
                cand = np.where(ok_of[k], scores, -np.inf)
                flat = np.argsort(cand, axis=None)[::-1][:HARD_PER_PHOTO]
                for idx in flat:
                    v, u = np.unravel_index(idx, cand.shape)
                    if cand[v, u] > -1.0:
                        neg.append(window(cells_of[k], int(v), int(u)))
        return w_, b_

    def fit(which: Sequence[int]) -> Detector:
        present = sorted({g for k in which for g in pos_group_of[k]}) or [0]
        fitted = [fit_group(which, g) for g in present]
        return Detector(params, np.stack([w for w, _ in fitted]), np.array([b for _, b in fitted]))

    # threshold and background samples from photos each finder did not learn from:
    # two halves, each read by a finder trained on the other
    tp_scores: list[float] = []
    fp_scores: list[float] = []
    fp_where: list[tuple[int, float, float]] = []
    n_dice = 0
    halves = [list(range(0, len(photos), 2)), list(range(1, len(photos), 2))]
    for half, other in ((halves[0], halves[1]), (halves[1], halves[0])):
        if not other or not any(photos[k].centers for k in half):
            continue
        finder = fit(half)
        scale = _typical_score(
            finder, [photos[k] for k in half], [cells_of[k] for k in half], ratio
        )
        tick("finding dice in the other half")
        for k in other:
            photo = photos[k]
            scores = score_map(cells_of[k], finder)
            held = [(cx * ratio, cy * ratio) for cx, cy in photo.centers]
            n_dice += len(held)
            found = peaks(scores, -4.0, PEAKS_APART * work_px / STRIDE, 3 * len(held) + 20)
            used: set[int] = set()
            for px, py, s in found:
                fx, fy = px * STRIDE / ratio, py * STRIDE / ratio
                if marks_contrast(photo.face, fx, fy, params) < params.min_contrast:
                    continue  # the reader drops it too
                if any(math.hypot(px * STRIDE - x, py * STRIDE - y) < 0.35 * work_px
                       for x, y in skipped[k]):  # fmt: skip
                    continue  # a die without a label: neither a hit nor a false peak
                hit = -1
                for i, (cx, cy) in enumerate(held):
                    near = math.hypot(px * STRIDE - cx, py * STRIDE - cy) < 0.35 * work_px
                    if i not in used and near:
                        hit = i
                        break
                if hit >= 0:
                    used.add(hit)
                    tp_scores.append(s / scale)
                else:
                    fp_scores.append(s / scale)
                    fp_where.append((k, fx, fy))
    detector = fit(range(len(photos)))
    tick("training the finder")
    # scores of finders trained on different photos are compared as a share of each
    # finder's typical score on the dice it learned from
    scale = _typical_score(detector, photos, cells_of, ratio)
    cut = scale * _best_threshold(np.array(tp_scores), np.array(fp_scores), n_dice)
    return FinderTraining(detector, cut, scale, n_dice, fp_scores, fp_where)


def logistic(
    x: NDArray[Any], y: NDArray[Any], l2: float = 2e-3, iters: int = 250, seed: int = 0
) -> tuple[NDArray[Any], float]:
    """Class-balanced, L2-regularised logistic regression by Adam on standardised columns;
    returns weights and bias on the raw columns."""
    mu = x.mean(0)
    sd = x.std(0) + 1e-3
    z = (x - mu) / sd
    n, d = z.shape
    pos = float(y.mean())
    sw = np.where(y > 0, 0.5 / max(pos, 1e-6), 0.5 / max(1 - pos, 1e-6)).astype(np.float32) / n
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal(d) * 1e-3).astype(np.float32)
    b = 0.0
    m_w = np.zeros_like(w)
    v_w = np.zeros_like(w)
    m_b = v_b = 0.0
    lr, b1, b2 = 0.05, 0.9, 0.999
    for t in range(1, iters + 1):
        logit = z @ w + b
        p = 1.0 / (1.0 + np.exp(-np.clip(logit, -30, 30)))
        g = (p - y) * sw
        gw = z.T @ g + l2 * w
        gb = float(g.sum())
        m_w = b1 * m_w + (1 - b1) * gw
        v_w = b2 * v_w + (1 - b2) * gw * gw
        m_b = b1 * m_b + (1 - b1) * gb
        v_b = b2 * v_b + (1 - b2) * gb * gb
        step = lr * math.sqrt(1 - b2**t) / (1 - b1**t)
        w -= step * m_w / (np.sqrt(v_w) + 1e-8)
        b -= step * m_b / (math.sqrt(v_b) + 1e-8)
    w_raw = (w / sd).astype(np.float32)
    return w_raw, float(b - (mu / sd) @ w)


def _augment(
    bal: NDArray[Any], cx: float, cy: float, rng: np.random.Generator, plain: bool,
    tilt: tuple[float, float] | None = None,
) -> NDArray[Any]:  # fmt: skip
    """A crop of the balanced working image centred on a die, re-lit, turned, rescaled,
    blurred and noisy (unchanged when ``plain``): 96 x 96 pixels, die at the centre.

    Seen straight down a die may lie turned any way; seen obliquely (``tilt``: the
    direction the dice grow in across the photo) its near sides show on the camera's
    side of its top face, so the copy is turned only by up to ``OBLIQUE_TURN`` degrees
    and, one time in two, mirrored across the tilt (what a die turned the other way
    would show)."""
    size = 96
    if plain:
        angle = 0.0
    elif tilt is None:
        angle = float(rng.uniform(0, 360))
    else:
        angle = float(rng.uniform(-OBLIQUE_TURN, OBLIQUE_TURN))
    zoom = 1.0 if plain else float(rng.uniform(0.85, 1.18))
    m = cv2.getRotationMatrix2D((cx, cy), angle, zoom)
    m[0, 2] += size / 2 - cx
    m[1, 2] += size / 2 - cy
    if tilt is not None and not plain and rng.random() < 0.5:
        m = _mirrored_across(tilt, size) @ np.vstack([m, [0.0, 0.0, 1.0]])
    crop = cv2.warpAffine(
        bal, m, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    if plain:
        return crop
    gain = rng.uniform(0.6, 1.3) * rng.uniform(0.85, 1.15, 3)
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32) / size - 0.5
    a = rng.uniform(0, 2 * math.pi)
    ramp = 1.0 + rng.uniform(0, 0.5) * (xx * math.cos(a) + yy * math.sin(a))
    crop = crop * ramp[..., None] * gain.astype(np.float32)
    if rng.random() < 0.3:  # a soft shadow across part of the crop
        edge = (xx * math.cos(a + 1) + yy * math.sin(a + 1)) > rng.uniform(-0.3, 0.3)
        crop[edge] *= rng.uniform(0.55, 0.85)
    sigma = rng.uniform(0, 1.2)
    if sigma > 0.3:
        crop = cv2.GaussianBlur(crop, (0, 0), sigma)
    crop += rng.normal(0, rng.uniform(0, 6), crop.shape).astype(np.float32)
    out: NDArray[Any] = np.clip(crop, 0, 255).astype(np.float32)
    return out


def _mirrored_across(tilt: tuple[float, float], size: int) -> NDArray[Any]:
    """The 2 x 3 affine matrix mirroring a ``size``-pixel crop across the line through its
    centre along ``tilt`` (x, y)."""
    theta = math.atan2(tilt[1], tilt[0])
    c, s = math.cos(2 * theta), math.sin(2 * theta)
    half = size / 2
    # p' = centre + R (p - centre), R the reflection across the direction theta
    return np.array(
        [[c, s, half - c * half - s * half], [s, -c, half - s * half + c * half]], np.float64
    )


def _die_square(
    bal: NDArray[Any], cx: float, cy: float, angle: float, die_px: float
) -> NDArray[Any]:
    """A die cut upright along its rotation, a little smaller than its side (float32)."""
    size = round(0.95 * die_px)
    m = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    m[0, 2] += size / 2 - cx
    m[1, 2] += size / 2 - cy
    return cv2.warpAffine(bal, m, (size, size), flags=cv2.INTER_LINEAR,
                          borderMode=cv2.BORDER_REFLECT)  # fmt: skip


def _paste_die(
    crop: NDArray[Any], square: NDArray[Any], rng: np.random.Generator, dist: float
) -> None:
    """Paste a die square into ``crop`` (in place), turned at random, ``dist`` pixels
    from the centre in a random direction, with a soft shadow."""
    n = crop.shape[0]
    a = float(rng.uniform(0, 2 * math.pi))
    tx, ty = n / 2 + dist * math.cos(a), n / 2 + dist * math.sin(a)
    size = square.shape[0]
    m = cv2.getRotationMatrix2D((size / 2, size / 2), float(rng.uniform(0, 360)), 1.0)
    m[0, 2] += tx - size / 2
    m[1, 2] += ty - size / 2
    mask = cv2.warpAffine(np.ones((size, size), np.float32), m, (n, n))
    shadow = cv2.GaussianBlur(np.roll(mask, (2, 2), (0, 1)), (0, 0), 2.0)
    crop *= (1.0 - 0.4 * shadow * (1.0 - mask))[..., None]
    die = cv2.warpAffine(square, m, (n, n), flags=cv2.INTER_LINEAR)
    crop *= (1.0 - mask)[..., None]
    crop += die * mask[..., None]


def _centre_window(crop: NDArray[Any], die_px: float) -> NDArray[Any]:
    cells = feature_maps(crop, die_px)
    c = crop.shape[0] // 2 // STRIDE
    return window(cells, c, c)


def _eligible(shape: tuple[int, int], centers: NDArray[Any], die_px: float) -> NDArray[Any]:
    """Score-map positions whose window centre is at least 0.45 die from every labeled die."""
    oh, ow = shape
    ys, xs = np.mgrid[0:oh, 0:ow]
    ok = np.ones((oh, ow), bool)
    for cx, cy in centers:
        near = (np.abs(xs * STRIDE - cx) < 0.45 * die_px) & (
            np.abs(ys * STRIDE - cy) < 0.45 * die_px
        )
        ok &= ~near
    return ok


def _typical_score(
    detector: Detector, photos: Sequence[Photo], cells: Sequence[NDArray[Any]], ratio: float
) -> float:
    """The median of the finder's best score next to each labeled die of ``photos``."""
    got: list[float] = []
    for photo, c in zip(photos, cells, strict=True):
        scores = score_map(c, detector)
        for cx, cy in photo.centers:
            u, v = round(cx * ratio / STRIDE), round(cy * ratio / STRIDE)
            near = scores[max(0, v - 1) : v + 2, max(0, u - 1) : u + 2]
            if near.size:
                got.append(float(near.max()))
    return max(1.0, float(np.median(got))) if got else 1.0


def _best_threshold(tp: NDArray[Any], fp: NDArray[Any], n_dice: int) -> float:
    """The threshold (a share of the typical score) for unseen photos: the lowest score with
    the best F1 on the held-out peaks, lowered to the middle of the gap between it and the
    highest false peak under it, or logit 0 when there is none (the widest margin both
    ways; at most 0.4 lower)."""
    if len(tp) == 0:
        return 0.0
    cands = np.unique(np.concatenate([tp, fp]))
    best = -1.0
    f1s = []
    for t in cands:
        tps = float((tp >= t).sum())
        fps = float((fp >= t).sum())
        f1 = 2 * tps / (tps + fps + n_dice) if tps else 0.0
        f1s.append(f1)
        best = max(best, f1)
    good = [t for t, f in zip(cands, f1s, strict=True) if f >= best - 1e-9]
    lo = float(min(good))
    below = fp[fp < lo]
    # no false peak under it: the gap reaches the detector's own boundary (logit 0)
    floor = float(below.max()) if len(below) else min(0.0, lo - 0.2)
    return 0.5 * (lo + max(floor, lo - 0.8))
