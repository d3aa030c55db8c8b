"""Finding dice in a frame, with classical image processing only (OpenCV imgproc + numpy).

Steps, at a *working scale* where a die is about ``work_die_px`` pixels wide:

1. Brightness (HSV value) is split into light and dark with Otsu's threshold
   (``dice="dark"``: dark dice on a light tray, the negative is used).
2. The tray is the largest dark region; its convex hull bounds where dice may lie
   (the light table around a round tray is left out). ``tray="none"`` skips this.
3. Light, unsaturated regions inside the tray, holes (pips, symbols) filled, are
   die candidates. A region holding several touching dice (its area says how
   many) is split by k-means on its pixel coordinates, seeded from the
   distance-transform peaks: deterministic and fast.
4. Each die gets its rotated rectangle; a die whose outline is far from a
   square of the expected size is flagged *cocked* (leaning on the wall or on
   another die); a light region larger than ``obstruction_dice`` dice, or a
   coloured (saturated) one larger than a die and a half, is an obstruction
   (a hand), not dice.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.errors import ConfigError

Box = tuple[float, float, float, float]


@dataclass(frozen=True)
class DetectorParams:
    """Settings of the die finder; calibration sets ``die_frac`` and ``die_area``."""

    die_frac: float = 0.11  # a die's side over the image width
    work_die_px: float = 40.0  # a die's side at the working scale
    die_area: float = 0.85  # a lone die's filled area over work_die_px**2
    tray: str = "auto"  # "auto": a dark tray bounds the dice; "none": the whole frame
    dice: str = "light"  # "light" dice on a darker tray, or "dark" dice on a lighter one
    max_saturation: float = 90.0  # mean HSV saturation above which a region is no die
    cocked_aspect: float = 1.33  # rotated-rectangle aspect above which a die is cocked
    cocked_area: tuple[float, float] = (0.5, 1.6)  # area range (x die_area) of a flat die
    obstruction_dice: float = 8.0  # a region of more dice than this is a hand or an object

    def __post_init__(self) -> None:
        if not 0.005 <= self.die_frac <= 0.5:
            raise ConfigError(f"die_frac {self.die_frac} must be within 0.005..0.5")
        if not 12 <= self.work_die_px <= 200:
            raise ConfigError(f"work_die_px {self.work_die_px} must be within 12..200")
        if self.tray not in ("auto", "none"):
            raise ConfigError(f"tray {self.tray!r} must be 'auto' or 'none'")
        if self.dice not in ("light", "dark"):
            raise ConfigError(f"dice {self.dice!r} must be 'light' or 'dark'")

    def to_dict(self) -> dict[str, object]:
        """Plain values, for a model file."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, object]) -> DetectorParams:
        """Rebuild from :meth:`to_dict` output (unknown keys ignored)."""
        known: dict[str, Any] = {k: v for k, v in data.items() if k in cls.__dataclass_fields__}
        if "cocked_area" in known:
            lo, hi = known["cocked_area"]
            known["cocked_area"] = (float(lo), float(hi))
        return cls(**known)


@dataclass(frozen=True)
class Detection:
    """One die found: its box in the input image's pixels and its rotated rectangle.

    ``rect`` is ((cx, cy), (w, h), angle) at the working scale, for patch extraction.
    """

    box: Box
    center: tuple[float, float]
    side: float
    rect: tuple[tuple[float, float], tuple[float, float], float]
    cocked: bool
    area_ratio: float


@dataclass
class DetectResult:
    """What the finder saw in one frame."""

    detections: list[Detection]
    work: np.ndarray  # the working-scale BGR image
    scale: float  # working pixels per input pixel
    obstructed: bool = False  # a hand or a large object is in the tray
    light_fraction: float = 0.0  # share of the tray that is light (empty tray ~ 0)
    tray_mask: np.ndarray | None = field(default=None, repr=False)


def working_scale(width: int, params: DetectorParams) -> float:
    """Working pixels per input pixel for an image ``width`` pixels wide."""
    return params.work_die_px / (params.die_frac * width)


def shrink(image: np.ndarray, scale: float) -> np.ndarray:
    """Resize by ``scale`` < 1 with pixel-area averaging, fast.

    OpenCV's area resize has a fast path for whole-number factors: the image is
    first shrunk by the largest whole factor that divides both sides and does
    not overshoot, then area-resized the rest of the way.
    """
    h, w = image.shape[:2]
    size = (max(1, round(w * scale)), max(1, round(h * scale)))
    for k in range(int(1.0 / scale), 1, -1):
        if w % k == 0 and h % k == 0:
            image = cv2.resize(image, (w // k, h // k), interpolation=cv2.INTER_AREA)
            break
    if (image.shape[1], image.shape[0]) == size:
        return image
    return cv2.resize(image, size, interpolation=cv2.INTER_AREA)


def _tray_mask(value: np.ndarray, light: np.ndarray) -> np.ndarray:
    dark = cv2.bitwise_not(light)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
    full = np.full_like(light, 255)
    if n <= 1:
        return full
    k = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[k, cv2.CC_STAT_AREA] < 0.15 * value.size:
        return full
    contours, _ = cv2.findContours(
        (labels == k).astype(np.uint8), cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE
    )
    hull = cv2.convexHull(np.vstack(contours))
    mask = np.zeros_like(light)
    cv2.fillPoly(mask, [hull], 255)
    return mask


def _aspect(contours: Sequence[np.ndarray]) -> float:
    (_, _), (w, h), _ = cv2.minAreaRect(np.vstack(contours))
    return float(max(w, h) / max(1.0, min(w, h)))


def _split(points: np.ndarray, dist: np.ndarray, n: int) -> list[np.ndarray]:
    """Split (x, y) ``points`` of a region into ``n`` dice by seeded k-means."""
    weights = dist[points[:, 1], points[:, 0]]
    centers = [points[int(np.argmax(weights))].astype(np.float64)]
    pts = points.astype(np.float64)
    core = pts[weights >= 0.5 * weights.max()]
    for _ in range(1, n):
        d2 = np.min([((core - c) ** 2).sum(1) for c in centers], axis=0)
        centers.append(core[int(np.argmax(d2))])
    c = np.array(centers)
    assign = np.zeros(len(pts), dtype=np.int64)
    for step in range(12):
        d2 = ((pts[:, None, :] - c[None, :, :]) ** 2).sum(2)
        new = np.argmin(d2, axis=1)
        if step > 0 and np.array_equal(new, assign):
            break
        assign = new
        for j in range(n):
            sel = pts[assign == j]
            if len(sel):
                c[j] = sel.mean(0)
    return [points[assign == j] for j in range(n)]


def detect(image: np.ndarray, params: DetectorParams, scale: float | None = None) -> DetectResult:
    """Find the dice in a BGR ``image``; boxes are in ``image`` pixels.

    ``scale`` (working pixels per input pixel) defaults to :func:`working_scale`.
    """
    w0 = image.shape[1]
    s = working_scale(w0, params) if scale is None else scale
    work = shrink(image, s) if s < 1 else image
    s = work.shape[1] / w0
    hsv = cv2.cvtColor(work, cv2.COLOR_BGR2HSV)
    value = cv2.GaussianBlur(hsv[..., 2], (3, 3), 0)
    if params.dice == "dark":  # dark dice on a light tray: the same steps on the negative
        value = cv2.bitwise_not(value)
    _, light = cv2.threshold(value, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    tray = _tray_mask(value, light) if params.tray == "auto" else np.full_like(light, 255)
    candidates = cv2.bitwise_and(light, tray)
    die_px = params.work_die_px
    lone_area = params.die_area * die_px * die_px
    n, labels, stats, _ = cv2.connectedComponentsWithStats(candidates, connectivity=8)
    sat = hsv[..., 1]
    detections: list[Detection] = []
    obstructed = False
    light_px = 0
    for k in range(1, n):
        x, y, w, h, area = (int(v) for v in stats[k])
        if area < 0.3 * lone_area:
            continue
        sub = (labels[y : y + h, x : x + w] == k).astype(np.uint8)
        contours, _ = cv2.findContours(sub, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        filled = np.zeros_like(sub)
        cv2.drawContours(filled, contours, -1, 1, thickness=-1)
        filled_area = int(filled.sum())
        light_px += filled_area
        count = max(1, round(filled_area / lone_area))
        if count > params.obstruction_dice:
            obstructed = True
            continue
        # (saturation means little for dark dice: only light dice are checked)
        if (
            params.dice == "light"
            and float(sat[y : y + h, x : x + w][sub > 0].mean()) > params.max_saturation
        ):
            # not die-coloured: a small speck is ignored, a large one is a hand or an object
            obstructed = obstructed or filled_area > 1.5 * lone_area
            continue
        ys, xs = np.nonzero(filled)
        points = np.stack([xs, ys], axis=1).astype(np.int32)
        if count == 2 and filled_area < 1.72 * lone_area and _aspect(contours) < 1.7:
            count = 1  # one die seen leaning (two faces), not two dice: kept whole, cocked
        if count == 1:
            parts = [points]
        else:
            dist = cv2.distanceTransform(filled, cv2.DIST_L2, 3)
            parts = _split(points, dist, count)
        for part in parts:
            if len(part) < 0.3 * lone_area:
                continue
            shifted = part + np.array([x, y], dtype=part.dtype)
            rect = cv2.minAreaRect(shifted.astype(np.float32).reshape(-1, 1, 2))
            (cx, cy), (rw, rh), angle = rect
            aspect = max(rw, rh) / max(1.0, min(rw, rh))
            ratio = len(part) / lone_area
            lo, hi = params.cocked_area
            cocked = aspect > params.cocked_aspect or not lo <= ratio <= hi
            bx, by = part[:, 0].min() + x, part[:, 1].min() + y
            bw = part[:, 0].max() + x - bx + 1
            bh = part[:, 1].max() + y - by + 1
            box = (bx / s, by / s, bw / s, bh / s)
            detections.append(
                Detection(
                    box=(float(box[0]), float(box[1]), float(box[2]), float(box[3])),
                    center=(float(cx / s), float(cy / s)),
                    side=float(max(rw, rh) / s),
                    rect=((float(cx), float(cy)), (float(rw), float(rh)), float(angle)),
                    cocked=bool(cocked),
                    area_ratio=float(ratio),
                )
            )
    detections.sort(key=lambda d: (d.center[1], d.center[0]))
    tray_area = max(1, int(np.count_nonzero(tray)))
    return DetectResult(
        detections=detections,
        work=work,
        scale=s,
        obstructed=obstructed,
        light_fraction=light_px / tray_area,
        tray_mask=tray,
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
