"""Where the owner draws a die's box: a correction of the finder's box learned at calibration.

The finder places a box of one learned shape at the peak of its score
(:func:`vision.reading.detect.detect`). Seen obliquely, a die's top face is
not where the window scores best (the sides it shows pull the peak toward
the camera), dice far and near differ in size beyond the fitted growth, and a
die's turn is measured from its edges, which a cluster or a shadow disturbs:
the box lands a fifth of a side off and no longer matches the die the owner
labeled. A ridge regression, trained on the owner's labeled dice seen from
windows jittered around them (:mod:`vision.learning.box_train`), maps the
window's cell features (and the die's turn and place in the photo) to the
box's shift and stretch, in sides of the die; the reader applies it to every
box it reports (the face is still cut at the finder's peak: cut at the
corrected centre, one of catan-webcam's 30 held-out dice was read wrong).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.errors import ModelError

Box = tuple[float, float, float, float]

OUTPUTS = 4  # the centre's shift across and down (in sides), log width and log height ratios
MAX_SHIFT = 0.5  # sides: a correction is never trusted beyond half a die ...
MAX_STRETCH = math.log(1.6)  # ... nor to stretch or shrink a box by more than this
EXTRAS = 3  # features beside the window's cells: the die's |cos|+|sin|, and where (u, v)
_LIMITS = np.array([MAX_SHIFT, MAX_SHIFT, MAX_STRETCH, MAX_STRETCH], np.float32)


@dataclass(frozen=True)
class BoxFit:
    """A linear correction of the finder's boxes: standardised features (``mean``,
    ``scale``) times ``weights`` (features x OUTPUTS) plus ``bias``."""

    mean: NDArray[Any]
    scale: NDArray[Any]
    weights: NDArray[Any]
    bias: NDArray[Any]

    @property
    def features(self) -> int:
        """How many features the correction reads."""
        return int(self.mean.shape[0])

    def correction(self, features: NDArray[Any]) -> NDArray[Any]:
        """The shift (x, y, in sides) and log-stretch (width, height) for one die's
        ``features``, each bounded (a die unlike any labeled one gets no wild box)."""
        z = (np.asarray(features, np.float32) - self.mean) / self.scale
        out = z @ self.weights + self.bias
        clipped: NDArray[Any] = np.clip(out, -_LIMITS, _LIMITS)
        return clipped

    def to_arrays(self) -> dict[str, NDArray[Any]]:
        """The arrays of a model file (``box_fit_*`` keys)."""
        return {
            "box_fit_mean": self.mean.astype(np.float32),
            "box_fit_scale": self.scale.astype(np.float32),
            "box_fit_weights": self.weights.astype(np.float32),
            "box_fit_bias": self.bias.astype(np.float32),
        }

    @classmethod
    def from_arrays(cls, data: Any, source: str, features: int) -> BoxFit | None:
        """The correction stored in a model file (None when the file has none: it was
        calibrated before boxes were corrected, and reads as it did).

        Raises:
            ModelError: its arrays are not of ``features`` features and OUTPUTS outputs,
                or hold a value that is not finite, naming ``source``.
        """
        if "box_fit_weights" not in data.files:
            return None
        shapes = {"mean": (features,), "scale": (features,),
                  "weights": (features, OUTPUTS), "bias": (OUTPUTS,)}  # fmt: skip
        arrays = {}
        for key, shape in shapes.items():
            found = np.asarray(data[f"box_fit_{key}"], np.float32)
            if found.shape != shape or not np.isfinite(found).all():
                raise ModelError(
                    f"{source}: box_fit_{key} of shape {found.shape}, expected {shape} of "
                    "finite values"
                )
            arrays[key] = found
        if (arrays["scale"] <= 0).any():
            raise ModelError(f"{source}: box_fit_scale holds a value <= 0, expected > 0")
        return cls(**arrays)


def corrected(box: Box, side: float, correction: NDArray[Any]) -> Box:
    """``box`` (x, y, w, h) moved by ``correction[:2]`` sides of ``side`` and stretched by
    ``exp(correction[2:])``."""
    x, y, w, h = box
    cx = x + w / 2 + float(correction[0]) * side
    cy = y + h / 2 + float(correction[1]) * side
    w *= math.exp(float(correction[2]))
    h *= math.exp(float(correction[3]))
    return (cx - w / 2, cy - h / 2, w, h)


def target(label: Box, box: Box, side: float) -> list[float]:
    """The correction that turns ``box`` into ``label`` (what :func:`corrected` undoes)."""
    lx, ly, lw, lh = label
    x, y, w, h = box
    return [
        ((lx + lw / 2) - (x + w / 2)) / side,
        ((ly + lh / 2) - (y + h / 2)) / side,
        math.log(lw / w),
        math.log(lh / h),
    ]


def fit(features: NDArray[Any], targets: NDArray[Any], ridge: float = 1.0) -> BoxFit:
    """Ridge regression of ``targets`` (n x OUTPUTS) on standardised ``features`` (n x f);
    ``ridge`` weighs the penalty per sample (the fit is the same for any number of dice).

    Raises:
        ValueError: fewer samples than two, or mismatched rows.
    """
    x = np.asarray(features, np.float64)
    y = np.asarray(targets, np.float64)
    if len(x) < 2 or len(x) != len(y):
        raise ValueError(
            f"box fit needs matching rows of features and targets, got {len(x)}, {len(y)}"
        )
    mean = x.mean(0)
    scale = x.std(0) + 1e-3
    z = (x - mean) / scale
    bias = y.mean(0)
    gram = z.T @ z + ridge * len(z) * np.eye(z.shape[1])
    weights = np.linalg.solve(gram, z.T @ (y - bias))
    return BoxFit(
        mean.astype(np.float32),
        scale.astype(np.float32),
        weights.astype(np.float32),
        bias.astype(np.float32),
    )


def iou(a: Box, b: Box) -> float:
    """Intersection over union of two (x, y, w, h) boxes."""
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0.0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0.0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0
