"""A per-face-set model: reads a die's face from its features, with a confidence.

Why this classifier: a face set has six classes and a calibration run yields a
few hundred patches; a nearest-neighbour model over gradient features needs no
training loop, learns in milliseconds, is exactly reproducible and explains
itself (the nearest stored sample). ``cv2.ml`` (k-NN, SVM) left the main OpenCV 5
package, and a neural-network runtime on the Pi is not worth its weight for
six faces.

Reading a face: for each face, the distance to its nearest stored sample; the
answer is the nearest face, and the *confidence* is ``1 - d_best / d_second``
(0 = a tie, 1 = only one face is near). A die whose confidence is under the
model's threshold, or whose nearest sample is farther than the model's
``novelty`` distance (it looks like no face seen in calibration), is *unsure*.

File format (``.npz``, numpy's zip of arrays): ``format`` (int, now
``FORMAT_VERSION``), ``face_set`` (the set's name), ``names`` (face names in class
order), ``samples`` (n x FEATURE_SIZE float16), ``labels`` (n int8),
``threshold``, ``novelty`` and ``detector`` (JSON of the die-finder settings).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from vision.detect import DetectorParams
from vision.errors import ModelError
from vision.features import FEATURE_SIZE

FORMAT_VERSION = 1
DEFAULT_THRESHOLD = 0.12


@dataclass(frozen=True)
class FaceRead:
    """One die's face index, confidence and whether it is below the model's bar."""

    face: int
    confidence: float
    unsure: bool


@dataclass
class FaceModel:
    """Stored samples of each face, the face names and the die-finder settings."""

    face_set: str
    names: tuple[str, ...]
    samples: np.ndarray
    labels: np.ndarray
    detector: DetectorParams
    threshold: float = DEFAULT_THRESHOLD
    novelty: float = 10.0

    def __post_init__(self) -> None:
        self.samples = np.ascontiguousarray(self.samples, dtype=np.float32)
        self.labels = np.asarray(self.labels, dtype=np.int64)
        self._sq = (self.samples**2).sum(1)

    def classify(self, feats: np.ndarray) -> list[FaceRead]:
        """Read the faces of the feature rows ``feats`` (m x FEATURE_SIZE)."""
        if len(feats) == 0:
            return []
        f = np.asarray(feats, dtype=np.float32)
        d2 = (f**2).sum(1)[:, None] + self._sq[None, :] - 2.0 * f @ self.samples.T
        d = np.sqrt(np.maximum(d2, 0.0))
        per_face = np.full((len(f), len(self.names)), np.inf, dtype=np.float32)
        for c in range(len(self.names)):
            sel = self.labels == c
            if sel.any():
                per_face[:, c] = d[:, sel].min(1)
        order = np.argsort(per_face, axis=1)
        out: list[FaceRead] = []
        for i in range(len(f)):
            best, second = per_face[i, order[i, 0]], per_face[i, order[i, 1]]
            conf = float(1.0 - best / second) if np.isfinite(second) and second > 0 else 1.0
            unsure = conf < self.threshold or float(best) > self.novelty
            out.append(FaceRead(int(order[i, 0]), round(conf, 4), unsure))
        return out

    def check_face_set(self, names: Sequence[str], source: str) -> None:
        """Raise unless this model reads exactly the faces ``names`` (in order).

        Raises:
            ModelError: the model is for another face set; the message names both.
        """
        if tuple(names) != self.names:
            raise ModelError(
                f"model for face set {self.face_set!r} ({', '.join(self.names)}) cannot read "
                f"{source} ({', '.join(names)})"
            )

    def save(self, path: str | Path) -> Path:
        """Write the model as a compressed ``.npz``; return the path written."""
        path = Path(path)
        if path.suffix != ".npz":
            path = (
                path.with_suffix(path.suffix + ".npz") if path.suffix else path.with_suffix(".npz")
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            np.savez_compressed(
                fh,
                format=np.int64(FORMAT_VERSION),
                face_set=np.str_(self.face_set),
                names=np.array(self.names, dtype=np.str_),
                samples=self.samples.astype(np.float16),
                labels=self.labels.astype(np.int8),
                threshold=np.float64(self.threshold),
                novelty=np.float64(self.novelty),
                detector=np.str_(json.dumps(self.detector.to_dict())),
            )
        return path


def train(
    face_set: str,
    names: Sequence[str],
    feats: np.ndarray,
    labels: np.ndarray,
    detector: DetectorParams,
    threshold: float = DEFAULT_THRESHOLD,
    groups: np.ndarray | None = None,
) -> FaceModel:
    """Build a model from feature rows and their face indices.

    The novelty distance is set from the samples' own spread: twice the
    98th percentile of each sample's distance to its nearest sample of the same
    face from another die (``groups`` numbers the die each row comes from, so
    that a die's own turned copies do not count).

    Raises:
        ModelError: no samples, or a face without any sample.
    """
    feats = np.asarray(feats, dtype=np.float32)
    labels = np.asarray(labels, dtype=np.int64)
    if len(feats) == 0:
        raise ModelError("no face samples to learn from")
    missing = [names[c] for c in range(len(names)) if not (labels == c).any()]
    if missing:
        raise ModelError(f"no sample of face(s) {', '.join(missing)}: show every face")
    nn: list[float] = []
    sq = (feats**2).sum(1)
    group = np.arange(len(feats)) if groups is None else np.asarray(groups)
    for c in range(len(names)):
        sel = labels == c
        x = feats[sel]
        if len(x) < 2:
            continue
        d2 = sq[sel][:, None] + sq[sel][None, :] - 2 * x @ x.T
        d2[group[sel][:, None] == group[sel][None, :]] = np.inf
        nearest = d2.min(1)
        nn.extend(np.sqrt(np.maximum(nearest[np.isfinite(nearest)], 0)).tolist())
    novelty = 2.0 * float(np.percentile(nn, 98)) if nn else 10.0
    return FaceModel(face_set, tuple(names), feats, labels, detector, threshold, novelty)


def load_model(path: str | Path) -> FaceModel:
    """Read a model written by :meth:`FaceModel.save`.

    Raises:
        ModelError: the file is missing, not a model, or of another format version.
    """
    path = Path(path)
    if not path.is_file():
        raise ModelError(f"{path}: no such model file")
    try:
        with np.load(path, allow_pickle=False) as data:
            version = int(data["format"])
            if version != FORMAT_VERSION:
                raise ModelError(
                    f"{path}: model format {version}, this program reads format {FORMAT_VERSION}"
                    " (calibrate again)"
                )
            samples = data["samples"].astype(np.float32)
            if samples.ndim != 2 or samples.shape[1] != FEATURE_SIZE:
                raise ModelError(
                    f"{path}: samples have shape {samples.shape}, expected (n, {FEATURE_SIZE})"
                )
            return FaceModel(
                face_set=str(data["face_set"]),
                names=tuple(str(n) for n in data["names"]),
                samples=samples,
                labels=data["labels"].astype(np.int64),
                detector=DetectorParams.from_dict(json.loads(str(data["detector"]))),
                threshold=float(data["threshold"]),
                novelty=float(data["novelty"]),
            )
    except ModelError:
        raise
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as exc:
        raise ModelError(f"{path}: not a toptable face model ({exc})") from None
