"""Strangers: invented dice sets on invented tables, photographed by invented cameras.

Each seed draws a :class:`Stranger`: one to three dice sets (:mod:`vision.synth.designs`:
pips, numerals or symbols, any colours, marbled, translucent, engraved, a logo
face; several sets in one tray share their face names), a table
(:mod:`vision.synth.tables`), a photo size, a die size (15 to 200 pixels), a
camera from straight down to 40 degrees oblique, 1 to 50 dice a photo (touching
some), shadows from hard to soft, glare, warm or dim light and a phone's JPEG.
:class:`StrangerCamera` renders its photos: each die is a cube seen in
perspective (its top face and the sides the camera sees, shaded), casting a
shadow on the table; the label of a die is the box of its top face.
:func:`write_stranger` writes photos in the YOLO layout, as an owner's would be.
The strangers' benchmark (``toptable bench dice --strangers N``) calibrates on
one set of photos of each stranger and reads another.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.images import write_image
from vision.synth.designs import FONTS, SYMBOLS, DiceSet, MarkKind, face_texture
from vision.synth.tables import TableKind, random_colour, table_texture

SIZES = ((640, 480), (800, 600), (1024, 768), (1280, 960), (1280, 720), (720, 1280), (960, 1280))
TINY_SIZE = (320, 240)


@dataclass(frozen=True)
class Stranger:
    """A stranger's dice, table, camera and light (all drawn from ``seed``)."""

    seed: int
    sets: tuple[DiceSet, ...]
    table: TableKind
    width: int
    height: int
    die_px: float  # a die's side at the photo's centre, in pixels
    tilt: float  # the camera's angle from straight down, degrees
    focal: float  # the lens, in pixels
    dice: tuple[int, int]  # fewest and most dice in a photo
    touching: float  # chance that a die is placed against another
    shadow: float  # shadow strength (0..1)
    shadow_blur: float  # shadow softness, in die sides (small: a hard shadow)
    glare: float  # chance that a die shows a highlight
    gain: float  # overall light (under 1: dim)
    warmth: float  # the lamp's colour (over 1: warm)
    jpeg: int  # the phone's JPEG quality
    # photos taken by hand: each photo's dice between 1 / spread and spread times die_px
    # (the phone nearer or farther each time); 1: a camera fixed over the table
    distance_spread: float = 1.0

    @property
    def names(self) -> tuple[str, ...]:
        """The face names, shared by the stranger's sets."""
        return self.sets[0].names

    def describe(self) -> str:
        """One short line: what makes this stranger."""
        looks = []
        for s in self.sets:
            look = s.kind.value
            if s.engraved:
                look = "engraved " + look
            if s.body2 is not None:
                look = "marbled, " + look
            if s.opacity < 1:
                look = "translucent, " + look
            if s.logo:
                look += " + logo"
            looks.append(look)
        held = ""
        if self.distance_spread != 1.0:
            held = f" (by hand: x{1 / self.distance_spread:.2f}-{self.distance_spread:.2f})"
        return (
            f"{' / '.join(looks)} on {self.table.value}, {self.width}x{self.height}, "
            f"die {self.die_px:.0f} px{held}, tilt {self.tilt:.0f}°, "
            f"{self.dice[0]}-{self.dice[1]} dice"
        )


def _dice_set(
    rng: np.random.Generator, kind: MarkKind, symbols: tuple[str, ...], logo_text: str
) -> DiceSet:
    light_body = rng.random() < 0.55
    if light_body:
        body, marks = random_colour(rng, 150, 256), random_colour(rng, 0, 90)
    else:
        body, marks = random_colour(rng, 25, 130), random_colour(rng, 180, 256, 160)
    body2 = None
    if rng.random() < 0.3:  # marbled: a second colour of about the same lightness
        lo, hi = (120, 256) if light_body else (20, 140)
        body2 = random_colour(rng, lo, hi)
    return DiceSet(
        kind=kind,
        body=body,
        marks=marks,
        body2=body2,
        opacity=float(rng.uniform(0.6, 0.85)) if rng.random() < 0.2 else 1.0,
        engraved=bool(rng.random() < 0.3),
        logo=bool(rng.random() < 0.25),
        logo_text=logo_text,
        mark_size=float(rng.uniform(0.8, 1.2)),
        font=FONTS[int(rng.integers(len(FONTS)))],
        symbols=symbols,
    )


def stranger(seed: int, tiny: bool = False) -> Stranger:
    """The stranger of ``seed``; ``tiny``: small photos of a few large dice (for tests)."""
    rng = np.random.default_rng([seed, 28])
    kind = (MarkKind.PIPS, MarkKind.NUMERALS, MarkKind.SYMBOLS)[
        int(rng.choice(3, p=[0.5, 0.25, 0.25]))
    ]
    symbols = tuple(str(s) for s in rng.choice(SYMBOLS, 6, replace=False))
    logo_text = "".join(chr(int(c)) for c in rng.integers(65, 91, 2))
    n_sets = int(rng.choice([1, 2, 3], p=[0.6, 0.3, 0.1]))
    sets = []
    for n in range(n_sets):
        # pips and numerals share their names (1..6): a mixed tray may hold both
        k = kind
        if n > 0 and kind is not MarkKind.SYMBOLS and rng.random() < 0.4:
            k = MarkKind.NUMERALS if kind is MarkKind.PIPS else MarkKind.PIPS
        sets.append(_dice_set(rng, k, symbols, logo_text))
    width, height = TINY_SIZE if tiny else SIZES[int(rng.integers(len(SIZES)))]
    short = min(width, height)
    if tiny:
        die_px, most = float(rng.uniform(30, 45)), 3
    else:
        die_px = float(math.exp(rng.uniform(math.log(15), math.log(min(200, 0.2 * short)))))
        room = int(0.25 * width * height / (die_px * 1.6) ** 2)
        most = int(min(50, room, rng.choice([3, 6, 10, 20, 35, 50])))
    most = max(1, most)
    table = TableKind(str(rng.choice([t.value for t in TableKind])))
    return Stranger(
        seed=seed,
        sets=tuple(sets),
        table=table,
        width=width,
        height=height,
        die_px=die_px,
        tilt=0.0 if rng.random() < 0.3 else float(rng.uniform(0, 40)),
        focal=float(rng.uniform(0.8, 1.5)) * max(width, height),
        dice=(2, 3) if tiny else (max(1, most // 3), most),
        touching=float(rng.uniform(0.0, 0.5)),
        shadow=float(rng.uniform(0.15, 0.6)),
        shadow_blur=float(rng.choice([0.02, 0.05, 0.15, 0.3])),
        glare=float(rng.choice([0.0, 0.1, 0.3])),
        gain=float(rng.uniform(0.45, 1.1)),
        warmth=float(rng.uniform(0.9, 1.3)),
        jpeg=int(rng.integers(60, 93)),
    )


PHONE_SIZE = (4000, 3000)  # a 12-megapixel phone photo
PHONE_SEED = 2808  # marbled pips on felt, the camera 24 degrees off straight down


def phone_stranger(seed: int = PHONE_SEED) -> Stranger:
    """The stranger of ``seed`` photographed by a 12-megapixel phone: 4000x3000 photos of
    16 to 26 dice 170 pixels wide (a 16 mm die with the tray filling the frame), the lens
    of a phone's main camera (its focal length 1.1 times the photo's width)."""
    width, height = PHONE_SIZE
    return replace(stranger(seed), width=width, height=height, die_px=170.0,
                   focal=1.1 * width, dice=(16, 26))  # fmt: skip


@dataclass(frozen=True)
class Die3D:
    """A die on the table: its set and face up, its centre on the table, its rotation."""

    set_index: int
    face: int
    x: float
    y: float
    angle: float  # radians
    seed: int  # its marbling and its side faces


class StrangerCamera:
    """Renders a stranger's photos (deterministic from the seed)."""

    def __init__(self, who: Stranger, seed: int = 0) -> None:
        self.who = who
        self.rng = np.random.default_rng([who.seed, seed, 7])
        margin = 64
        table_rng = np.random.default_rng([who.seed, 99])  # the same table in every photo
        self._table, self._floor = table_texture(
            who.table, who.width + 2 * margin, who.height + 2 * margin, table_rng
        )
        self._margin = margin
        # sensor noise: one bank per camera, cropped at random offsets (fast and seeded)
        bank = np.random.default_rng([who.seed, seed, 8])
        self._noise = bank.standard_normal((who.height + 64, who.width + 64, 3), dtype=np.float32)

    def _pose(self) -> tuple[NDArray[Any], NDArray[Any], float, float]:
        """This photo's camera: rotation (world -> camera), position, focal, die side."""
        who, rng = self.who, self.rng
        tilt = math.radians(float(np.clip(who.tilt + rng.uniform(-3, 3), 0, 45)))
        px = who.die_px * float(rng.uniform(0.92, 1.08))
        if who.distance_spread != 1.0:
            px *= who.distance_spread ** float(rng.uniform(-1.0, 1.0))
        f = who.focal
        distance = f / px  # a die has side 1
        c = np.array([0.0, -distance * math.sin(tilt), distance * math.cos(tilt)])
        forward = np.array([0.0, math.sin(tilt), -math.cos(tilt)])
        right = np.array([1.0, 0.0, 0.0])
        down = np.cross(forward, right)
        return np.stack([right, down, forward]), c, f, px

    def photo(self, count: int | None = None, faces: list[tuple[int, int]] | None = None
              ) -> tuple[NDArray[Any], list[tuple[str, tuple[float, float, float, float]]]]:  # fmt: skip
        """One photo and its labels (face name, top-face box x, y, w, h in pixels).

        ``faces``: the (set, face) of each die (random when None; ``count`` dice, or a
        random number in the stranger's range).
        """
        who, rng = self.who, self.rng
        w, h = who.width, who.height
        rot, cam, f, px = self._pose()

        def project(p: NDArray[Any]) -> NDArray[Any]:
            q = (p - cam) @ rot.T
            out: NDArray[Any] = np.stack(
                [f * q[..., 0] / q[..., 2] + w / 2, f * q[..., 1] / q[..., 2] + h / 2], -1
            )
            return out

        def on_table(u: float, v: float) -> tuple[float, float]:
            ray = rot.T @ np.array([(u - w / 2) / f, (v - h / 2) / f, 1.0])
            t = -cam[2] / ray[2]
            return float(cam[0] + t * ray[0]), float(cam[1] + t * ray[1])

        if faces is None:
            n = count if count is not None else int(rng.integers(who.dice[0], who.dice[1] + 1))
            faces = [(int(rng.integers(len(who.sets))), int(rng.integers(6))) for _ in range(n)]
        ox, oy = (int(v) for v in rng.integers(0, 2 * self._margin + 1, 2))
        image = self._table[oy : oy + h, ox : ox + w].astype(np.float32)
        floor = self._floor[oy : oy + h, ox : ox + w]
        dice = self._place(faces, project, on_table, floor, px)
        light = np.array([math.cos(a := float(rng.uniform(0, 2 * math.pi))), math.sin(a)])
        light *= float(rng.uniform(0.3, 1.2))
        self._shadows(image, dice, project, light)
        order = sorted(dice, key=lambda d: -float(np.linalg.norm(np.array([d.x, d.y, 0.5]) - cam)))
        labels = []
        for die in order:
            box = self._paste(image, die, project, cam, light, px)
            labels.append((who.sets[die.set_index].names[die.face], box))
        return self._finish(image), labels

    def _corners(self, die: Die3D, z: float) -> NDArray[Any]:
        c, s = math.cos(die.angle), math.sin(die.angle)
        local = np.array([(-0.5, 0.5), (0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)])  # far edge first
        xy = local @ np.array([[c, s], [-s, c]]) + np.array([die.x, die.y])
        return np.column_stack([xy, np.full(4, z)])

    def _place(self, faces: list[tuple[int, int]], project: Any, on_table: Any,
               floor: NDArray[Any], px: float) -> list[Die3D]:  # fmt: skip
        who, rng = self.who, self.rng
        w, h = who.width, who.height
        edge = 0.8 * px
        placed: list[Die3D] = []
        for k, (set_index, face) in enumerate(faces):
            for attempt in range(300):
                angle = float(rng.uniform(0, 2 * math.pi))
                if placed and attempt < 150 and rng.random() < who.touching:
                    ref = placed[int(rng.integers(len(placed)))]
                    side = ref.angle + math.pi / 2 * int(rng.integers(4))
                    gap = 1.0 + float(rng.uniform(0.0, 0.04))
                    shift = float(rng.uniform(-0.3, 0.3))
                    x = ref.x + gap * math.cos(side) - shift * math.sin(side)
                    y = ref.y + gap * math.sin(side) + shift * math.cos(side)
                    angle = ref.angle + float(rng.uniform(-0.05, 0.05))
                else:
                    x, y = on_table(
                        float(rng.uniform(edge, w - edge)), float(rng.uniform(edge, h - edge))
                    )
                die = Die3D(set_index, face, x, y, angle, int(rng.integers(1 << 30)))
                pts = project(np.vstack([self._corners(die, 0.0), self._corners(die, 1.0)]))
                if (
                    pts[:, 0].min() < 4
                    or pts[:, 1].min() < 4
                    or pts[:, 0].max() > w - 5
                    or pts[:, 1].max() > h - 5
                ):
                    continue
                cu, cv = project(np.array([x, y, 1.0]))
                if floor[int(cv), int(cu)] == 0:
                    continue
                mine = self._corners(die, 0.0)[:, :2].astype(np.float32)
                if any(
                    cv2.intersectConvexConvex(
                        mine, self._corners(o, 0.0)[:, :2].astype(np.float32)
                    )[0]
                    > 1e-3
                    or math.hypot(o.x - x, o.y - y) < 0.98
                    for o in placed
                ):
                    continue
                placed.append(die)
                break
            else:
                if k == 0:
                    raise ValueError(f"stranger {who.seed}: cannot place a die")
                break  # the table is full: fewer dice in this photo
        return placed

    def _shadows(self, image: NDArray[Any], dice: list[Die3D], project: Any,
                 light: NDArray[Any]) -> None:  # fmt: skip
        who = self.who
        if not dice:
            return
        mask: NDArray[Any] = np.zeros(image.shape[:2], np.float32)
        for die in dice:
            foot = self._corners(die, 0.0)
            cast = foot.copy()
            cast[:, :2] += light
            hull = cv2.convexHull(project(np.vstack([foot, cast])).astype(np.float32))
            cv2.fillConvexPoly(mask, np.round(hull).astype(np.int32), (1.0,), cv2.LINE_AA)
        sigma = max(0.6, who.shadow_blur * who.die_px)
        if sigma > 6:  # a soft shadow: blurred at a quarter of the size (the same look, faster)
            h, w = mask.shape
            small = cv2.resize(mask, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
            small = cv2.GaussianBlur(small, (0, 0), sigma / 4)
            mask = cv2.resize(small, (w, h), interpolation=cv2.INTER_LINEAR)
        else:
            mask = cv2.GaussianBlur(mask, (0, 0), sigma)
        image *= (1.0 - who.shadow * mask)[..., None]

    def _paste(self, image: NDArray[Any], die: Die3D, project: Any, cam: NDArray[Any],
               light: NDArray[Any], px: float) -> tuple[float, float, float, float]:  # fmt: skip
        """Draw one die (visible faces, far ones first); return its top face's box."""
        who, rng = self.who, self.rng
        dice = who.sets[die.set_index]
        tex_px = int(np.clip(1.3 * px, 24, 160))
        top, bottom = self._corners(die, 1.0), self._corners(die, 0.0)
        faces: list[tuple[NDArray[Any], int, float]] = []
        side_rng = np.random.default_rng(die.seed)
        others = [f for f in range(6) if f not in (die.face, 5 - die.face)]
        for k in range(4):  # sides: corners k, k+1 of the top and the bottom
            a, b = k, (k + 1) % 4
            quad = np.array([top[a], top[b], bottom[b], bottom[a]])
            centre = quad.mean(0)
            normal = np.append(centre[:2] - np.array([die.x, die.y]), 0.0)
            if float(normal @ (cam - centre)) <= 0:
                continue  # turned away from the camera
            lit = 0.55 + 0.25 * float(np.clip(-normal[:2] @ light, -1, 1))
            faces.append((quad, others[int(side_rng.integers(len(others)))], lit))
        faces.append((top, die.face, 1.0))
        for quad, face, lit in faces:
            tex = face_texture(dice, face, tex_px, die.seed + face)
            self._warp_into(image, tex, project(quad), lit)
        pts = project(top)
        if who.glare and rng.random() < who.glare:
            centre = pts.mean(0) + (pts[0] - pts.mean(0)) * float(rng.uniform(0, 0.6))
            r = max(1.0, 0.12 * px)
            half = int(3 * r) + 2
            cx, cy = round(centre[0]), round(centre[1])
            yy, xx = np.mgrid[-half : half + 1, -half : half + 1].astype(np.float32)
            spot = np.exp(-(xx * xx + yy * yy) / (2 * r * r)) * float(rng.uniform(80, 180))
            y0, x0 = max(0, cy - half), max(0, cx - half)
            y1, x1 = min(image.shape[0], cy + half + 1), min(image.shape[1], cx + half + 1)
            image[y0:y1, x0:x1] += spot[
                y0 - cy + half : y1 - cy + half, x0 - cx + half : x1 - cx + half, None
            ]
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        return (float(x0), float(y0), float(x1 - x0), float(y1 - y0))

    @staticmethod
    def _warp_into(image: NDArray[Any], tex: NDArray[Any], quad: NDArray[Any], lit: float) -> None:
        h, w = image.shape[:2]
        x0, y0 = np.floor(quad.min(0)).astype(int) - 1
        x1, y1 = np.ceil(quad.max(0)).astype(int) + 2
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(w, x1), min(h, y1)
        if x1 - x0 < 2 or y1 - y0 < 2:
            return
        t = tex.shape[0]
        src = np.array([(0, 0), (t, 0), (t, t), (0, t)], np.float32)
        m = cv2.getPerspectiveTransform(src, (quad - np.array([x0, y0])).astype(np.float32))
        warped = cv2.warpPerspective(tex, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0))  # fmt: skip
        alpha = warped[..., 3:].astype(np.float32) / 255.0
        region = image[y0:y1, x0:x1]
        region *= 1.0 - alpha
        region += warped[..., :3].astype(np.float32) * (alpha * lit)

    def _finish(self, image: NDArray[Any]) -> NDArray[Any]:
        """Light, focus, sensor noise and the phone's JPEG."""
        who, rng = self.who, self.rng
        h, w = image.shape[:2]
        gain = who.gain * float(rng.uniform(0.85, 1.15))
        cast = np.array([1.0 / who.warmth, 1.0, who.warmth], np.float32)
        a = float(rng.uniform(0, 2 * math.pi))
        u = (np.arange(w, dtype=np.float32)[None, :] / w - 0.5) * math.cos(a) + (
            np.arange(h, dtype=np.float32)[:, None] / h - 0.5
        ) * math.sin(a)
        image *= (gain * (1.0 + float(rng.uniform(0, 0.35)) * u))[..., None] * cast
        sigma = float(rng.uniform(0.3, 1.2))
        focused: NDArray[Any] = cv2.GaussianBlur(image, (0, 0), sigma)
        dy, dx = (int(v) for v in rng.integers(0, 64, 2))
        focused += self._noise[dy : dy + h, dx : dx + w] * float(rng.uniform(1.5, 6.0))
        out = np.clip(focused, 0, 255).astype(np.uint8)
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, who.jpeg])
        decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
        return decoded if decoded is not None else out


def write_stranger(root: str | Path, who: Stranger, photos: int, seed: int,
                   every_face: bool = False) -> Path:  # fmt: skip
    """Write ``photos`` photos of ``who`` (camera ``seed``) in the YOLO layout (JPEG, as a
    phone saves them); ``every_face``: the faces cycle so that each is shown (as an owner
    is asked to for calibration). Returns the dataset folder."""
    root = Path(root)
    (root / "images").mkdir(parents=True, exist_ok=True)
    (root / "labels").mkdir(parents=True, exist_ok=True)
    names = "\n".join(f'  {i}: "{n}"' for i, n in enumerate(who.names))
    (root / "data.yaml").write_text(
        f"# stranger {who.seed}: {who.describe()} (toptable vision.synth.strangers)\n"
        f"path: .\nnames:\n{names}\n",
        encoding="utf-8",
    )
    camera = StrangerCamera(who, seed)
    index = {n: i for i, n in enumerate(who.names)}
    shown = 0
    for n in range(photos):
        count = int(camera.rng.integers(who.dice[0], who.dice[1] + 1))
        faces = None
        if every_face:
            faces = [
                (int(camera.rng.integers(len(who.sets))), (shown + k) % 6) for k in range(count)
            ]
            shown += count
        image, labels = camera.photo(count, faces)
        name = f"s{who.seed}_{n:03d}"
        write_image(root / "images" / f"{name}.jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 97])
        lines = [
            f"{index[face]} {(x + bw / 2) / who.width:.6f} {(y + bh / 2) / who.height:.6f} "
            f"{bw / who.width:.6f} {bh / who.height:.6f}"
            for face, (x, y, bw, bh) in labels
        ]
        (root / "labels" / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root
