"""Face features: a die's patch, turned upright, normalised and described in numpy.

The patch is cut along the die's rotated rectangle (so a die at 30 degrees
looks like one at 0, up to a quarter turn) and resized to ``PATCH`` pixels. An
oblique camera squashes a top face across its tilt, whichever way the die lies;
given that squash (``aspect``, the model's ``face_aspect``), the cut stretches the
face back to square first (:func:`unsquashed`), so that a die turned a quarter on
the table looks like its quarter-turned copy. A colour cut is read in its contrast
channel (:func:`contrast_channels`) softened over its face's body (:func:`over_body_softened`),
so a glare spot is not read as a mark.

The feature vector joins two unit-length parts:

* a histogram of oriented gradients (``CELLS`` x ``CELLS`` cells, ``BINS``
  unsigned orientations, magnitude-weighted) computed with numpy — OpenCV 5 no
  longer ships ``HOGDescriptor`` in the main package, and this is 20 lines;
* the patch itself, shrunk to ``THUMB`` pixels and contrast-normalised;
* the autocorrelation of its dark marks (the contrast channel's marks: pips,
  symbols' strokes), averaged in rings and quarter-turn-folded angle bins: it does
  not change when the marks move (an oblique view shifts the top face) and barely
  when they turn, so a face's layout is recognised from few examples.

The quarter-turn ambiguity is handled by the model: training stores each
sample in its four quarter turns.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

PATCH = 32
CELLS = 4
BINS = 9
THUMB = 12
MARGIN = 0.8  # the patch side over the die's rectangle side: the top face, not the sides
HOG_WEIGHT = 0.9
AC_RINGS = 8  # autocorrelation rings (out to AC_RADIUS pixels) ...
AC_ANGLES = 4  # ... times angle bins over a quarter turn
AC_RADIUS = 24.0
AC_WEIGHT = 1.0
AC_SIZE = AC_RINGS * AC_ANGLES
# the percentile of a patch's centre taken for its face's body's level (the body is most
# of a face's centre; its brighter quarter is its own noise) and the share of the contrast
# over it a patch keeps (docs/decisions/vision.md, "Glare is no mark")
BODY_LEVEL = 75.0
OVER_BODY_KEPT = 0.25

FEATURE_SIZE = CELLS * CELLS * BINS + THUMB * THUMB + AC_SIZE


def _ac_bins() -> tuple[NDArray[Any], NDArray[Any], NDArray[Any]]:
    """The lags (flat indices into a (2 PATCH - 1)^2 autocorrelation, one of each pair
    of opposite lags, out to AC_RADIUS) and the matrix averaging them into AC_SIZE
    ring/angle bins; the Gaussian window that fades the patch's border (side faces)."""
    lag = np.arange(-PATCH + 1, PATCH)
    yy, xx = np.meshgrid(lag, lag, indexing="ij")
    r = np.hypot(xx, yy)
    a = np.mod(np.arctan2(yy, xx), np.pi / 2)  # opposite lags share a bin
    rb = np.minimum((r / AC_RADIUS * AC_RINGS).astype(np.int64), AC_RINGS).ravel()
    ab = np.minimum((a / (np.pi / 2) * AC_ANGLES).astype(np.int64), AC_ANGLES - 1).ravel()
    half = ((yy > 0) | ((yy == 0) & (xx >= 0))).ravel()
    sel = np.flatnonzero(half & (rb < AC_RINGS))
    index = rb[sel] * AC_ANGLES + ab[sel]
    matrix = np.zeros((len(sel), AC_SIZE), np.float32)
    matrix[np.arange(len(sel)), index] = 1.0
    matrix /= np.maximum(matrix.sum(0, keepdims=True), 1.0)
    g = np.exp(-((np.arange(PATCH) - (PATCH - 1) / 2) ** 2) / (2 * (0.35 * PATCH) ** 2))
    return sel, matrix, np.outer(g, g).astype(np.float32)


_AC_LAGS, _AC_MATRIX, _AC_WINDOW = _ac_bins()
_AC_FFT = 2 * PATCH  # no lag wraps round
# the same lags as flat indices into the FFT's own (unshifted) output, where lag (dy, dx)
# sits at (dy mod _AC_FFT, dx mod _AC_FFT): the lag 0 at index 0
_AC_DY, _AC_DX = np.divmod(_AC_LAGS, 2 * PATCH - 1)
_AC_RAW = np.mod(_AC_DY - PATCH + 1, _AC_FFT) * _AC_FFT + np.mod(_AC_DX - PATCH + 1, _AC_FFT)


def autocorr_many(p: NDArray[Any]) -> NDArray[Any]:
    """The ring/angle-binned autocorrelation of the dark marks of normalised patches
    (n x PATCH x PATCH, zero mean, unit spread), each row of unit length: n x AC_SIZE."""
    n = len(p)
    marks = np.maximum(-p, 0.0) * _AC_WINDOW
    spec = np.fft.rfft2(marks, s=(_AC_FFT, _AC_FFT))
    ac = np.fft.irfft2(spec.real**2 + spec.imag**2, s=(_AC_FFT, _AC_FFT))
    flat = ac.reshape(n, -1)
    zero = flat[:, 0]
    out: NDArray[Any] = ((flat[:, _AC_RAW] @ _AC_MATRIX) / (zero[:, None] + 1e-6)).astype(
        np.float32
    )
    out /= np.linalg.norm(out, axis=1, keepdims=True) + 1e-6
    return out


Rect = tuple[tuple[float, float], tuple[float, float], float]  # centre, size, degrees


def cut_patch(
    work: NDArray[Any],
    rect: Rect,
    gains: NDArray[Any] | None = None,
    ink: NDArray[Any] | None = None,
) -> NDArray[Any]:
    """The die's upright ``PATCH`` x ``PATCH`` float32 patch from a working-scale image.

    A colour image gives its *contrast channel* (:func:`contrast_channels`, along ``ink``
    when given) after its channels are multiplied by ``gains`` (when given), softened over
    its face's body (:func:`over_body_softened`); a gray one gives itself.
    """
    out: NDArray[Any] = cut_patches(work, [rect], gains, ink)[0]
    return out


def stretch(aspect: float) -> tuple[float, float]:
    """How much :func:`unsquashed` stretches x and y for a top face seen ``aspect`` times as
    wide as tall: the short side back to the long one (a tilt along y, or under 1, x)."""
    return (1.0, aspect) if aspect >= 1.0 else (1.0 / aspect, 1.0)


def unsquashed(aspect: float, cx: float, cy: float) -> NDArray[Any]:
    """The 3 x 3 affine that undoes a camera's foreshortening about (cx, cy): a die whose
    top face is seen ``aspect`` times as wide as tall (an oblique camera tilted along the
    image's y axis; under 1, along x) stretched back to a square."""
    sx, sy = stretch(aspect)
    return np.array([[sx, 0.0, (1.0 - sx) * cx], [0.0, sy, (1.0 - sy) * cy], [0.0, 0.0, 1.0]])


def unsquashed_angle(angle: float, aspect: float) -> float:
    """A die's rotation (degrees) measured on a view foreshortened by ``aspect``
    (:func:`unsquashed`), as it is once the view is stretched back."""
    sx, sy = stretch(aspect)
    turn = math.radians(angle)
    return math.degrees(math.atan2(sy * math.sin(turn), sx * math.cos(turn)))


def squashed_angle(turn: float, aspect: float) -> float:
    """The rotation (degrees) a view foreshortened by ``aspect`` shows for a die turned
    ``turn`` degrees once stretched back: :func:`unsquashed_angle` undone."""
    sx, sy = stretch(aspect)
    t = math.radians(turn)
    return math.degrees(math.atan2(math.sin(t) / sy, math.cos(t) / sx))


def upright_cuts(work: NDArray[Any], rects: Sequence[Rect], aspect: float = 1.0) -> NDArray[Any]:
    """Each die's upright ``PATCH`` x ``PATCH`` cut of ``work`` as it is (colour or gray),
    before any channel is taken: n x PATCH x PATCH (x 3) float32. ``aspect``: how much
    wider than tall the camera sees a die's top face (:func:`unsquashed`; 1, as it is)."""
    warped = []
    for (cx, cy), (rw, rh), angle in rects:
        side = max(rw, rh, 4.0) * MARGIN
        turn = angle if aspect == 1.0 else unsquashed_angle(angle, aspect)
        m = cv2.getRotationMatrix2D((cx, cy), turn, PATCH / side)
        m[0, 2] += PATCH / 2 - cx
        m[1, 2] += PATCH / 2 - cy
        if aspect != 1.0:
            m = m @ unsquashed(aspect, cx, cy)
        warped.append(
            cv2.warpAffine(
                work, m, (PATCH, PATCH), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
            )
        )
    return np.stack(warped).astype(np.float32)


def in_channel(
    cuts: NDArray[Any], gains: NDArray[Any] | None = None, ink: NDArray[Any] | None = None
) -> NDArray[Any]:
    """Colour cuts (n x s x s x 3) as the face is read: their channels times ``gains`` when
    given, then their contrast channel (:func:`contrast_channels`); gray cuts as they are."""
    if cuts.ndim != 4:
        return cuts
    return contrast_channels(cuts if gains is None else cuts * gains, ink)


def cut_patches(
    work: NDArray[Any],
    rects: Sequence[Rect],
    gains: NDArray[Any] | None = None,
    ink: NDArray[Any] | None = None,
    aspect: float = 1.0,
) -> NDArray[Any]:
    """:func:`cut_patch` of each of ``rects`` (at least one), stretched back to square by
    ``aspect`` (:func:`upright_cuts`): n x PATCH x PATCH float32. A colour cut's contrast
    channel is softened over its face's body (:func:`over_body_softened`)."""
    cuts = upright_cuts(work, rects, aspect)
    if cuts.ndim != 4:
        return cuts
    return over_body_softened(in_channel(cuts, gains, ink))


def patch_centres(patches: NDArray[Any]) -> NDArray[Any]:
    """The middle three fifths of each of n square patches (each way): where a face's body
    and marks lie, away from its edges and the table round it."""
    s = patches.shape[1]
    return patches[:, s // 5 : s - s // 5, s // 5 : s - s // 5]


def over_body_softened(patches: NDArray[Any]) -> NDArray[Any]:
    """Contrast-channel patches (n x s x s: body bright, marks dark) with what lies over
    the body's level (the ``BODY_LEVEL`` percentile of the patch's centre) kept at
    ``OVER_BODY_KEPT`` of its height. What is brighter than a face's body is mostly no
    mark of it: glare, a highlight, the light side of a marbled swirl; left as it is, a
    glare spot takes the patch's spread (the features normalise by it) from the marks,
    and its outline reads as a mark. It is softened, not cut: where a die's own colours
    put a mark on the bright side (the channel's sign is each die's guess), the mark is
    kept, fainter (docs/decisions/vision.md, "Glare is no mark")."""
    n = len(patches)
    centre = patch_centres(patches).reshape(n, -1)
    level = np.percentile(centre, BODY_LEVEL, axis=1).astype(np.float32)[:, None, None]
    over = np.maximum(patches - level, 0.0)
    out: NDArray[Any] = np.minimum(patches, level) + np.float32(OVER_BODY_KEPT) * over
    return out


def contrast_channel(patch: NDArray[Any], ink: NDArray[Any] | None = None) -> NDArray[Any]:
    """The patch's colours projected on one colour direction, signed so that the face's
    body (the centre's majority) is bright and the marks on it dark. The direction is
    ``ink`` (a BGR direction of unit length, as calibration chose it for the owner's
    dice) or, without it, the patch's own direction of largest spread over its centre
    (so red pips on a yellow die and black pips on an ivory one both stand out)."""
    out: NDArray[Any] = contrast_channels(patch[None], ink)[0]
    return out


def contrast_channels(patches: NDArray[Any], ink: NDArray[Any] | None = None) -> NDArray[Any]:
    """:func:`contrast_channel` of each of n square colour patches (n x s x s x 3 float32),
    all at once: n x s x s float32."""
    n, s = patches.shape[:2]
    centre = patch_centres(patches).reshape(n, -1, 3)
    mean = centre.mean(1, keepdims=True)
    xc = centre - mean
    if ink is None:
        _, vecs = np.linalg.eigh(np.matmul(xc.transpose(0, 2, 1), xc))
        v = vecs[:, :, -1:]  # n x 3 x 1: each patch's direction of largest spread
        v = np.where(v.sum(1, keepdims=True) < 0, -v, v)
    else:
        v = np.broadcast_to(np.asarray(ink, np.float32).reshape(1, 3, 1), (n, 3, 1))
    v = np.where(np.median(np.matmul(xc, v), axis=1, keepdims=True) < 0, -v, v)
    proj = np.matmul(patches.reshape(n, -1, 3) - mean, v)
    out: NDArray[Any] = (proj.reshape(n, s, s) + 128.0).astype(np.float32)
    return out


def features(patches: NDArray[Any]) -> NDArray[Any]:
    """The feature vectors (n x ``FEATURE_SIZE``, float32) of a stack of patches
    (n x PATCH x PATCH), each normalised to zero mean and unit spread first."""
    n = len(patches)
    if n == 0:
        return np.zeros((0, FEATURE_SIZE), np.float32)
    p = patches.astype(np.float32)
    p = p - p.mean(axis=(1, 2), keepdims=True)
    p = p / (p.std(axis=(1, 2), keepdims=True) + 1e-3)
    gx = np.zeros_like(p)
    gy = np.zeros_like(p)
    gx[:, :, 1:-1] = p[:, :, 2:] - p[:, :, :-2]
    gy[:, 1:-1, :] = p[:, 2:, :] - p[:, :-2, :]
    mag = np.hypot(gx, gy)
    ang = np.mod(np.arctan2(gy, gx), np.pi)
    b = np.minimum((ang / np.pi * BINS).astype(np.int64), BINS - 1)
    cell = PATCH // CELLS
    cy = np.arange(PATCH)[:, None] // cell
    cx = np.arange(PATCH)[None, :] // cell
    size = CELLS * CELLS * BINS
    index = (cy * CELLS + cx)[None] * BINS + b + (np.arange(n) * size)[:, None, None]
    hist = np.bincount(index.ravel(), weights=mag.ravel(), minlength=n * size).reshape(n, size)
    hist = np.sqrt(hist)  # tempers strong edges (the die's outline) against pips
    hist /= np.linalg.norm(hist, axis=1, keepdims=True) + 1e-6
    # the patches stacked into one tall image: one resize (patch borders fall on output
    # pixel borders, so no output pixel mixes two patches)
    tall = np.ascontiguousarray(p.reshape(n * PATCH, PATCH))
    small = cv2.resize(tall, (THUMB, n * THUMB), interpolation=cv2.INTER_AREA)
    thumbs = np.asarray(small, np.float32).reshape(n, THUMB * THUMB)
    thumbs /= np.linalg.norm(thumbs, axis=1, keepdims=True) + 1e-6
    ac = AC_WEIGHT * autocorr_many(p)
    out: NDArray[Any] = np.concatenate([HOG_WEIGHT * hist, (1 - HOG_WEIGHT) * thumbs, ac], axis=1)
    return out.astype(np.float32)
