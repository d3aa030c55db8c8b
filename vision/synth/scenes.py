"""The synthetic renderer: Tournament of Power dice in a tray, seen from above, and
labeled datasets of its scenes.

A scene is a light table, a round dark tray and dice (:mod:`vision.synth.die`):
random position and rotation, touching pairs, shadows, uneven lighting, colour
cast, blur, noise and JPEG artefacts (``hard=True``), optionally cocked dice
(two faces seen foreshortened); :func:`stress_settings` draws a random table
for stress tests, :func:`write_dataset` writes scenes in the YOLO layout.
Whole attacks as camera frames are :mod:`vision.synth.throws`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from controller.core.errors import DataError
from controller.core.symbols import ALL_SYMBOLS, Symbol
from vision.images import write_image
from vision.own_folder import check_own_folder
from vision.synth.die import PlacedDie, outline, paste_die

TABLE = (196, 200, 203)
TRAY = (52, 56, 50)
RIM = (70, 74, 68)
SKIN = (120, 150, 205)


@dataclass(frozen=True)
class Settings:
    """How a scene looks; ``hard=True`` turns every nuisance up."""

    width: int = 1280
    height: int = 960
    die_frac: float = 0.1  # die side over frame width
    hard: bool = False
    touching: float = 0.3  # chance that a die is placed against the previous one
    # stress scenes: (body, marks) BGR colours a die may have (default: ivory, dark ink),
    # the tray's and the table's colours, and a wood-grain texture strength (0..1)
    palettes: tuple[tuple[tuple[int, int, int], tuple[int, int, int]], ...] = ()
    tray_colour: tuple[int, int, int] | None = None
    table_colour: tuple[int, int, int] | None = None
    texture: float = 0.0


@dataclass
class Scene:
    """A rendered frame and the dice in it."""

    image: NDArray[Any]
    dice: list[PlacedDie] = field(default_factory=list)


_BAND = 120  # rows per band in Renderer._finish


class Renderer:
    """Renders scenes deterministically from a seed."""

    def __init__(
        self, settings: Settings | None = None, seed: int = 0, faces: Sequence[Symbol] = ALL_SYMBOLS
    ) -> None:
        """``faces``: the symbols on the dice's faces, one per face (the owner's die may
        repeat one and lack another); random faces and the sides of cocked dice are
        drawn from them.

        Raises:
            ValueError: no faces.
        """
        if not faces:
            raise ValueError("a die needs at least one face")
        self.faces: tuple[Symbol, ...] = tuple(faces)
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

    def _tray(self) -> NDArray[Any]:
        s = self.settings
        tray = s.tray_colour or TRAY
        rim = tuple(int(v * 0.85 + 20) for v in tray) if s.tray_colour else RIM
        img = np.full((s.height, s.width, 3), s.table_colour or TABLE, np.uint8)
        c = (round(self.center[0]), round(self.center[1]))
        cv2.circle(img, c, round(self.radius), rim, -1, cv2.LINE_AA)
        cv2.circle(img, c, round(self.radius * 0.93), tray, -1, cv2.LINE_AA)
        if s.texture > 0:  # wood grain / felt: streaks along x, seeded
            grain = np.random.default_rng(7).standard_normal((s.height, 1)).astype(np.float32)
            streaks = cv2.resize(grain, (s.width, s.height), interpolation=cv2.INTER_LINEAR)
            lit = img * (1.0 + 0.12 * s.texture * streaks[..., None])
            img = np.clip(lit, 0, 255).astype(np.uint8)
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
                    second=self.faces[int(rng.integers(len(self.faces)))],
                )
                if self._fits(die, placed, limit):
                    placed.append(die)
                    out.append(die)
                    break
            else:
                raise ValueError(f"cannot place {len(symbols)} dice in the tray")
        palettes = self.settings.palettes
        if palettes:
            out = [
                replace(d, body=palettes[k][0], marks=palettes[k][1])
                for d, k in zip(out, rng.integers(0, len(palettes), len(out)), strict=True)
            ]
        return out

    def _fits(self, die: PlacedDie, others: Sequence[PlacedDie], limit: float) -> bool:
        pts = outline(die)
        d = np.hypot(pts[:, 0] - self.center[0], pts[:, 1] - self.center[1])
        if d.max() > limit - 2:
            return False
        poly = pts.astype(np.float32)
        for o in others:
            inter, _ = cv2.intersectConvexConvex(poly, outline(o).astype(np.float32))
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
    ) -> NDArray[Any]:
        """Render a frame: still ``dice``, motion-blurred ``moving`` dice, optionally a hand.

        ``look`` fixes the lighting/noise draw (so that frames of one throw match);
        by default it is drawn at random.
        """
        lk = look if look is not None else self.draw_look()
        img = self._background.copy()
        off = (round(lk["shadow_dy"]), round(lk["shadow_dx"]))
        for die in dice:
            paste_die(img, die, lk["shadow"], off)
        if moving:
            self._blend_moving(img, moving, lk["shadow"] * 0.5, off)
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

    def _blend_moving(
        self,
        img: NDArray[Any],
        moving: Sequence[PlacedDie],
        shadow: float,
        off: tuple[int, int],
    ) -> None:
        """Blend dice in flight into ``img``: drawn on a layer, box-blurred along x or y,
        blended in softly around each die.

        The layer is only the part of the frame the blend reaches (the dice's soft circles,
        plus the blurs' reach, so its pixels are those of a whole-frame layer): three
        full-size temporaries of a 1280x960 frame were a fifth of the demo's memory.
        """
        k = max(3, int(self.side * 0.35)) | 1
        radii = [int(die.side * 0.75) + k for die in moving]
        centres = [(round(die.center[0]), round(die.center[1])) for die in moving]
        reach = 16 + k  # the soft edge's 15x15 blur twice over, and the motion blur's k
        h, w = img.shape[:2]
        x0 = max(0, min(c[0] - r for c, r in zip(centres, radii, strict=True)) - reach)
        y0 = max(0, min(c[1] - r for c, r in zip(centres, radii, strict=True)) - reach)
        x1 = min(w, max(c[0] + r for c, r in zip(centres, radii, strict=True)) + reach + 1)
        y1 = min(h, max(c[1] + r for c, r in zip(centres, radii, strict=True)) + reach + 1)
        if x1 <= x0 or y1 <= y0:
            return
        window = img[y0:y1, x0:x1]
        layer = window.copy()
        for die in moving:
            moved = replace(die, center=(die.center[0] - x0, die.center[1] - y0))
            paste_die(layer, moved, shadow, off)
        blurred = cv2.blur(layer, (k, 1) if self.rng.random() < 0.5 else (1, k))
        del layer
        mask = np.zeros(window.shape[:2], np.uint8)
        for (cx, cy), r in zip(centres, radii, strict=True):
            cv2.circle(mask, (cx - x0, cy - y0), r, (255,), -1)
        soft = cv2.blur(mask, (15, 15))
        for top in range(0, len(window), _BAND):  # float temporaries a band at a time
            rows = slice(top, top + _BAND)
            alpha = soft[rows].astype(np.float32)[..., None] / 255.0
            window[rows] = (window[rows] * (1.0 - alpha) + blurred[rows] * alpha).astype(np.uint8)

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

    def _finish(self, img: NDArray[Any], lk: dict[str, float]) -> NDArray[Any]:
        # Light, colour cast and noise are applied band by band, in place: the same numbers
        # as on the whole float frame, with a fraction of its temporaries (a 1280x960 float
        # frame is 15 MB, and the demo renders while the daemon runs). A band's blur reads
        # ``margin`` rows above it, which the band before has overwritten: their originals
        # are carried over.
        s = self.settings
        sigma = lk["blur"]
        margin = math.ceil(4 * sigma) + 2 if sigma > 0 else 0  # beyond the kernel's reach
        step = max(_BAND, margin)  # the carried rows are always the band before's
        cos, sin = math.cos(lk["grad_angle"]), math.sin(lk["grad_angle"])
        cast = np.array([lk["cast_b"], 1.0, lk["cast_r"]], np.float32)
        dy, dx = (int(v) for v in self.rng.integers(0, 64, 2))
        scale = np.float32(lk["noise"] / 16.0)
        above: NDArray[Any] = img[:0].copy()  # the original rows just above this band
        for top in range(0, s.height, step):
            bottom = min(top + step, s.height)
            hi = min(s.height, bottom + margin)
            padded = np.concatenate([above, img[top:hi]]).astype(np.float32)
            above = img[max(top, bottom - margin) : bottom].copy()
            if sigma > 0:
                cv2.GaussianBlur(padded, (0, 0), sigma, dst=padded)
            start = len(padded) - (hi - top)
            band = padded[start : start + bottom - top]
            u = self._u * cos + self._v[top:bottom] * sin
            band *= (lk["gain"] * (1.0 + lk["grad"] * u))[..., None]
            band *= cast
            noise = self._noise[dy + top : dy + bottom, dx : dx + s.width].astype(np.float32)
            noise *= scale
            band += noise
            np.clip(band, 0, 255, out=band)
            img[top:bottom] = band
        out = img
        if lk["jpeg"] > 0:
            ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, int(lk["jpeg"])])
            if ok:
                decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
                if decoded is not None:
                    out = decoded
        return out

    def random_faces(self, count: int) -> list[Symbol]:
        """``count`` faces thrown at random on the renderer's die."""
        return [self.faces[int(i)] for i in self.rng.integers(0, len(self.faces), count)]

    def scene(
        self, symbols: Sequence[Symbol] | None = None, count: int = 6, cocked: int = 0
    ) -> Scene:
        """One settled scene with ``symbols`` (random faces of the die when None)."""
        if symbols is None:
            symbols = self.random_faces(count)
        dice = self.place(symbols, cocked=cocked)
        return Scene(self.render(dice), dice)


def stress_settings(seed: int) -> Settings:
    """A random table for stress tests: one to three dice colours (light or dark, with
    contrasting marks), a tray and a table of any colour, some texture; hard light."""
    rng = np.random.default_rng(seed)

    def colour(lo: int, hi: int) -> tuple[int, int, int]:
        hue = int(rng.integers(0, 180))
        sat = int(rng.integers(0, 220))
        val = int(rng.integers(lo, hi))
        hsv = np.array([[[hue, sat, val]]], np.uint8)
        b, g, r = (int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
        return (b, g, r)

    palettes = []
    for _ in range(int(rng.integers(1, 4))):
        if rng.random() < 0.5:
            palettes.append((colour(150, 256), colour(0, 80)))  # light die, dark marks
        else:
            palettes.append((colour(20, 110), colour(190, 256)))  # dark die, light marks
    tray = colour(20, 240)
    return Settings(
        hard=True,
        palettes=tuple(palettes),
        tray_colour=tray,
        table_colour=colour(40, 250),
        texture=float(rng.uniform(0, 1)),
        die_frac=float(rng.uniform(0.07, 0.11)),
    )


def write_dataset(
    root: str | Path,
    images: int,
    seed: int = 0,
    hard: bool = True,
    per_image: int = 6,
    settings: Settings | None = None,
) -> Path:
    """Write a synthetic labeled dataset in the YOLO layout (faces in symbol order), in a
    new or empty folder or one this function wrote before.

    Returns the dataset folder.

    Raises:
        DataError: ``root`` holds files this function did not write (a labelled set of the
            owner's own photos: its ``data.yaml`` and photos are never written over), or
            cannot be made or written.
        ImageReadError: a photo cannot be written (a full disk).
    """
    root = Path(root)
    check_own_folder(root, DATA_YAML_FIRST_LINE, "toptable dice synth")
    names = "\n".join(f"  {i}: {s.value}" for i, s in enumerate(ALL_SYMBOLS))
    try:
        (root / "images").mkdir(parents=True, exist_ok=True)
        (root / "labels").mkdir(parents=True, exist_ok=True)
        (root / "data.yaml").write_text(
            f"{DATA_YAML_FIRST_LINE}\npath: .\ntrain: images\nval: images\nnames:\n{names}\n",
            encoding="utf-8",
        )
    except OSError as exc:
        raise DataError.single(
            str(root), "", "", f"cannot be written: {exc.strerror or exc}"
        ) from None
    r = Renderer(settings or Settings(hard=hard), seed=seed)
    index = {s: i for i, s in enumerate(ALL_SYMBOLS)}
    for n in range(images):
        # every face appears: cycle through them, then shuffle
        syms = [ALL_SYMBOLS[(n * per_image + k) % 6] for k in range(per_image)]
        scene = r.scene(syms)
        write_image(root / "images" / f"synth_{n:04d}.png", scene.image)
        lines = []
        for die in scene.dice:
            x, y, w, h = die.box()
            fw, fh = r.settings.width, r.settings.height
            lines.append(
                f"{index[die.symbol]} {(x + w / 2) / fw:.6f} {(y + h / 2) / fh:.6f}"
                f" {w / fw:.6f} {h / fh:.6f}"
            )
        label = root / "labels" / f"synth_{n:04d}.txt"
        try:
            label.write_text("\n".join(lines) + "\n", encoding="utf-8")
        except OSError as exc:
            raise DataError.single(
                str(label), "", "", f"cannot be written: {exc.strerror}"
            ) from None
    return root


DATA_YAML_FIRST_LINE = (
    "# Synthetic Tournament of Power dice (our own symbol drawings), toptable vision.synth.scenes"
)
"""The first line of the ``data.yaml`` :func:`write_dataset` writes: how it knows its own sets."""
