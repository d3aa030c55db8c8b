"""A per-face-set model: reads a die's face from its description, with a confidence.

Why this classifier: a die's description (:mod:`vision.reading.describe`: its top face's
features joined with the shipped network's embedding, which already places the
views of one face near each other and the faces of one die apart, whatever the
dice) leaves only where the owner's own faces lie to learn. A calibration run
yields a few thousand descriptions of the owner's dice (turned, stretched,
re-lit copies); a nearest-neighbour model over them needs no
training loop, learns in milliseconds, is exactly reproducible and explains
itself (the nearest stored sample). ``cv2.ml`` (k-NN, SVM) left the main
OpenCV 5 package.

Reading a face: for each face, the distance to its nearest stored sample; the
answer is the nearest face, and the *confidence* is ``1 - d_best / d_second``
(0 = a tie, 1 = only one face is near). A die whose confidence is under the
model's threshold, or whose nearest sample is farther than the model's
``novelty`` distance (it looks like no face seen in calibration), is *unsure*. A model may
also hold a threshold per pair of faces (``pair_thresholds``: two faces calibration saw
confused, :mod:`vision.learning.threshold`); a die read as one of a pair, the other its
runner-up, is unsure under the higher of the two thresholds.

Distances are measured after a projection learned at calibration: the
descriptions' mean and their ``dims`` principal directions over the owner's
(augmented) dice (``mean``, ``basis``, ``PROJECTION_DIMS`` of them); it keeps
what varies among the owner's faces, drops the rest, and makes a read cheaper.

File format (``.npz``, numpy's zip of arrays): ``format`` (int, now
``FORMAT_VERSION``), ``face_set`` (the set's name), ``names`` (face names in class
order), ``mean`` (DESCRIPTION_SIZE) and ``basis`` (DESCRIPTION_SIZE x d float32),
``samples`` (n x d float16, projected), ``labels`` (n int8), ``threshold``,
``novelty`` and ``detector`` (JSON of the die-finder settings); optionally
``domain`` (JSON: what calibration learned from, :mod:`vision.reading.domain`; a
file without it reads as before and checks nothing), ``pair_thresholds`` (faces x
faces float32; a file without it has the one threshold) and ``box_fit_mean``,
``box_fit_scale``, ``box_fit_weights``, ``box_fit_bias`` (the correction of the
finder's boxes, :mod:`vision.reading.box_fit`; a file without them reads its boxes as
placed) and ``face_ink`` (3 float32: the colour, a BGR direction of unit length, the
faces are read along, :mod:`vision.learning.face_channel`; a file without it reads each
die along its own colours' widest spread).
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from controller.core.quoting import printable, short_repr
from vision.errors import ModelError
from vision.reading.box_fit import BoxFit
from vision.reading.describe import DESCRIPTION_SIZE
from vision.reading.detect import BOX_FEATURES, Detector, DetectorParams
from vision.reading.domain import Domain
from vision.reading.embedding import default_embedding, strangers_embedding
from vision.reading.finder_maps import WINDOW_SIZE
from vision.reading.model_checks import (
    check_colour,
    check_finite,
    check_names,
    check_numeric,
    face_ink,
    finite_json,
    pair_thresholds,
    size_curves,
)
from vision.reading.stored import checked_npz

FORMAT_VERSION = 6  # 6: both shipped networks in a description (5: only the first)
RECALIBRATE = " (calibrate again: toptable dice calibrate DATASET --out MODEL.npz)"
BACKGROUND = -1  # the label of samples that are not dice (hard negatives of the finder)
NOT_A_DIE = 0.7  # a die farther than this share of the novelty distance is no die
DEFAULT_THRESHOLD = 0.12
PROJECTION_DIMS = 128  # principal directions of the descriptions kept by calibration
# description rows classified per matrix product: bounds its rows x samples array (64 x
# 50,000 samples: 12 MB) when many dice, or a hand-held photo's sizes, are read at once
CLASSIFY_ROWS = 64


@dataclass(frozen=True)
class FaceRead:
    """One die's face index, confidence and whether it is below the model's bar."""

    face: int
    confidence: float
    unsure: bool
    background: bool = False  # nearer to the learned non-dice than to any face
    bar: float = DEFAULT_THRESHOLD  # the threshold this read was held to
    # the distance to the nearest sample of the face read (mean over a die's views): how
    # much the cut looks like the owner's dice of that face
    distance: float = 0.0


@dataclass
class FaceModel:
    """Stored samples of each face, the face names and the die-finder settings."""

    face_set: str
    names: tuple[str, ...]
    samples: NDArray[Any]
    labels: NDArray[Any]
    detector: Detector
    threshold: float = DEFAULT_THRESHOLD
    novelty: float = 10.0
    background_margin: float = 0.9  # background wins when nearer than this times the best face
    report: str = ""  # calibration's own figures and warnings (JSON), kept in the file
    mean: NDArray[Any] | None = None  # the projection (None: samples are descriptions)
    basis: NDArray[Any] | None = None
    domain: Domain | None = None  # what calibration learned from (None: not recorded)
    pair_thresholds: NDArray[Any] | None = None  # faces x faces (None: the one threshold)
    # the colour (BGR, unit length) faces are read along (None: each die's widest spread)
    ink: NDArray[Any] | None = None

    def __post_init__(self) -> None:
        if isinstance(self.detector, DetectorParams):
            self.detector = Detector(self.detector)
        order = np.argsort(np.asarray(self.labels), kind="stable")  # each class contiguous
        # ordered in the stored precision, then widened once, one sample a column (a read's
        # matrix product streams them faster so), with each sample's sum of squares as one
        # more row: a read's product then gives |s|^2 - 2 f.s in one pass, with no m x n
        # array added to or copied (a model's samples are its bulk: the peak of loading
        # one counts, so the squares are summed without a squared copy)
        ordered = np.asarray(self.samples)[order]
        dims = ordered.shape[1] if ordered.ndim == 2 else 0
        self._augmented = np.empty((dims + 1, len(ordered)), np.float32)
        self._augmented[:dims] = ordered.T
        del ordered
        self.samples = self._augmented[:dims].T  # a view: one sample a row
        self._augmented[dims] = _row_squares(self.samples)
        self.labels = np.asarray(self.labels, dtype=np.int64)[order]
        self._spans = {
            int(c): (
                int(np.searchsorted(self.labels, c)),
                int(np.searchsorted(self.labels, c, "right")),
            )
            for c in np.unique(self.labels)
        }

    def project(self, feats: NDArray[Any]) -> NDArray[Any]:
        """Description rows (... x DESCRIPTION_SIZE) in the model's distance space."""
        f = np.asarray(feats, dtype=np.float32)
        if self.basis is None or self.mean is None:
            return f
        out: NDArray[Any] = ((f - self.mean) @ self.basis).astype(np.float32)
        return out

    def bar(self, face: int, runner_up: int) -> float:
        """The threshold a die read as ``face`` with ``runner_up`` second is held to."""
        if self.pair_thresholds is None or face == runner_up:
            return self.threshold
        return max(self.threshold, float(self.pair_thresholds[face, runner_up]))

    @property
    def unlearned(self) -> tuple[str, ...]:
        """The faces no sample was learned for (none of the owner's dice was labeled with
        them): never read; a die showing one is read as a face learned, or asked about."""
        return tuple(name for c, name in enumerate(self.names) if c not in self._spans)

    @property
    def params(self) -> DetectorParams:
        """The die finder's settings."""
        return self.detector.params

    def classify(self, feats: NDArray[Any]) -> list[FaceRead]:
        """Read the faces of the description rows ``feats`` (m x DESCRIPTION_SIZE), or of
        m dice each seen k ways (m x k x DESCRIPTION_SIZE: each face's distance is its
        mean over the k views, so one lucky view cannot decide)."""
        if len(feats) == 0:
            return []
        f = np.asarray(feats, dtype=np.float32)
        k = 1 if f.ndim == 2 else f.shape[1]
        f = self.project(f.reshape(-1, f.shape[-1]))
        m = len(f) // k
        spans = [self._spans.get(c) for c in (*range(len(self.names)), BACKGROUND)]
        d2 = np.full((len(f), len(spans)), np.inf, np.float32)  # each row's nearest, squared
        for start in range(0, len(f), CLASSIFY_ROWS):
            chunk = f[start : start + CLASSIFY_ROWS]
            # [-2f, 1] . [s, |s|^2] = |s|^2 - 2 f.s: the one rows x samples array; |f|^2 is
            # the same along a row, so it is added after each face's minimum
            rows = np.empty((len(chunk), chunk.shape[1] + 1), np.float32)
            rows[:, :-1] = -2.0 * chunk
            rows[:, -1] = 1.0
            partial = rows @ self._augmented
            f_sq = (chunk**2).sum(1)
            for j, span in enumerate(spans):
                if span is not None:
                    d2[start : start + len(chunk), j] = f_sq + partial[:, span[0] : span[1]].min(1)
        nearest = np.sqrt(np.maximum(d2, 0.0)).reshape(m, k, len(spans)).mean(1)
        per_face, d_bg = nearest[:, :-1], nearest[:, -1]
        order = np.argsort(per_face, axis=1)
        out: list[FaceRead] = []
        for i in range(m):
            best = per_face[i, order[i, 0]]
            second = per_face[i, order[i, 1]] if len(self.names) > 1 else np.inf
            conf = float(1.0 - best / second) if np.isfinite(second) and second > 0 else 1.0
            bar = self.bar(int(order[i, 0]), int(order[i, 1 if len(self.names) > 1 else 0]))
            unsure = conf < bar or float(best) > self.novelty
            # nearer to the learned non-dice than to any face, or unlike every face seen
            # (farther than 0.7 x the novelty distance: 1.4 x the 98th percentile of the
            # calibration dice's distance to their nearest same-face die): not a die
            background = bool(d_bg[i] < self.background_margin * best) or bool(
                best > NOT_A_DIE * self.novelty
            )
            out.append(
                FaceRead(int(order[i, 0]), round(conf, 4), unsure, background, bar, float(best))
            )
        return out

    def check_face_set(self, names: Sequence[str], source: str) -> None:
        """Raise unless this model reads exactly the faces ``names`` (in order).

        Raises:
            ModelError: the model is for another face set; the message names both.
        """
        if tuple(names) != self.names:
            raise ModelError(
                f"model for face set {short_repr(self.face_set)} "
                f"({printable(', '.join(self.names))}) cannot read {source} "
                f"({printable(', '.join(names))})"
            )

    def save(self, path: str | Path) -> Path:
        """Write the model as a compressed ``.npz``; return the path written."""
        path = Path(path)
        if path.suffix != ".npz":
            path = (
                path.with_suffix(path.suffix + ".npz") if path.suffix else path.with_suffix(".npz")
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        # made in memory, then written: numpy's zip writer, failing on a full disk, said an
        # "Exception ignored in ZipFile.__del__" traceback after the error
        with io.BytesIO() as fh:
            np.savez_compressed(
                fh,
                format=np.int64(FORMAT_VERSION),
                face_set=np.str_(self.face_set),
                names=np.array(self.names, dtype=np.str_),
                samples=self.samples.astype(np.float16),
                mean=(self.mean if self.mean is not None else np.zeros(0)).astype(np.float32),
                basis=(self.basis if self.basis is not None else np.zeros((0, 0))).astype(
                    np.float32
                ),
                labels=self.labels.astype(np.int8),
                threshold=np.float64(self.threshold),
                novelty=np.float64(self.novelty),
                background_margin=np.float64(self.background_margin),
                detector=np.str_(json.dumps(self.detector.params.to_dict())),
                det_weights=self.detector.weights.astype(np.float32),
                det_bias=self.detector.biases.astype(np.float64),
                colour_logp=(
                    self.detector.colour_logp.astype(np.float16)
                    if self.detector.colour_logp is not None
                    else np.zeros((0, 0, 0), np.float16)
                ),
                report=np.str_(self.report),
                **({"domain": np.str_(self.domain.to_json())} if self.domain else {}),
                **(self.detector.box_fit.to_arrays() if self.detector.box_fit else {}),
                **(
                    {"size_curves": self.detector.size_curves.astype(np.float32)}
                    if self.detector.size_curves is not None
                    else {}
                ),
                **(
                    {"pair_thresholds": self.pair_thresholds.astype(np.float32)}
                    if self.pair_thresholds is not None
                    else {}
                ),
                **({"face_ink": self.ink.astype(np.float32)} if self.ink is not None else {}),
            )
            path.write_bytes(fh.getvalue())
        return path


def _row_squares(samples: NDArray[Any]) -> NDArray[Any]:
    """Each row's sum of squares, summed along the row as a C-ordered copy would be (so
    the same model gives the same distances however its samples are laid out), a few
    thousand rows at a time (no full copy)."""
    parts = [
        np.einsum("ij,ij->i", rows, rows)
        for rows in (
            np.ascontiguousarray(samples[a : a + 4096]) for a in range(0, len(samples), 4096)
        )
    ]
    out: NDArray[Any] = np.concatenate(parts) if parts else np.zeros(0, np.float32)
    return out


def load_model(path: str | Path) -> FaceModel:
    """Read a model written by :meth:`FaceModel.save` (and the shipped network that
    reads faces with it, so that a damaged install fails here, not mid-game).

    Raises:
        ModelError: the file is missing, not a model, or of another format version; a
            face is named twice, or an array or setting holds NaN or an infinity (see
            :mod:`vision.reading.model_checks`); a shipped face-embedding network is
            missing or damaged.
    """
    default_embedding()
    strangers_embedding()
    path = Path(path)
    with checked_npz(path, "model", FORMAT_VERSION, "a toptable face model", RECALIBRATE) as data:
        check_numeric(data, path)
        samples = data["samples"]  # widened to float32 by FaceModel, once, after ordering
        mean = data["mean"].astype(np.float32)
        basis = data["basis"].astype(np.float32)
        if basis.size and basis.ndim != 2:
            raise ModelError(f"{path}: projection of shape {basis.shape}, expected a matrix")
        dims = basis.shape[1] if basis.size else DESCRIPTION_SIZE
        if basis.size and (basis.shape[0] != DESCRIPTION_SIZE or mean.shape != (DESCRIPTION_SIZE,)):
            raise ModelError(
                f"{path}: projection of shape {basis.shape}, expected ({DESCRIPTION_SIZE}, d)"
            )
        if samples.ndim != 2 or samples.shape[1] != dims:
            raise ModelError(f"{path}: samples have shape {samples.shape}, expected (n, {dims})")
        names = tuple(str(n) for n in data["names"])
        check_names(names, path)
        labels = data["labels"].astype(np.int64)
        if (
            labels.shape != (len(samples),)
            or not ((labels >= BACKGROUND) & (labels < len(names))).all()
        ):
            raise ModelError(
                f"{path}: labels of shape {labels.shape}, expected a face of the {len(names)} "
                f"(or {BACKGROUND}, not a die) for each of its {len(samples)} samples"
            )
        weights = data["det_weights"].astype(np.float32)
        bias = data["det_bias"].astype(np.float32).reshape(-1)
        numbers = {"samples": samples, "mean": mean, "basis": basis, "det_weights": weights,
                   "det_bias": bias, "threshold": data["threshold"], "novelty": data["novelty"],
                   "background_margin": data["background_margin"]}  # fmt: skip
        check_finite(numbers, path)
        if weights.size != len(bias) * WINDOW_SIZE:
            raise ModelError(
                f"{path}: detector weights of size {weights.size} for {len(bias)} finder(s), "
                f"expected {len(bias)} x {WINDOW_SIZE}"
            )
        colour = data["colour_logp"].astype(np.float32)
        if colour.size and (len(set(colour.shape)) != 1 or colour.ndim != 3):
            raise ModelError(f"{path}: colour_logp of shape {colour.shape}, expected (b, b, b)")
        check_colour(colour, path)
        settings = finite_json(str(data["detector"]), path, "detector")
        if not isinstance(settings, dict):
            raise ModelError(
                f"{path}: detector holds no JSON object, expected the finder's settings"
            )
        detector = Detector(
            DetectorParams.from_dict(settings),
            weights,
            bias,
            colour if colour.size else None,
            BoxFit.from_arrays(data, str(path), BOX_FEATURES),
            size_curves(data, path),
        )
        return FaceModel(
            face_set=str(data["face_set"]),
            names=names,
            samples=samples,
            labels=labels,
            detector=detector,
            threshold=float(data["threshold"]),
            novelty=float(data["novelty"]),
            background_margin=float(data["background_margin"]),
            report=str(data["report"]),
            mean=mean if basis.size else None,
            basis=basis if basis.size else None,
            domain=_domain(data, path),
            pair_thresholds=pair_thresholds(data, path, len(data["names"])),
            ink=face_ink(data, path),
        )


def _domain(data: Any, path: Path) -> Domain | None:
    """What calibration learned from (None when the file does not say).

    Raises:
        ModelError: it holds NaN or an infinity; ValueError: it is no such JSON.
    """
    if "domain" not in data.files:
        return None
    text = str(data["domain"])
    finite_json(text, path, "domain")
    return Domain.from_json(text)
