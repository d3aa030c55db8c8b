"""A synthetic renderer of Tournament of Power dice in a tray, seen from above.

The six face drawings are OUR OWN invented drawings of the game's symbols
(kick: a boot; punch: a fist; sphere: a ball with a star; strength: a
dumbbell; star: a five-pointed star; teleport: two broken rings around a dot).
They are not the printed dice; calibration (``toptable dice calibrate``) on
photos of the real dice replaces them. The symbol list comes from
:mod:`controller.core.symbols`, the one source of truth.

A scene is a light table, a round dark tray and dice: random position and
rotation, touching pairs, shadows, uneven lighting, colour cast, blur, noise
and JPEG artefacts (``hard=True``), optionally cocked dice (two faces seen
foreshortened). :func:`render_throws` renders a whole attack as camera frames:
dice tumbling, then still; kept dice stay exactly where they lay.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from controller.core.symbols import ALL_SYMBOLS, Symbol

FACE_PX = 128
INK = (40, 30, 30)
IVORY = (222, 236, 242)
TABLE = (196, 200, 203)
TRAY = (52, 56, 50)
RIM = (70, 74, 68)
SKIN = (120, 150, 205)


def _star_points(cx: float, cy: float, r_out: float, r_in: float) -> np.ndarray:
    pts = []
    for i in range(10):
        r = r_out if i % 2 == 0 else r_in
        a = -math.pi / 2 + i * math.pi / 5
        pts.append((cx + r * math.cos(a), cy + r * math.sin(a)))
    return np.array(pts, dtype=np.int32)


@functools.lru_cache(maxsize=256)
def _face_cached(symbol: Symbol, px: int) -> np.ndarray:
    face = _draw_face(symbol, px)
    face.flags.writeable = False
    return face


def draw_face(symbol: Symbol, px: int = FACE_PX) -> np.ndarray:
    """Our own drawing of ``symbol`` on an ivory die face, ``px`` x ``px`` BGR (a copy)."""
    return _face_cached(symbol, px).copy()


def _draw_face(symbol: Symbol, px: int) -> np.ndarray:
    s = FACE_PX
    face: np.ndarray = np.full((s, s, 3), IVORY, dtype=np.uint8)
    aa = cv2.LINE_AA
    if symbol is Symbol.KICK:
        boot = np.array([(46, 16), (74, 16), (74, 74), (108, 82), (108, 106), (46, 106)])
        cv2.fillPoly(face, [boot.astype(np.int32)], INK, aa)
    elif symbol is Symbol.PUNCH:
        cv2.rectangle(face, (30, 38), (98, 100), INK, -1, aa)
        for x in (47, 64, 81):
            cv2.line(face, (x, 38), (x, 64), IVORY, 4, aa)
        cv2.line(face, (30, 74), (72, 74), IVORY, 4, aa)
    elif symbol is Symbol.SPHERE:
        cv2.circle(face, (64, 64), 40, INK, -1, aa)
        cv2.fillPoly(face, [_star_points(52, 52, 15, 6)], IVORY, aa)
    elif symbol is Symbol.STRENGTH:
        cv2.rectangle(face, (34, 57), (94, 71), INK, -1, aa)
        cv2.rectangle(face, (16, 32), (38, 96), INK, -1, aa)
        cv2.rectangle(face, (90, 32), (112, 96), INK, -1, aa)
    elif symbol is Symbol.STAR:
        cv2.fillPoly(face, [_star_points(64, 68, 50, 20)], INK, aa)
    elif symbol is Symbol.TELEPORT:
        cv2.ellipse(face, (64, 64), (44, 44), 0, 40, 330, INK, 9, aa)
        cv2.ellipse(face, (64, 64), (24, 24), 0, 220, 510, INK, 8, aa)
        cv2.circle(face, (64, 64), 7, INK, -1, aa)
    if px != s:
        face = cv2.resize(face, (px, px), interpolation=cv2.INTER_AREA)
    return face


@dataclass(frozen=True)
class Settings:
    """How a scene looks; ``hard=True`` turns every nuisance up."""

    width: int = 1280
    height: int = 960
    die_frac: float = 0.1  # die side over frame width
    hard: bool = False
    touching: float = 0.3  # chance that a die is placed against the previous one


@dataclass(frozen=True)
class PlacedDie:
    """A die in a scene: its face, centre, rotation (degrees) and whether it is cocked."""

    symbol: Symbol
    center: tuple[float, float]
    angle: float
    side: float
    cocked: bool = False
    tilt: float = 0.0  # cocked dice: how far the die leans (degrees)
    second: Symbol = Symbol.STAR  # cocked dice: the other face seen

    def box(self) -> tuple[float, float, float, float]:
        """The axis-aligned box (x, y, w, h) around the die's outline."""
        pts = _outline(self)
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        return (float(x0), float(y0), float(x1 - x0), float(y1 - y0))


def _outline(die: PlacedDie) -> np.ndarray:
    w = die.side
    if die.cocked:
        t = math.radians(die.tilt)
        w = die.side * (math.cos(t) + math.sin(t))
    h = die.side
    a = math.radians(die.angle)
    c, s = math.cos(a), math.sin(a)
    corners = np.array([(-w / 2, -h / 2), (w / 2, -h / 2), (w / 2, h / 2), (-w / 2, h / 2)])
    rot = np.array([[c, -s], [s, c]])
    return corners @ rot.T + np.array(die.center)


@dataclass
class Scene:
    """A rendered frame and the dice in it."""

    image: np.ndarray
    dice: list[PlacedDie] = field(default_factory=list)


def _die_image(die: PlacedDie) -> np.ndarray:
    side = max(8, round(die.side))
    top = draw_face(die.symbol, side)
    if not die.cocked:
        return top
    t = math.radians(die.tilt)
    w1 = max(2, round(side * math.cos(t)))
    w2 = max(2, round(side * math.sin(t)))
    a = cv2.resize(top, (w1, side), interpolation=cv2.INTER_AREA)
    b = cv2.resize(draw_face(die.second, side), (w2, side), interpolation=cv2.INTER_AREA)
    b = (b.astype(np.float32) * 0.72).astype(np.uint8)
    return np.hstack([a, b])


def _paste(canvas: np.ndarray, die: PlacedDie, shadow: float, offset: tuple[int, int]) -> None:
    """Draw ``die`` (and its shadow) onto ``canvas`` in place."""
    img = _die_image(die)
    h, w = img.shape[:2]
    cx, cy = die.center
    r = int(math.hypot(w, h) / 2 + 12)
    x0, y0 = int(cx) - r, int(cy) - r
    size = 2 * r
    m = cv2.getRotationMatrix2D((w / 2, h / 2), -die.angle, 1.0)
    m[0, 2] += cx - x0 - w / 2
    m[1, 2] += cy - y0 - h / 2
    mask_src = np.zeros((h, w), np.uint8)
    radius = max(2, round(min(w, h) * 0.1))
    cv2.rectangle(mask_src, (radius, 0), (w - 1 - radius, h - 1), 255, -1)
    cv2.rectangle(mask_src, (0, radius), (w - 1, h - 1 - radius), 255, -1)
    for px, py in (
        (radius, radius),
        (w - 1 - radius, radius),
        (radius, h - 1 - radius),
        (w - 1 - radius, h - 1 - radius),
    ):
        cv2.circle(mask_src, (px, py), radius, 255, -1, cv2.LINE_AA)
    patch = cv2.warpAffine(img, m, (size, size), flags=cv2.INTER_LINEAR)
    mask = cv2.warpAffine(mask_src, m, (size, size), flags=cv2.INTER_LINEAR)
    ch, cw = canvas.shape[:2]
    ox0, oy0 = max(0, x0), max(0, y0)
    ox1, oy1 = min(cw, x0 + size), min(ch, y0 + size)
    if ox1 <= ox0 or oy1 <= oy0:
        return
    sl = (slice(oy0, oy1), slice(ox0, ox1))
    psl = (slice(oy0 - y0, oy1 - y0), slice(ox0 - x0, ox1 - x0))
    region: np.ndarray = canvas[sl].astype(np.float32)
    if shadow > 0:
        sm: np.ndarray = np.roll(mask, offset, axis=(0, 1)).astype(np.float32)
        sm = cv2.GaussianBlur(sm, (0, 0), max(1.0, die.side * 0.06)) / 255.0
        region *= (1.0 - shadow * sm[psl])[..., None]
    alpha = (mask[psl].astype(np.float32) / 255.0)[..., None]
    region = region * (1 - alpha) + patch[psl].astype(np.float32) * alpha
    canvas[sl] = np.clip(region, 0, 255).astype(np.uint8)


_BAND = 120  # rows per band in Renderer._finish


class Renderer:
    """Renders scenes deterministically from a seed."""

    def __init__(self, settings: Settings | None = None, seed: int = 0) -> None:
        self.settings = settings or Settings()
        self.rng = np.random.default_rng(seed)
        s = self.settings
        self.center = (s.width / 2, s.height / 2)
        self.radius = 0.47 * min(s.width, s.height)
        self.side = s.die_frac * s.width
        self._background = self._tray()
        h, w = s.height, s.width
        self._u = (np.arange(w, dtype=np.float32) / w - 0.5)[None, :]
        self._v = (np.arange(h, dtype=np.float32) / h - 0.5)[:, None]
        # a bank of noise (int8, 1/16 units) cropped at random offsets: fast and seeded
        # (drawn band by band: the same values in the same order, without three full-size
        # float temporaries)
        self._noise = np.empty((h + 64, w + 64, 3), np.int8)
        for top in range(0, h + 64, _BAND):
            rows = min(_BAND, h + 64 - top)
            band = self.rng.standard_normal((rows, w + 64, 3), dtype=np.float32)
            band *= 16
            np.clip(band, -127, 127, out=band)
            self._noise[top : top + rows] = band

    def _tray(self) -> np.ndarray:
        s = self.settings
        img = np.full((s.height, s.width, 3), TABLE, np.uint8)
        c = (round(self.center[0]), round(self.center[1]))
        cv2.circle(img, c, round(self.radius), RIM, -1, cv2.LINE_AA)
        cv2.circle(img, c, round(self.radius * 0.93), TRAY, -1, cv2.LINE_AA)
        return img

    def place(
        self,
        symbols: Sequence[Symbol],
        fixed: Sequence[PlacedDie] = (),
        cocked: int = 0,
    ) -> list[PlacedDie]:
        """Random non-overlapping places for ``symbols`` around the ``fixed`` dice.

        The last ``cocked`` dice are placed leaning (cocked).
        """
        rng = self.rng
        placed = list(fixed)
        out: list[PlacedDie] = []
        limit = self.radius * 0.93
        for n, sym in enumerate(symbols):
            is_cocked = n >= len(symbols) - cocked
            side = self.side * (float(rng.uniform(0.94, 1.06)) if self.settings.hard else 1.0)
            for attempt in range(400):
                angle = float(rng.uniform(0, 360))
                if (
                    placed
                    and not is_cocked
                    and attempt < 200
                    and rng.random() < self.settings.touching
                ):
                    ref = placed[int(rng.integers(len(placed)))]
                    if ref.cocked:
                        continue
                    k = int(rng.integers(4))
                    a = math.radians(ref.angle + 90 * k)
                    gap = (ref.side + side) / 2 + float(rng.uniform(0.0, 0.02)) * side
                    shift = float(rng.uniform(-0.3, 0.3)) * side
                    cx = ref.center[0] + gap * math.cos(a) - shift * math.sin(a)
                    cy = ref.center[1] + gap * math.sin(a) + shift * math.cos(a)
                    angle = ref.angle + float(rng.uniform(-3, 3))
                else:
                    rr = float(np.sqrt(rng.uniform(0, 1))) * (limit - side * 0.8)
                    th = float(rng.uniform(0, 2 * math.pi))
                    cx, cy = self.center[0] + rr * math.cos(th), self.center[1] + rr * math.sin(th)
                die = PlacedDie(
                    sym,
                    (cx, cy),
                    angle,
                    side,
                    cocked=is_cocked,
                    tilt=float(rng.uniform(30, 60)) if is_cocked else 0.0,
                    second=ALL_SYMBOLS[int(rng.integers(6))],
                )
                if self._fits(die, placed, limit):
                    placed.append(die)
                    out.append(die)
                    break
            else:
                raise ValueError(f"cannot place {len(symbols)} dice in the tray")
        return out

    def _fits(self, die: PlacedDie, others: Sequence[PlacedDie], limit: float) -> bool:
        pts = _outline(die)
        d = np.hypot(pts[:, 0] - self.center[0], pts[:, 1] - self.center[1])
        if d.max() > limit - 2:
            return False
        poly = pts.astype(np.float32)
        for o in others:
            inter, _ = cv2.intersectConvexConvex(poly, _outline(o).astype(np.float32))
            if inter > 1.0:
                return False
            if math.dist(die.center, o.center) < 0.9 * (die.side + o.side) / 2:
                return False
        return True

    def render(
        self,
        dice: Sequence[PlacedDie],
        moving: Sequence[PlacedDie] = (),
        hand: bool = False,
        look: dict[str, float] | None = None,
    ) -> np.ndarray:
        """Render a frame: still ``dice``, motion-blurred ``moving`` dice, optionally a hand.

        ``look`` fixes the lighting/noise draw (so that frames of one throw match);
        by default it is drawn at random.
        """
        lk = look if look is not None else self.draw_look()
        img = self._background.copy()
        off = (round(lk["shadow_dy"]), round(lk["shadow_dx"]))
        for die in dice:
            _paste(img, die, lk["shadow"], off)
        if moving:
            # dice in flight: drawn on a layer, box-blurred along x or y, blended in softly
            layer = img.copy()
            for die in moving:
                _paste(layer, die, lk["shadow"] * 0.5, off)
            k = max(3, int(self.side * 0.35)) | 1
            blurred = cv2.blur(layer, (k, 1) if self.rng.random() < 0.5 else (1, k))
            mask = np.zeros(img.shape[:2], np.uint8)
            for die in moving:
                centre = (round(die.center[0]), round(die.center[1]))
                cv2.circle(mask, centre, int(die.side * 0.75) + k, 255, -1)
            soft = cv2.blur(mask, (15, 15))
            for top in range(0, img.shape[0], _BAND):
                rows = slice(top, top + _BAND)
                alpha = soft[rows].astype(np.float32)[..., None] / 255.0
                img[rows] = (img[rows] * (1.0 - alpha) + blurred[rows] * alpha).astype(np.uint8)
        if hand:
            s = self.settings
            cx = int(self.rng.uniform(0.3, 0.7) * s.width)
            cv2.ellipse(
                img,
                (cx, s.height),
                (int(0.16 * s.width), int(0.45 * s.height)),
                0,
                0,
                360,
                SKIN,
                -1,
            )
        return self._finish(img, lk)

    def draw_look(self) -> dict[str, float]:
        """Random lighting, blur, noise and shadow settings for one throw."""
        rng = self.rng
        if not self.settings.hard:
            return {
                "gain": 1.0, "grad": 0.05, "grad_angle": 0.0, "cast_b": 1.0, "cast_r": 1.0,
                "blur": 0.5, "noise": 2.0, "shadow": 0.3, "shadow_dx": 4.0, "shadow_dy": 4.0,
                "jpeg": 0.0,
            }  # fmt: skip
        return {
            "gain": float(rng.uniform(0.7, 1.2)),
            "grad": float(rng.uniform(0.0, 0.25)),
            "grad_angle": float(rng.uniform(0, 2 * math.pi)),
            "cast_b": float(rng.uniform(0.88, 1.12)),
            "cast_r": float(rng.uniform(0.88, 1.12)),
            "blur": float(rng.uniform(0.3, 1.6)),
            "noise": float(rng.uniform(2.0, 9.0)),
            "shadow": float(rng.uniform(0.2, 0.6)),
            "shadow_dx": float(rng.uniform(-10, 10)),
            "shadow_dy": float(rng.uniform(-10, 10)),
            "jpeg": float(rng.uniform(55, 90)) if rng.random() < 0.5 else 0.0,
        }

    def _finish(self, img: np.ndarray, lk: dict[str, float]) -> np.ndarray:
        # Light, colour cast and noise are applied band by band into a uint8 frame: the
        # same numbers as on the whole float frame, with a fraction of its temporaries
        # (a 1280x960 float frame is 15 MB, and the demo renders while the daemon runs).
        s = self.settings
        sigma = lk["blur"]
        margin = math.ceil(4 * sigma) + 2 if sigma > 0 else 0  # beyond the kernel's reach
        cos, sin = math.cos(lk["grad_angle"]), math.sin(lk["grad_angle"])
        cast = np.array([lk["cast_b"], 1.0, lk["cast_r"]], np.float32)
        dy, dx = (int(v) for v in self.rng.integers(0, 64, 2))
        scale = np.float32(lk["noise"] / 16.0)
        out: np.ndarray = np.empty(img.shape, np.uint8)
        for top in range(0, s.height, _BAND):
            bottom = min(top + _BAND, s.height)
            lo, hi = max(0, top - margin), min(s.height, bottom + margin)
            padded = img[lo:hi].astype(np.float32)
            if sigma > 0:
                cv2.GaussianBlur(padded, (0, 0), sigma, dst=padded)
            band = padded[top - lo : bottom - lo]
            u = self._u * cos + self._v[top:bottom] * sin
            band *= (lk["gain"] * (1.0 + lk["grad"] * u))[..., None]
            band *= cast
            noise = self._noise[dy + top : dy + bottom, dx : dx + s.width].astype(np.float32)
            noise *= scale
            band += noise
            np.clip(band, 0, 255, out=band)
            out[top:bottom] = band
        if lk["jpeg"] > 0:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(lk["jpeg"])])
            if ok:
                decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
                if decoded is not None:
                    out = decoded
        return out

    def scene(
        self, symbols: Sequence[Symbol] | None = None, count: int = 6, cocked: int = 0
    ) -> Scene:
        """One settled scene with ``symbols`` (random faces when None)."""
        if symbols is None:
            symbols = [ALL_SYMBOLS[int(i)] for i in self.rng.integers(0, 6, count)]
        dice = self.place(symbols, cocked=cocked)
        return Scene(self.render(dice), dice)


@dataclass(frozen=True)
class Throw:
    """One throw of an attack: the faces shown after it and which dice were kept.

    ``kept`` are indices into the previous throw's dice (which stay put); the
    other dice are rerolled and land elsewhere showing ``faces`` in order.
    """

    faces: tuple[Symbol, ...]
    kept: tuple[int, ...] = ()


@dataclass
class Frame:
    """A rendered camera frame, its time stamp and the dice settled in it (if still)."""

    image: np.ndarray
    t: float
    dice: list[PlacedDie] = field(default_factory=list)
    settled: bool = False


def render_throws(
    throws: Sequence[Throw],
    renderer: Renderer | None = None,
    fps: float = 30.0,
    moving_frames: int = 6,
    still_frames: int = 8,
    empty_frames: int = 3,
) -> list[Frame]:
    """Frames of a whole attack: an empty tray, then per throw dice tumbling, then still.

    The dice of throw k are the kept dice of throw k-1 (same place, same face)
    followed by the rerolled ones (new places, ``throw.faces`` in order).

    Raises:
        ValueError: a kept index names no die of the previous throw.
    """
    r = renderer or Renderer()
    frames: list[Frame] = []
    t = 0.0
    look = r.draw_look()
    for _ in range(empty_frames):
        frames.append(Frame(r.render([], look=look), t))
        t += 1 / fps
    previous: list[PlacedDie] = []
    for n, throw in enumerate(throws):
        bad = [k for k in throw.kept if not 0 <= k < len(previous)]
        if bad:
            raise ValueError(f"throw {n + 1}: kept die {bad[0]} is not in the previous throw")
        kept = [previous[k] for k in throw.kept]
        new = r.place(throw.faces, fixed=kept)
        for _ in range(moving_frames):
            tumbling = r.place(
                [ALL_SYMBOLS[int(i)] for i in r.rng.integers(0, 6, len(new))], fixed=kept
            )
            frames.append(Frame(r.render(kept, moving=tumbling, look=look), t))
            t += 1 / fps
        dice = kept + new
        for _ in range(still_frames):
            frames.append(Frame(r.render(dice, look=look), t, list(dice), settled=True))
            t += 1 / fps
        previous = dice
    return frames


def write_dataset(
    root: str | Path, images: int, seed: int = 0, hard: bool = True, per_image: int = 6
) -> Path:
    """Write a synthetic labeled dataset in the YOLO layout (faces in symbol order).

    Returns the dataset folder.
    """
    root = Path(root)
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    names = "\n".join(f"  {i}: {s.value}" for i, s in enumerate(ALL_SYMBOLS))
    (root / "data.yaml").write_text(
        "# Synthetic Tournament of Power dice (our own symbol drawings), toptable vision.synth\n"
        f"path: .\ntrain: images\nval: images\nnames:\n{names}\n",
        encoding="utf-8",
    )
    r = Renderer(Settings(hard=hard), seed=seed)
    index = {s: i for i, s in enumerate(ALL_SYMBOLS)}
    for n in range(images):
        # every face appears: cycle through them, then shuffle
        syms = [ALL_SYMBOLS[(n * per_image + k) % 6] for k in range(per_image)]
        scene = r.scene(syms)
        cv2.imwrite(str(root / "images" / f"synth_{n:04d}.png"), scene.image)
        lines = []
        for die in scene.dice:
            x, y, w, h = die.box()
            fw, fh = r.settings.width, r.settings.height
            lines.append(
                f"{index[die.symbol]} {(x + w / 2) / fw:.6f} {(y + h / 2) / fh:.6f}"
                f" {w / fw:.6f} {h / fh:.6f}"
            )
        (root / "labels" / f"synth_{n:04d}.txt").write_text(
            "\n".join(lines) + "\n", encoding="utf-8"
        )
    return root
