"""What a model learned from, and whether a photo lies outside it.

Calibration records its :class:`Domain` in the model: the calibration photos'
sizes, a die's side in their pixels, and two measures of the dice as the
reader sees them (:func:`vision.reading.die_shape.outline_size` at each
labeled die): the outline's side over the side the model expects (the dice's
distance from the camera) and its aspect (long over short side: the camera's
view, 1 straight down, longer the more oblique). Reading compares a frame with
it and says, in one line each, what the model never saw:

- a photo of another shape than every calibration photo (another camera or
  crop: the die's size, measured against the photo's size, no longer holds), or
  one with too few pixels for a die;
- a photo turned a quarter against every calibration photo (portrait for
  landscape) when calibration learned how the dice grow across the photo: an
  oblique camera's growth then runs along the other axis (a camera straight
  down may be turned at will);
- dice much smaller or larger than the calibration dice (the camera moved);
- dice seen from a clearly more oblique or more straight-down camera.

Both of the last are judged on two dice or more whose outlines are one die's (not two
dice pressed together); the size when two thirds of them are beyond the margin (a die's
mark taken for its outline looks small). The reader (:mod:`vision.reading.reader`)
waits for two throws in a row to show such a warning before it says so.

A model without a domain (calibrated before it was recorded) checks nothing.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

SHAPE_TOLERANCE = 1.04  # a photo's aspect ratio this close to a calibration photo's is the same
FEW_PIXELS = 0.5  # a die under this share of the calibration dice's pixels (and...)
FEW_PIXELS_ABS = 40.0  # ... under this many pixels wide has too few pixels to be read well
SIZE_MARGIN = 1.3  # a frame's median size beyond the calibration dice's quartiles by this
VIEW_MARGIN = 1.12  # a frame's median aspect beyond the calibration dice's quartiles by this
FLAT_ASPECT = 1.05  # what a die seen straight down may measure (its outline's roughness)
SINGLE_DIE = 1.2  # an outline this far beyond the calibration's quartiles is no single die
PAIR_ASPECT = 1.35  # an outline this much longer than the calibration's is two dice pressed


class DomainIssue(Enum):
    """Why a frame lies outside what the model learned from."""

    PHOTO_SHAPE = "photo_shape"
    PHOTO_TURNED = "photo_turned"
    FEW_PIXELS = "few_pixels"
    DICE_SMALLER = "dice_smaller"
    DICE_LARGER = "dice_larger"
    MORE_OBLIQUE = "more_oblique"
    MORE_STRAIGHT = "more_straight"
    NO_DICE = "no_dice"  # dice thrown in, none found (vision.reading.reader)

    @property
    def line(self) -> str:
        """The issue in a few words (a screen's fault line)."""
        return _LINES[self]

    @property
    def from_dice(self) -> bool:
        """Whether the issue is judged from the dice's measures, which vary from throw to
        throw (one throw's may mislead), rather than from the frame's size."""
        return self not in (
            DomainIssue.PHOTO_SHAPE,
            DomainIssue.PHOTO_TURNED,
            DomainIssue.FEW_PIXELS,
        )


_LINES = {
    DomainIssue.PHOTO_SHAPE: "photo size not the calibrated one",
    DomainIssue.PHOTO_TURNED: "camera turned since calibration",
    DomainIssue.FEW_PIXELS: "too few pixels a die",
    DomainIssue.DICE_SMALLER: "dice smaller than calibrated",
    DomainIssue.DICE_LARGER: "dice larger than calibrated",
    DomainIssue.MORE_OBLIQUE: "camera more oblique than calibrated",
    DomainIssue.MORE_STRAIGHT: "camera more upright than calibrated",
    DomainIssue.NO_DICE: "no dice found: camera moved?",
}


@dataclass(frozen=True)
class DomainWarning:
    """One way a frame lies outside the model's domain, in words."""

    kind: DomainIssue
    text: str


def no_dice_warning(expected: int) -> DomainWarning:
    """Dice thrown into the tray (it changed) where ``expected`` were awaited, and none
    found: the camera moved (its dice too small or large for the finder), or its view or
    the dice are not those calibrated."""
    return DomainWarning(
        DomainIssue.NO_DICE,
        f"no die found in the tray after two throws where {expected} were expected: "
        "if the dice lay in view, the camera moved or its view or the dice changed since "
        "calibration (calibrate again); enter the dice with the buttons meanwhile",
    )


@dataclass(frozen=True)
class Domain:
    """The calibration photos' sizes and its dice as measured (percentiles)."""

    sizes: tuple[tuple[int, int], ...]  # distinct (width, height) of the calibration photos
    die_px: tuple[float, float, float]  # a die's side in their pixels: 5th, 50th, 95th pct
    size: tuple[float, float]  # measured side over expected side: its quartiles
    aspect: tuple[float, float]  # the outline's aspect (long over short side): its quartiles

    def to_json(self) -> str:
        """The domain as a JSON string (kept in the model file)."""
        return json.dumps(
            {
                "sizes": [list(s) for s in self.sizes],
                "die_px": [round(v, 2) for v in self.die_px],
                "size": [round(v, 4) for v in self.size],
                "aspect": [round(v, 4) for v in self.aspect],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Domain:
        """Rebuild from :meth:`to_json`.

        Raises:
            ValueError: not such a JSON document (the model loader reports it as damage).
        """
        data = json.loads(text)
        try:
            die_px = tuple(float(v) for v in data["die_px"])
            size = tuple(float(v) for v in data["size"])
            aspect = tuple(float(v) for v in data["aspect"])
            sizes = tuple((int(w), int(h)) for w, h in data["sizes"])
        except (KeyError, TypeError) as exc:
            raise ValueError(f"calibration domain: {exc}") from None
        if len(die_px) != 3 or len(size) != 2 or len(aspect) != 2 or not sizes:
            raise ValueError("calibration domain: wrong number of values")
        return cls(sizes, (die_px[0], die_px[1], die_px[2]), (size[0], size[1]),
                   (aspect[0], aspect[1]))  # fmt: skip

    def sizes_text(self) -> str:
        """The calibration photos' sizes, for a message."""
        shown = ", ".join(f"{w}x{h}" for w, h in self.sizes[:3])
        return shown + (f" and {len(self.sizes) - 3} more" if len(self.sizes) > 3 else "")


def learned_domain(
    sizes: Sequence[tuple[int, int]],
    die_px: Sequence[float],
    size: Sequence[float],
    aspect: Sequence[float],
) -> Domain:
    """The domain of calibration photos of ``sizes`` whose labeled dice measured ``die_px``
    pixels, ``size`` times the expected side and ``aspect`` (long over short side)."""
    distinct = sorted(set(sizes), key=lambda s: -list(sizes).count(s))
    px = np.percentile(die_px, [5, 50, 95]) if len(die_px) else np.zeros(3)
    # quartiles: a die pressed against another, or one whose mark is taken for its outline,
    # measures far off; a frame is judged by its dice's median
    sz = np.percentile(size, [25, 75]) if len(size) else np.ones(2)
    asp = np.percentile(aspect, [25, 75]) if len(aspect) else np.ones(2)
    return Domain(
        tuple(distinct[:8]),
        (float(px[0]), float(px[1]), float(px[2])),
        (float(sz[0]), float(sz[1])),
        (float(asp[0]), float(asp[1])),
    )


def photo_warnings(
    domain: Domain,
    width: int,
    height: int,
    die_frac: float,
    oblique: bool = False,
    native: Sequence[tuple[int, int]] = (),
) -> list[DomainWarning]:
    """What is wrong with a ``width`` x ``height`` photo for a model of ``domain`` whose dice
    are ``die_frac`` of a photo's ``sqrt(width * height)``: its shape, its turn (only for a
    model that learned an ``oblique`` camera), its pixels per die. ``native``: the sizes
    the calibration photos had before a labelling service stretched or fitted them
    (:func:`vision.reading.exported.camera_sizes`): a photo of their shape is of the
    camera too, and their turn is the camera's (a square export has none)."""
    out: list[DomainWarning] = []
    ratio = max(width, height) / max(1, min(width, height))
    native = native or domain.sizes
    shapes = [max(w, h) / max(1, min(w, h)) for w, h in (*domain.sizes, *native)]
    if all(abs(math.log(ratio / s)) > math.log(SHAPE_TOLERANCE) for s in shapes):
        out.append(
            DomainWarning(
                DomainIssue.PHOTO_SHAPE,
                f"a {width}x{height} photo, but the model learned from {domain.sizes_text()} "
                "photos: another camera or crop, so the dice will not be the size learned "
                "(calibrate with photos from this camera)",
            )
        )
    elif oblique and width != height and all((w > h) != (width > height) for w, h in native):
        out.append(
            DomainWarning(
                DomainIssue.PHOTO_TURNED,
                f"a {width}x{height} photo, but the model learned from {domain.sizes_text()} "
                "photos of an oblique camera: turned a quarter, the near dice are no longer "
                "where they were learned larger (turn the camera back, or calibrate again)",
            )
        )
    px = die_frac * math.sqrt(width * height)
    if px < FEW_PIXELS * domain.die_px[0] and px < FEW_PIXELS_ABS:
        out.append(
            DomainWarning(
                DomainIssue.FEW_PIXELS,
                f"dice about {px:.0f} px wide in a {width}x{height} photo, but the model "
                f"learned from dice of {domain.die_px[1]:.0f} px: too few pixels to read "
                "them well (a larger photo size, or the camera closer)",
            )
        )
    return out


def dice_warnings(
    domain: Domain, sizes: Sequence[float], aspects: Sequence[float]
) -> list[DomainWarning]:
    """What is wrong with the dice of a frame, measured as at calibration: their sides over
    the expected side (``sizes``) and their outlines' aspects (``aspects``, one per size)."""
    out: list[DomainWarning] = []
    # the size is judged on the outlines as long as one die's (two dice pressed together
    # make one outline of both, some 1.4 times a die's side and twice as long as wide), two
    # of them at least, two thirds of them beyond the margin (a die's dark mark taken for
    # its outline looks small: a moved camera moves them all)
    longest = max(domain.aspect[1], FLAT_ASPECT) * PAIR_ASPECT
    one_die = [side for side, a in zip(sizes, aspects, strict=True) if a <= longest]
    most = math.ceil(2 * len(one_die) / 3)
    smaller = sum(side < domain.size[0] / SIZE_MARGIN for side in one_die)
    larger = sum(side > domain.size[1] * SIZE_MARGIN for side in one_die)
    if len(one_die) >= 2:
        s = float(np.median(one_die))
        if smaller >= most:
            out.append(
                DomainWarning(
                    DomainIssue.DICE_SMALLER,
                    f"dice about {s:.0%} of the size the model learned (it saw "
                    f"{domain.size[0]:.0%}-{domain.size[1]:.0%}): the camera is farther away "
                    "or zoomed out; dice may be missed or misread (calibrate again)",
                )
            )
        elif larger >= most:
            out.append(
                DomainWarning(
                    DomainIssue.DICE_LARGER,
                    f"dice about {s:.0%} of the size the model learned (it saw "
                    f"{domain.size[0]:.0%}-{domain.size[1]:.0%}): the camera is closer or "
                    "zoomed in; dice may be missed or misread (calibrate again)",
                )
            )
    # the view is judged on the dice whose outline is one die's (two dice pressed together
    # look long, a mark taken for the outline looks small), two of them at least
    lo, hi = domain.size[0] / SINGLE_DIE, domain.size[1] * SINGLE_DIE
    single = [a for s, a in zip(sizes, aspects, strict=True) if lo <= s <= hi]
    if len(single) >= 2:
        a = float(np.median(single))
        if a > max(domain.aspect[1], FLAT_ASPECT) * VIEW_MARGIN:
            out.append(
                DomainWarning(
                    DomainIssue.MORE_OBLIQUE,
                    f"dice look {a:.2f} times longer than wide (the model learned "
                    f"{domain.aspect[0]:.2f}-{domain.aspect[1]:.2f}): the camera is more "
                    "oblique than in calibration; faces may be misread (calibrate again)",
                )
            )
        elif a < domain.aspect[0] / VIEW_MARGIN:
            out.append(
                DomainWarning(
                    DomainIssue.MORE_STRAIGHT,
                    f"dice look {a:.2f} times longer than wide (the model learned "
                    f"{domain.aspect[0]:.2f}-{domain.aspect[1]:.2f}): the camera looks more "
                    "straight down than in calibration; faces may be misread (calibrate again)",
                )
            )
    return out


def camera_fit(
    domain: Domain | None,
    die_frac: float,
    width: int,
    height: int,
    oblique: bool = False,
    native: Sequence[tuple[int, int]] = (),
) -> str:
    """One line for ``config check``: how a camera delivering ``width`` x ``height`` frames
    fits a model of ``domain`` (warnings when it does not; ``oblique`` and ``native``: as
    for :func:`photo_warnings`)."""
    if domain is None:
        return (
            "face model: it does not record the photos it was calibrated on (calibrate "
            "again to have the camera's size checked against them)"
        )
    px = die_frac * math.sqrt(width * height)
    learned = (
        f"it learned from {domain.sizes_text()} photos, dice "
        f"{domain.die_px[0]:.0f}-{domain.die_px[2]:.0f} px"
    )
    problems = photo_warnings(domain, width, height, die_frac, oblique, native)
    if not problems:
        return f"face model: at {width}x{height} dice about {px:.0f} px; {learned}: fine"
    return "face model: warning: " + "; ".join(p.text for p in problems)
