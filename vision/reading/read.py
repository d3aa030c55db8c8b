"""Reading one frame: find the dice, read each face, flag what must not be trusted.

Full-resolution photos are scaled before anything else: a JPEG file is decoded
at 1/2, 1/4 or 1/8 size by libjpeg itself (``cv2.IMREAD_REDUCED_COLOR_N``, the
largest reduction that keeps a die at least twice the face scale), then resized
with pixel-area averaging (``cv2.INTER_AREA``) to the face scale (a die
``FACE_DIE_PX``, 40 pixels wide, where faces are read) and the working scale (24
pixels, where the learned finder looks for dice). Camera frames (arrays) only
take the second step. Boxes are always reported in the original image's pixels.
A detection the face model takes for background, or that looks like no face seen
in calibration, is not a die and is left out. Faces are read in neutral light
(:func:`vision.reading.describe.light_gains`, as calibration cut them), along the colour
calibration chose for the owner's dice (``FaceModel.ink``). A die whose corrected
box's centre lies apart from the finder's peak is cut at both, and the cut nearer to
the owner's dice is read (an oblique camera's peak can fall off the top face, and a
lone pip cut off its centre looks like a two's). A die read
unsure, or sure by less than ``SECOND_LOOK_UNDER`` times the threshold, gets a second
look (:func:`vision.reading.describe.describe_again`), whose answer is the die's. A
frame outside what the model learned from (:mod:`vision.reading.domain`: another photo
shape, too few pixels a die, dice much smaller or larger, another camera angle) carries
a warning for each. A model calibrated on photos taken by hand reads each photo at its
dice's size measured in it (:mod:`vision.reading.photo_scale`) unless the size where they
look most like the owner's dice lies far from it (:mod:`vision.reading.look_scale`), and
at that size where the finder cannot measure.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.errors import ImageReadError
from vision.images import jpeg_size, read_image
from vision.reading.box_fit import Box
from vision.reading.describe import describe_again, light_gains
from vision.reading.detect import FACE_DIE_PX, DetectorParams, DetectResult, detect
from vision.reading.die_scale import photo_die_scale
from vision.reading.die_shape import outline_size
from vision.reading.domain import DomainWarning, dice_warnings, photo_warnings
from vision.reading.exported import AS_IT_IS, as_calibrated, camera_sizes, frame_box
from vision.reading.first_look import first_look
from vision.reading.memory import release_freed_memory
from vision.reading.model import FaceModel
from vision.reading.scaling import image_length

# A die of a new photo read wrong is often read only a little over the threshold, and the
# seven cuts of a second look, averaged, put many such mistakes under it; dice read surer
# are seldom wrong, and a look costs six more cuts (docs/decisions/vision.md, "A second
# look near the threshold").
SECOND_LOOK_UNDER = 2.0


@dataclass(frozen=True)
class DieRead:
    """One die: its face (None when cocked), confidence, box and flags."""

    face: str | None
    confidence: float
    box: Box
    center: tuple[float, float]
    cocked: bool
    unsure: bool
    guess: str  # the nearest face even when cocked or unsure (for evaluation)
    cut: bool = False  # in part out of the frame (always unsure: its face is seen in part)

    @property
    def flags(self) -> list[str]:
        """What is doubtful about the die: ``cocked``, ``cut``, ``unsure``."""
        named = (("cocked", self.cocked), ("cut", self.cut), ("unsure", self.unsure))
        return [flag for flag, on in named if on]

    def to_json(self) -> dict[str, Any]:
        """Plain values for ``--json`` output."""
        return {
            "face": self.face,
            "confidence": self.confidence,
            "box": [round(v, 1) for v in self.box],
            "flags": self.flags,
        }


@dataclass(frozen=True)
class DiceRead:
    """All dice of one frame, in reading order (top to bottom, left to right)."""

    dice: tuple[DieRead, ...]
    expected: int | None = None
    obstructed: bool = False
    ms: float = 0.0
    size: tuple[int, int] = (0, 0)  # width, height of the original image
    light_fraction: float = field(default=0.0, compare=False)
    warnings: tuple[DomainWarning, ...] = ()  # how the frame lies outside the model's domain
    # the dice's side over the learned side the frame was read at (measured in a photo)
    die_scale: float = field(default=1.0, compare=False)

    @property
    def count_mismatch(self) -> bool:
        """True when an expected count was given and another number of dice was found."""
        return self.expected is not None and len(self.dice) != self.expected

    @property
    def faces(self) -> tuple[str | None, ...]:
        """The faces read (None for a cocked die)."""
        return tuple(d.face for d in self.dice)

    @property
    def trustworthy(self) -> bool:
        """True when every die is read flat and sure and the count is as expected."""
        return not (
            self.count_mismatch or self.obstructed or any(d.cocked or d.unsure for d in self.dice)
        )

    @property
    def flags(self) -> tuple[str, ...]:
        """Names of the frame-level problems: count mismatch, obstructed, cocked, unsure."""
        out = []
        if self.count_mismatch:
            out.append("count_mismatch")
        if self.obstructed:
            out.append("obstructed")
        if any(d.cocked for d in self.dice):
            out.append("cocked")
        if any(d.unsure for d in self.dice):
            out.append("unsure")
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        """Plain values for ``dice read --json``."""
        return {
            "dice": len(self.dice),
            "expected": self.expected,
            "faces": list(self.faces),
            "boxes": [[round(v, 1) for v in d.box] for d in self.dice],
            "confidences": [d.confidence for d in self.dice],
            "flags": list(self.flags),
            "per_die": [d.to_json() for d in self.dice],
            "warnings": [w.text for w in self.warnings],
            "die_scale": round(self.die_scale, 3),
            "ms": round(self.ms, 2),
        }


def read_detections(result: DetectResult, model: FaceModel, factor: float = 1.0) -> list[DieRead]:
    """Read the faces of the dice in ``result``; boxes are multiplied by ``factor``.

    A detection nearer to the model's background samples than to any face is
    not a die (a shoe, a token, a pattern of the tray) and is left out.
    """
    if not result.detections:
        return []
    gains = light_gains(result.work)  # faces are read in neutral light, as calibrated
    aspect = model.params.face_aspect
    rects, described, reads = first_look(result, model, gains)
    again = [
        i
        for i, r in enumerate(reads)
        if (r.unsure or r.confidence < SECOND_LOOK_UNDER * r.bar) and not r.background
    ]
    if again:  # a second look at the dice read unsure or nearly (few: most frames skip it)
        looks = describe_again(
            result.work, [rects[i] for i in again], gains, described[again], model.ink, aspect
        )
        second = model.classify(looks)
        for i, fr in zip(again, second, strict=True):
            reads[i] = replace(fr, background=False)  # whether it is a die: the first look
    out = []
    for det, fr in zip(result.detections, reads, strict=True):
        if fr.background:
            continue
        name = model.names[fr.face]
        box = tuple(v * factor for v in det.box)
        out.append(
            DieRead(
                face=None if det.cocked else name,
                confidence=fr.confidence,
                box=(box[0], box[1], box[2], box[3]),
                center=(det.center[0] * factor, det.center[1] * factor),
                cocked=det.cocked,
                unsure=fr.unsure or det.cut,  # a face seen in part is asked about
                guess=name,
                cut=det.cut,
            )
        )
    return out


def read_frame(
    image: NDArray[Any],
    model: FaceModel,
    expect: int | None = None,
    factor: float = 1.0,
    die_scale: float | None = None,
) -> DiceRead:
    """Read every die of a BGR frame (boxes in the frame's pixels times ``factor``).

    ``die_scale``: the dice's side over the side calibration learned; None: found in the
    frame when the model learned photos taken from different distances (by hand,
    :func:`photo_die_scale`), else 1 (a camera fixed over the table)."""
    start = time.perf_counter()
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    elif image.shape[2] == 4:
        image = cv2.cvtColor(image, cv2.COLOR_BGRA2BGR)
    photo_h, photo_w = image.shape[:2]
    photo_sizes = model.domain.sizes if model.domain is not None else ()
    image, placement = as_calibrated(image, model.params, photo_sizes)
    if die_scale is None:
        die_scale = photo_die_scale(image, model)
    result = detect(image, model.detector, die_scale)
    dice = read_detections(result, model, factor)
    if placement != AS_IT_IS:  # the boxes in the photo's own pixels (times factor)
        sx, sy, ox, oy = placement
        placed = (sx, sy, ox * factor, oy * factor)
        dice = [
            replace(
                d,
                box=frame_box(d.box, placed),
                center=frame_box((*d.center, 0.0, 0.0), placed)[:2],
            )
            for d in dice
        ]
    obstructed, light = result.obstructed, result.light_fraction
    size = (round(photo_w * factor), round(photo_h * factor))
    warnings = domain_warnings(result, model, size, die_scale)
    if model.params.by_hand:  # (its photos, whatever die_scale was asked for; in ms too)
        del result  # its frames too
        release_freed_memory()
    return DiceRead(
        dice=tuple(dice),
        expected=expect,
        obstructed=obstructed,
        ms=(time.perf_counter() - start) * 1000.0,
        size=size,
        light_fraction=light,
        warnings=warnings,
        die_scale=die_scale,
    )


def domain_warnings(
    result: DetectResult, model: FaceModel, size: tuple[int, int], die_scale: float = 1.0
) -> tuple[DomainWarning, ...]:
    """How a frame of ``size`` (the original image's) and its dice found in ``result`` (at
    ``die_scale`` times the learned side) lie outside the model's domain (nothing for a
    model that did not record one)."""
    if model.domain is None:
        return ()
    params = model.params
    frac = params.die_frac * die_scale
    native = camera_sizes(params, model.domain.sizes)
    out = photo_warnings(model.domain, size[0], size[1], frac, params.oblique, native)
    gray = result.gray
    centres = np.array([det.rect[0] for det in result.detections]).reshape(-1, 2)
    sides, aspects = [], []
    for k, det in enumerate(result.detections):
        if det.cocked or _touching(centres, k, det.rect[1][0]):
            continue
        side, aspect = outline_size(gray, det.rect[0][0], det.rect[0][1], FACE_DIE_PX)
        if side > 0:
            sides.append(side)
            aspects.append(aspect)
    return tuple(out + dice_warnings(model.domain, sides, aspects))


# a die whose neighbour's centre lies nearer than this many sides is pressed against it:
# the two make one region, and the region nearest a die's area is then a mark on the die,
# which looks like a small die; its outline says nothing of the camera
TOUCHING = 1.15


def _touching(centres: NDArray[Any], k: int, side: float) -> bool:
    """True when a die other than the ``k``-th of ``centres`` (face-scale pixels) lies
    within ``TOUCHING`` of ``side`` of it."""
    gaps = np.hypot(*(centres - centres[k]).T)
    gaps[k] = np.inf
    return bool(len(gaps) > 1 and gaps.min() < TOUCHING * side)


_REDUCED = {
    8: cv2.IMREAD_REDUCED_COLOR_8,
    4: cv2.IMREAD_REDUCED_COLOR_4,
    2: cv2.IMREAD_REDUCED_COLOR_2,
}


def reduction(
    path: str | Path, model: FaceModel | DetectorParams, head: bytes | None = None
) -> int:
    """How many times smaller :func:`load_scaled` decodes ``path`` for ``model``: for a
    JPEG, the largest of 8, 4 and 2 that keeps a die at least twice the face scale (its
    size read from its header: ``head``, else the file's first megabyte); otherwise 1."""
    path = Path(path)
    if path.suffix.lower() not in (".jpg", ".jpeg") or not path.is_file():
        return 1
    if head is None:
        with path.open("rb") as fh:
            head = fh.read(1 << 20)
    size = jpeg_size(head)
    if size is None:
        return 1
    params = model.params if isinstance(model, FaceModel) else model
    die_px = params.die_frac * image_length(size[0], size[1])
    return next((r for r in (8, 4, 2) if die_px / r >= 2 * FACE_DIE_PX), 1)


def load_scaled(path: str | Path, model: FaceModel | DetectorParams) -> tuple[NDArray[Any], float]:
    """Decode an image file reduced for reading (by :func:`reduction`); return it and the
    factor back to full size.

    Raises:
        ImageReadError: the file is missing or not a decodable image.
    """
    path = Path(path)
    if path.suffix.lower() not in (".jpg", ".jpeg"):
        return read_image(path), 1.0
    if not path.is_file():
        raise ImageReadError(f"{path}: no such image file")
    data = np.fromfile(str(path), dtype=np.uint8)
    r = reduction(path, model, data[: 1 << 20].tobytes())
    if r > 1:
        image = cv2.imdecode(data, _REDUCED[r])
        if image is not None:
            return image, float(r)
    return read_image(path), 1.0


def read_file(
    path: str | Path, model: FaceModel, expect: int | None = None, die_scale: float | None = None
) -> DiceRead:
    """Read the dice of an image file (decoded reduced, see the module notes; ``die_scale``
    as for :func:`read_frame`).

    Raises:
        ImageReadError: the file is missing or not a decodable image.
    """
    start = time.perf_counter()
    image, factor = load_scaled(path, model)
    read = read_frame(image, model, expect, factor, die_scale)
    ms = (time.perf_counter() - start) * 1000.0
    return replace(read, ms=ms)


COLOURS = {"ok": (60, 200, 60), "unsure": (0, 190, 255), "cocked": (40, 40, 230)}


def annotate(image: NDArray[Any], read: DiceRead, factor: float = 1.0) -> NDArray[Any]:
    """A copy of ``image`` with each die's box, face and confidence drawn.

    ``factor`` divides the boxes (the image may be a reduced copy).
    """
    out = image.copy()
    thick = max(1, round(out.shape[1] / 500))
    for die in read.dice:
        x, y, w, h = (v / factor for v in die.box)
        kind = "cocked" if die.cocked else "unsure" if die.unsure else "ok"
        colour = COLOURS[kind]
        cv2.rectangle(out, (round(x), round(y)), (round(x + w), round(y + h)), colour, thick)
        label = f"{die.face or 'cocked'} {die.confidence:.2f}" + ("?" if die.unsure else "")
        cv2.putText(
            out,
            label,
            (round(x), max(12, round(y) - 4)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4 * thick,
            colour,
            thick,
            cv2.LINE_AA,
        )
    if read.flags:
        cv2.putText(
            out,
            ", ".join(read.flags),
            (8, 10 + 14 * thick),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.5 * thick,
            (40, 40, 230),
            thick,
            cv2.LINE_AA,
        )
    return out
