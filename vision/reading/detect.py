"""Finding dice in a frame with a detector learned from the owner's own photos.

Nothing here assumes a dice colour, a tray, a polarity or a straight-down
view: every number the finder needs is measured at calibration
(:mod:`vision.learning.calibrate`) and stored in the model file.

Steps, at a *working scale* where a die is ``work_die_px`` (24) pixels wide
(the die size over the image's size ``sqrt(width * height)``, ``die_frac``, comes
from the labeled boxes; a camera turned a quarter turn keeps it):

1. **Light-independent pixels.** The frame's colour is balanced (each channel
   divided by its mean: a warm or dim lamp, another day's light) and per pixel
   the finder computes: gradient magnitude in ``BINS`` orientations, divided by
   the local contrast around it (shadows, dim light), and the colour (CIE Lab,
   and its difference from the surroundings, signed and absolute, so dice
   lighter or darker than their background are both learnable).
2. **Cells and windows.** Each channel is averaged over ``CELL`` x ``CELL``
   pixel cells, sampled every ``STRIDE`` pixels; a window of ``GRID`` x
   ``GRID`` cells (the die and a margin around it) is one candidate.
3. **A linear detector** (logistic regression, trained at calibration on the
   labeled dice, turned, scaled, blurred and re-lit, against windows of the
   owner's own backgrounds, with hard negatives mined in two rounds) scores
   every window at once: one matrix product and ``GRID**2`` shifted sums. Dice
   of clearly different colours (sets mixed in one tray) get one each; a
   window's score is the best of them.
4. **Peaks** of the score above the calibrated threshold, at least 0.6 die
   apart, are dice, unless the square inside them shows no marks (a colour
   contrast under the floor measured on the owner's dice: a finger, a card);
   the face classifier (:mod:`vision.reading.model`) then reads each
   and drops those nearer to the background samples it learned than to any face.
   A die cut by the frame's edge (:func:`whole_in_frame`) is kept, boxed inside the
   frame as labelling tools box it, and marked ``cut``: its face is asked about.
5. **Boxes.** Each die's box takes the side learned for its place in the photo,
   turned by its measured rotation, in the shape the owner labels
   (:func:`placed_box`); the correction learned from the owner's boxes
   (:mod:`vision.reading.box_fit`) moves and stretches it; the face is cut at the
   peak, and where the corrected box's centre lies apart from it, there too: the
   reader keeps the cut nearer to the owner's dice (``Detection.fit_center``). A box
   overlapping a stronger one by ``SAME_DIE_IOU`` is the same die found twice (a
   peak on its side) and is dropped.
6. **Cocked dice.** Around each die the patch is split by Otsu's threshold
   (local, so any polarity); the region at the centre's rotated-rectangle
   aspect above the calibrated limit (measured on the owner's flat dice) marks
   the die cocked (leaning: two faces seen). A hard shadow joined to a dark die is
   left out of its outline where the die's hue stands apart from the table's.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.errors import ConfigError
from vision.reading.box_fit import EXTRAS, Box, BoxFit, corrected, iou
from vision.reading.die_shape import face_contrast, orientation, outline_aspect
from vision.reading.export_edges import ExportEdges
from vision.reading.finder_maps import (
    CHANNELS,
    GRID,
    SPAN,
    STRIDE,
    WINDOW_SIZE,
    balance,
    feature_maps,
    score_map,
    window,
)
from vision.reading.novelty import novel_mask, obstruction
from vision.reading.peaks import peaks
from vision.reading.scaling import MAX_LOOK_STEPS, STEPS, image_length, shrink, working_scale

BOX_FEATURES = WINDOW_SIZE + EXTRAS  # what the box correction reads (box_features)
FACE_DIE_PX = 40.0  # a die's side where faces are cut
DIE_FRAC = (0.005, 0.5)  # the die sides the reader takes, over sqrt(width x height)
SAME_DIE_IOU = 0.5  # a box overlapping a stronger one this much is the same die
PEAKS_APART = 0.6  # two of the finder's peaks nearer than this share of a side: one die
# a corrected box's centre this share of a side or more from the peak is a second place
# to cut the face (nearer, the two cuts read alike: a tenth of a side off, the synthetic
# dice all read right; and each second cut costs a die's description and search)
SECOND_CUT_FROM = 0.1


@dataclass(frozen=True)
class DetectorParams:
    """Settings of the die finder, all measured at calibration."""

    die_frac: float = 0.11  # a flat die's side over the image's sqrt(width * height)
    work_die_px: float = 24.0  # a die's side at the working scale
    threshold: float = 0.0  # detector score (logit) above which a peak is a die
    cocked_aspect: float = 1.33  # aspect of the die's outline above which it is cocked
    # the box reported for a die, as the owner labels it: its side over the die's side
    # turned by its rotation (|cos|+|sin|), and its width over its height (an oblique
    # camera foreshortens a die across the tilt); both measured on the labels
    box_scale: float = 1.0
    box_aspect: float = 1.0
    # how much wider than tall the camera sees a die's top face (an oblique camera squashes
    # it across its tilt); the face patch is cut stretched back to square (1: as seen, and
    # every model before this setting)
    face_aspect: float = 1.0
    # how much wider than tall a square shows in the owner's photos: not 1 when they were
    # stretched to another shape (vision.reading.pixel_aspect); each photo is read un-stretched
    pixel_aspect: float = 1.0
    # where the owner's photos lie in them when they were fitted into another shape with
    # plain edges (vision.reading.export_edges: left, top, right, bottom, then the edges'
    # BGR); empty: no edges. The camera's own frames are fitted so before they are read
    export_edges: tuple[float, ...] = ()
    # the owner's photos are grey (a labelling service's step, vision.reading.exported):
    # colour frames are made grey before they are read
    grey: bool = False
    obstruction_dice: float = 6.0  # a novel region larger than this many dice is an obstruction
    novel_logp: float = -12.0  # colour log-likelihood under which a pixel is unlike the scene
    min_contrast: float = 0.0  # a peak whose marks_contrast is under this shows no marks: no die
    max_dice: int = 40  # peaks kept a frame (calibration: twice the most dice a photo)
    # an oblique camera sees the near dice larger: a die's side grows by this share of the
    # image centre's side across the image's width and height (fitted to the labeled boxes)
    size_slope_x: float = 0.0
    size_slope_y: float = 0.0
    # the owner's photos were taken from different distances (by hand): each photo is read
    # at its dice's size measured in it (vision.reading.photo_scale)
    photo_scale: bool = False
    # the owner's photos were taken by hand: each photo's measured size is checked by how
    # its dice look, or where the finder cannot measure (photo_scale False), chosen so
    # (vision.reading.look_scale)
    hand_held: bool = False
    # the sizes the look may reach, in steps (SCALE_STEP) under and over the learned side:
    # the calibration photos' own sizes, and at least the measure's (every model before
    # this setting looked at those)
    look_under: int = STEPS
    look_over: int = STEPS

    def __post_init__(self) -> None:
        if not DIE_FRAC[0] <= self.die_frac <= DIE_FRAC[1]:
            raise ConfigError(
                f"die_frac {self.die_frac} must be within {DIE_FRAC[0]:g}..{DIE_FRAC[1]:g}"
            )
        if not 12 <= self.work_die_px <= 200:
            raise ConfigError(f"work_die_px {self.work_die_px} must be within 12..200")
        if not 1.0 <= self.cocked_aspect <= 4.0:
            raise ConfigError(f"cocked_aspect {self.cocked_aspect} must be within 1..4")
        if not 0.25 <= self.box_scale <= 4.0:
            raise ConfigError(f"box_scale {self.box_scale} must be within 0.25..4")
        if not 0.25 <= self.box_aspect <= 4.0:
            raise ConfigError(f"box_aspect {self.box_aspect} must be within 0.25..4")
        if not 0.25 <= self.face_aspect <= 4.0:
            raise ConfigError(f"face_aspect {self.face_aspect} must be within 0.25..4")
        object.__setattr__(self, "export_edges", tuple(float(v) for v in self.export_edges))
        try:
            ExportEdges.from_values(self.export_edges)
        except ValueError as exc:
            raise ConfigError(str(exc)) from None
        for name in ("look_under", "look_over"):
            steps = getattr(self, name)
            if not STEPS <= steps <= MAX_LOOK_STEPS:
                raise ConfigError(f"{name} {steps} must be within {STEPS}..{MAX_LOOK_STEPS}")

    @property
    def by_hand(self) -> bool:
        """Whether the owner's photos were taken by hand: each photo's die size is found
        in it (:func:`vision.reading.die_scale.photo_die_scale`)."""
        return self.photo_scale or self.hand_held

    @property
    def oblique(self) -> bool:
        """Whether calibration learned that the dice grow across the photo (an oblique
        camera, whose tilt runs along one of the photo's axes)."""
        return self.size_slope_x != 0.0 or self.size_slope_y != 0.0

    def to_dict(self) -> dict[str, object]:
        """Plain values, for a model file."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> DetectorParams:
        """Rebuild from :meth:`to_dict` output (unknown keys ignored)."""
        known: dict[str, Any] = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        return cls(**known)


@dataclass
class Detector:
    """The learned finder: settings, window weights (CHANNELS x GRID x GRID) and bias of
    each of its linear finders (one per colour group of the owner's dice: a die is scored
    by the finder that likes it most), the scene's colour model (a 3-D histogram of
    balanced colours, log-probabilities) and the correction of its boxes toward the
    owner's (None: the boxes as placed)."""

    params: DetectorParams
    weights: NDArray[Any] = field(default_factory=lambda: np.zeros(WINDOW_SIZE, np.float32))
    bias: NDArray[Any] | float = 0.0
    colour_logp: NDArray[Any] | None = None
    box_fit: BoxFit | None = None
    # how the finder's evidence changed with the size each calibration photo was scaled to,
    # for a model of photos taken by hand (photos x sizes, vision.reading.photo_scale;
    # None: a fixed camera's)
    size_curves: NDArray[Any] | None = None

    def __post_init__(self) -> None:
        w = np.asarray(self.weights, dtype=np.float32)
        if w.size == 0 or w.size % WINDOW_SIZE:
            raise ConfigError(f"finder weights of size {w.size}, expected n x {WINDOW_SIZE}")
        self.weights = np.ascontiguousarray(w.reshape(-1, WINDOW_SIZE))
        self.bias = np.asarray(self.bias, np.float32).reshape(-1)
        if len(self.bias) != len(self.weights):
            raise ConfigError(
                f"{len(self.bias)} finder biases for {len(self.weights)} finders' weights"
            )
        self.biases: NDArray[Any] = self.bias  # typed: one per finder
        per = self.weights.reshape(-1, CHANNELS, GRID * GRID).transpose(0, 2, 1)
        self._wt = np.ascontiguousarray(per.reshape(-1, CHANNELS))  # (finders*GRID*GRID, C)

    @property
    def finders(self) -> int:
        """How many linear finders (colour groups of dice) the detector holds."""
        return len(self.weights)

    @property
    def die_frac(self) -> float:
        """A flat die's side over the image's ``sqrt(width * height)``."""
        return self.params.die_frac

    @property
    def work_die_px(self) -> float:
        """A die's side at the working scale."""
        return self.params.work_die_px


@dataclass(frozen=True)
class Detection:
    """One die found: its box in the input image's pixels and its rotated rectangle.

    ``rect`` is ((cx, cy), (w, h), angle) at the face scale (a die ``FACE_DIE_PX`` wide).
    """

    box: Box
    center: tuple[float, float]
    side: float
    rect: tuple[tuple[float, float], tuple[float, float], float]
    cocked: bool
    score: float
    aspect: float = 1.0
    # the centre of the corrected box (face scale) where it lies apart from the peak
    # (``rect``'s centre): a second place to cut the face (None: no correction, or the same)
    fit_center: tuple[float, float] | None = None
    cut: bool = False  # lies in part out of the frame (its face seen in part): asked about


@dataclass
class DetectResult:
    """What the finder saw in one frame."""

    detections: list[Detection]
    work: NDArray[Any]  # the face-scale BGR image (a die FACE_DIE_PX wide)
    gray: NDArray[Any]  # the same in gray
    scale: float  # face-scale pixels per input pixel
    obstructed: bool = False  # a large object unlike the calibration scenes is in view
    light_fraction: float = 0.0  # share of the frame unlike the scene (a hand, an object)


def perspective_size(params: DetectorParams, u: float, v: float) -> float:
    """A die's side at (u, v) (shares of the image's width and height) over its side at
    the image's centre, as calibration fitted it (1 everywhere for a camera straight down)."""
    grown = 1.0 + params.size_slope_x * (u - 0.5) + params.size_slope_y * (v - 0.5)
    return min(max(grown, 0.5), 2.0)


def face_side_at(
    params: DetectorParams, fx: float, fy: float, width: float, height: float
) -> float:
    """The side (face-scale pixels) a die has at (fx, fy) of a face-scale frame ``width`` x
    ``height``: ``FACE_DIE_PX`` grown by the perspective (:func:`perspective_size`)."""
    return FACE_DIE_PX * perspective_size(params, fx / width, fy / height)


HALF_SEEN = 0.5  # a peak whose die would lie less than this share in the frame is none


def whole_in_frame(params: DetectorParams, x: float, y: float, frame: tuple[float, float]) -> bool:
    """Whether a die centred at working pixel (x, y) of a working frame ``frame`` (width,
    height) lies in it all but a sliver: its centre 0.4 of its side there (an oblique
    camera's far dice are smaller and lie whole nearer the edge) from every edge. A die
    found nearer an edge is cut by it: read, and asked about."""
    w, h = frame
    edge = 0.4 * params.work_die_px * perspective_size(params, x / w, y / h)
    return edge <= x <= w - edge and edge <= y <= h - edge


def share_in_frame(params: DetectorParams, x: float, y: float, frame: tuple[float, float]) -> float:
    """The share of a die centred at working pixel (x, y) that lies in a working frame
    ``frame`` (width, height), its side there as :func:`whole_in_frame` takes it (1: whole;
    a die centred on an edge: 0.5; centred on a corner: 0.25)."""
    w, h = frame
    side = params.work_die_px * perspective_size(params, x / w, y / h)
    across = min(max(0.5 + min(x, w - x) / side, 0.0), 1.0)
    down = min(max(0.5 + min(y, h - y) / side, 0.0), 1.0)
    return across * down


def in_frame(box: Box, width: float, height: float) -> Box:
    """The part of ``box`` (x, y, w, h) inside a ``width`` x ``height`` frame: a die cut by
    the frame's edge is boxed as labelling tools box it."""
    x0, y0 = max(box[0], 0.0), max(box[1], 0.0)
    x1, y1 = min(box[0] + box[2], width), min(box[1] + box[3], height)
    return (x0, y0, max(x1 - x0, 0.0), max(y1 - y0, 0.0))


def marks_contrast(face: NDArray[Any], fx: float, fy: float, params: DetectorParams) -> float:
    """How strongly marks stand out on a die centred at (fx, fy) of the face-scale ``face``,
    over the die's side at that place: a near die of an oblique camera is larger, and a
    two's pips lie outside a square as large as a far die's."""
    h, w = face.shape[:2]
    return face_contrast(face, fx, fy, face_side_at(params, fx, fy, w, h))


def placed_box(
    gray: NDArray[Any], fx: float, fy: float, params: DetectorParams, frame: tuple[float, float]
) -> tuple[Box, float, float]:
    """The box the finder places around a die centred at face-scale (fx, fy) of the
    face-scale ``gray`` (face-scale pixels; ``frame``: the frame's width and height there):
    a die's side at that place (grown by the perspective), turned by its measured rotation,
    in the labels' scale and shape; with that side and the rotation in degrees."""
    side = face_side_at(params, fx, fy, frame[0], frame[1])
    angle = orientation(gray, fx, fy, side, params.face_aspect)
    a = math.radians(angle)
    ext = side * params.box_scale * (abs(math.cos(a)) + abs(math.sin(a)))
    bw, bh = ext * math.sqrt(params.box_aspect), ext / math.sqrt(params.box_aspect)
    return (fx - bw / 2, fy - bh / 2, bw, bh), side, angle


def box_features(cells: NDArray[Any], x: float, y: float, box: Box, side: float) -> NDArray[Any]:
    """What the box correction reads of a die at map sample (x, y) of ``cells`` whose placed
    ``box`` (:func:`placed_box`; any pixels, ``side`` in the same) is in an image of
    ``cells``: the window's cells, the box over the side (the die's turn), and where the
    die is (shares of the map's width and height)."""
    hm, wm = cells.shape[1] - SPAN, cells.shape[2] - SPAN
    v = min(max(round(y), 0), hm - 1)
    u = min(max(round(x), 0), wm - 1)
    where = [math.sqrt(box[2] * box[3]) / side, u / max(1, wm - 1), v / max(1, hm - 1)]
    return np.concatenate([window(cells, v, u), np.array(where, np.float32)])


@dataclass(frozen=True)
class FinderLook:
    """The finder's pass over a frame scaled for dice of one size: what :func:`detect`
    places its dice from, and whose peaks the size measure
    (:mod:`vision.reading.photo_scale`) weighs, computed once for both."""

    face: NDArray[Any]  # the frame at the face scale (a die FACE_DIE_PX wide), BGR
    bal: NDArray[Any]  # the frame at the working scale, colour-balanced
    cells: NDArray[Any]  # the finder's feature maps of ``bal``
    peaks: list[tuple[float, float, float]]  # score-map x, y, score: those over the threshold


def finder_look(image: NDArray[Any], detector: Detector, die_scale: float = 1.0) -> FinderLook:
    """The finder's look at a BGR ``image`` whose dice are ``die_scale`` times the side
    calibration learned."""
    params = detector.params
    h0, w0 = image.shape[:2]
    face = shrink(image, working_scale(image_length(w0, h0), params, FACE_DIE_PX) / die_scale)
    bal = balance(shrink(face, params.work_die_px / FACE_DIE_PX))
    cells = feature_maps(bal, params.work_die_px)
    return FinderLook(face, bal, cells, dice_peaks(cells, detector))


def dice_peaks(cells: NDArray[Any], detector: Detector) -> list[tuple[float, float, float]]:
    """The finder's dice in a working frame's feature maps ``cells``: the peaks of its
    scores over the threshold (score-map x, y, score), at least ``PEAKS_APART`` of a side
    apart, at most ``max_dice`` of them."""
    params = detector.params
    min_dist = PEAKS_APART * params.work_die_px / STRIDE
    return peaks(score_map(cells, detector), params.threshold, min_dist, params.max_dice)


def detect(
    image: NDArray[Any],
    detector: Detector,
    die_scale: float = 1.0,
    look: FinderLook | None = None,
) -> DetectResult:
    """Find the dice in a BGR ``image``; boxes are in ``image`` pixels. ``die_scale``: the
    dice's side over the side calibration learned (1: the calibrated camera; see
    :mod:`vision.reading.photo_scale`); ``look``: the finder's look at ``image`` at that
    size, when already taken (:func:`finder_look`)."""
    params = detector.params
    h0, w0 = image.shape[:2]
    if look is None:
        look = finder_look(image, detector, die_scale)
    face, bal, cells, found = look.face, look.bal, look.cells, look.peaks
    fs = face.shape[1] / w0
    ws = bal.shape[1] / w0
    die_px = params.work_die_px
    gray = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY)
    side_face = FACE_DIE_PX
    novel = novel_mask(bal, detector.colour_logp, params.novel_logp)
    detections: list[Detection] = []
    wh, ww = bal.shape[:2]
    for x, y, s in found:
        wx, wy = STRIDE * x, STRIDE * y  # working pixels
        if share_in_frame(params, wx, wy, (ww, wh)) < HALF_SEEN:
            continue  # mostly out of view: a peak in a corner (the maps mirror the frame there)
        if novel is not None:
            r = int(0.4 * die_px)
            x0, y0 = max(0, int(wx) - r), max(0, int(wy) - r)
            patch = novel[y0 : int(wy) + r + 1, x0 : int(wx) + r + 1]
            if patch.size and float(patch.mean()) > 0.8:
                continue  # colours never seen in calibration: a hand or an object, not a die
        fx, fy = wx * fs / ws, wy * fs / ws
        if marks_contrast(face, fx, fy, params) < params.min_contrast:
            continue  # no marks: skin, a card, the bare tray
        box, side, angle = placed_box(gray, fx, fy, params, (w0 * fs, h0 * fs))
        fit_center = None
        if detector.box_fit is not None:
            fit = detector.box_fit.correction(box_features(cells, x, y, box, side))
            box = corrected(box, side, fit)
            bx, by = box[0] + box[2] / 2, box[1] + box[3] / 2
            if math.hypot(bx - fx, by - fy) >= SECOND_CUT_FROM * side:
                fit_center = (bx, by)
        placed = in_frame((box[0] / fs, box[1] / fs, box[2] / fs, box[3] / fs), w0, h0)
        if any(iou(placed, d.box) >= SAME_DIE_IOU for d in detections):
            continue  # a weaker peak on a die already found (its side, a second peak)
        aspect = outline_aspect(face, gray, fx, fy, side_face)
        cut = not whole_in_frame(params, wx, wy, (ww, wh))  # its outline is cut too
        detections.append(
            Detection(
                box=placed,
                center=(fx / fs, fy / fs),
                side=side_face / fs,
                rect=((fx, fy), (side, side), angle),
                cocked=aspect > params.cocked_aspect and not cut,
                score=s,
                aspect=aspect,
                fit_center=fit_center,
                cut=cut,
            )
        )
    obstructed, novel_share = obstruction(novel, params.obstruction_dice, die_px)
    detections.sort(key=lambda d: (d.center[1], d.center[0]))
    return DetectResult(
        detections=detections,
        work=face,
        gray=gray,
        scale=fs,
        obstructed=obstructed,
        light_fraction=novel_share,
    )
