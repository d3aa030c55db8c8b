"""Synthetic dice of random designs, as the face-embedding network's training views.

Build-time only (``tools/embedding/train.py`` uses it; the product does not).
Every design is invented here at random: a body colour (sometimes marbled), a
mark colour, and six faces of pips (round or square, any size and spacing),
numerals (any of OpenCV's Hershey fonts) or random symbols (strokes, polygons,
rings), sometimes with one face a big logo. A die is a cube turned to any yaw
and tilted up to 38 degrees so that side faces show, shaded by a light,
casting a blurred shadow, among 0-2 neighbours of the same design, on a
textured background (wood grain, felt, plain, a gradient). The view is then
re-lit, colour-cast, gamma-bent, downscaled and upscaled, blurred, noised and
sometimes JPEG-damaged, and turned into the reader's network input
(``vision.reading.embedding.network_input``). Nothing here is drawn from a photo set.

A face drawing is BGR (opaque, as :func:`random_design` makes them) or BGRA, its alpha
the body's opacity (as :func:`vision.synth.designs.face_texture` draws a stranger's
dice: a translucent body lets the table through, its marks do not); a design may also
draw each die anew (marbling differs from die to die), and its neighbours may be of
another set (``tools/embedding/stranger_dice.py``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.reading.embedding import DIE_SPAN, VIEW_PX, network_input

TEXTURE_PX = 96  # a face's drawing
CONTEXT_PX = 64  # the scene drawn around a die before the view is cut from its middle
DIE_SPAN_PX = VIEW_PX * DIE_SPAN  # a die's extent along the image axes, in the view
PIPS: dict[int, list[tuple[int, int]]] = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}
Die = Callable[[int], NDArray[Any]]
"""One die: the drawing (BGR float32, or BGRA uint8) of its face 0-5."""
DieFaces = Callable[[np.random.Generator], Die]
"""Draws one die of a design."""
Design = tuple[DieFaces, DieFaces]
"""A design's own die (its faces are told apart) and the neighbours drawn around it."""
_CORNERS = np.array([[x, y, z] for z in (0, 1) for y in (-0.5, 0.5) for x in (-0.5, 0.5)])
_SIDES = {  # corner indices and outward normal of the cube's top and four sides
    "top": ([4, 5, 7, 6], (0, 0, 1)),
    "south": ([0, 1, 5, 4], (0, -1, 0)),
    "east": ([1, 3, 7, 5], (1, 0, 0)),
    "north": ([3, 2, 6, 7], (0, 1, 0)),
    "west": ([2, 0, 4, 6], (-1, 0, 0)),
}


def random_colour(rng: np.random.Generator) -> NDArray[Any]:
    """A BGR colour, grey-ish or saturated, of any brightness."""
    saturation = rng.uniform(0, 40) if rng.random() < 0.5 else rng.uniform(80, 255)
    hsv = np.array([[[rng.uniform(0, 180), saturation, rng.uniform(30, 255)]]], np.uint8)
    out: NDArray[Any] = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0].astype(np.float32)
    return out


def contrasting_colour(rng: np.random.Generator, body: NDArray[Any]) -> NDArray[Any]:
    """A colour that differs from ``body`` by a random, sometimes small, amount."""
    for _ in range(20):
        c = random_colour(rng)
        if np.abs(c - body).sum() > rng.uniform(90, 250):
            return c
    out: NDArray[Any] = 255 - body
    return out


def random_symbol(rng: np.random.Generator, px: int = TEXTURE_PX) -> NDArray[Any]:
    """A mask (uint8) of one to three strokes, polygons, rings or arcs."""
    mask = np.zeros((px, px), np.uint8)
    for _ in range(rng.integers(1, 4)):
        kind = rng.integers(0, 4)
        points = (rng.uniform(0.2, 0.8, (rng.integers(3, 7), 2)) * px).astype(np.int32)
        centre = (int(rng.uniform(0.3, 0.7) * px), int(rng.uniform(0.3, 0.7) * px))
        if kind == 0:
            cv2.fillPoly(mask, [points], (255,), cv2.LINE_AA)
        elif kind == 1:
            closed = bool(rng.integers(0, 2))
            cv2.polylines(mask, [points], closed, (255,), int(rng.integers(2, 8)), cv2.LINE_AA)
        elif kind == 2:
            radius = int(rng.uniform(0.08, 0.3) * px)
            cv2.circle(mask, centre, radius, (255,), int(rng.choice([-1, 3, 6])), cv2.LINE_AA)
        else:
            axes = (int(rng.uniform(0.05, 0.3) * px), int(rng.uniform(0.05, 0.3) * px))
            sweep = rng.uniform(180, 360)
            thickness = int(rng.choice([-1, 4]))
            cv2.ellipse(mask, centre, axes, rng.uniform(0, 180), 0, sweep, (255,), thickness)
    return mask


def _marks(kind: str, face: int, rng: np.random.Generator, style: dict[str, Any]) -> NDArray[Any]:
    px = TEXTURE_PX
    mask = np.zeros((px, px), np.uint8)
    if kind == "pips":
        r, spacing = style["radius"], style["spacing"]
        for dx, dy in PIPS[face]:
            cx, cy = int(px / 2 + dx * spacing), int(px / 2 + dy * spacing)
            if style["square"]:
                cv2.rectangle(
                    mask, (int(cx - r), int(cy - r)), (int(cx + r), int(cy + r)), (255,), -1
                )
            else:
                cv2.circle(mask, (cx, cy), int(r), (255,), -1, cv2.LINE_AA)
    elif kind == "numerals":
        text, scale, thick = str(face), px / 40, style["thickness"]
        (w, h), _ = cv2.getTextSize(text, style["font"], scale, thick)
        origin = ((px - w) // 2, (px + h) // 2)
        cv2.putText(mask, text, origin, style["font"], scale, (255,), thick, cv2.LINE_AA)
        if face == 6:  # the underline that tells a 6 from a 9
            cv2.line(mask, (px // 3, int(px * 0.85)), (2 * px // 3, int(px * 0.85)), (255,), 3)
    else:
        mask = style["symbols"][face - 1]
    return mask


def random_design(rng: np.random.Generator) -> list[NDArray[Any]]:
    """Six face drawings (TEXTURE_PX square, BGR float32) of one invented die."""
    px = TEXTURE_PX
    body, ink = random_colour(rng), np.zeros(3, np.float32)
    ink = contrasting_colour(rng, body)
    kind = str(rng.choice(["pips", "pips", "pips", "numerals", "symbols"]))
    style: dict[str, Any] = {
        "radius": rng.uniform(0.06, 0.12) * px,
        "spacing": rng.uniform(0.22, 0.3) * px,
        "square": rng.random() < 0.15,
        "font": int(rng.choice([0, 1, 2, 3, 4, 6, 7])),
        "thickness": int(rng.integers(3, 9)),
        "symbols": [random_symbol(rng) for _ in range(6)],
    }
    logo = random_symbol(rng) if rng.random() < 0.3 and kind != "numerals" else None
    base: NDArray[Any] = np.broadcast_to(body, (px, px, 3)).astype(np.float32)
    if rng.random() < 0.2:  # marbled: two colours in a smooth random pattern
        swirl = cv2.GaussianBlur(rng.normal(0, 1, (px, px)).astype(np.float32), (0, 0), 6)
        share = np.clip(0.5 + 0.5 * swirl / (swirl.std() + 1e-6), 0, 1)[..., None]
        base = body * share + random_colour(rng) * (1 - share)
    faces = []
    for face in range(1, 7):
        mask = logo if logo is not None and face == 1 else _marks(kind, face, rng, style)
        a = (mask.astype(np.float32) / 255)[..., None]
        faces.append(base * (1 - a) + ink * a)
    return faces


def random_background(rng: np.random.Generator, px: int = CONTEXT_PX) -> NDArray[Any]:
    """A px square BGR float32 surface: wood grain, felt, a plain colour or a gradient."""
    kind = rng.integers(0, 4)
    c1, c2 = random_colour(rng), random_colour(rng)
    yy, xx = np.mgrid[0:px, 0:px].astype(np.float32)
    if kind == 0:
        t, freq = rng.uniform(0, np.pi), rng.uniform(0.1, 0.6)
        warp = cv2.GaussianBlur(rng.normal(0, 3, (px, px)).astype(np.float32), (0, 0), 4)
        v = 0.5 + 0.5 * np.sin(freq * (np.cos(t) * xx + np.sin(t) * yy) + warp)
    elif kind == 1:
        noise = rng.normal(0, 1, (px, px)).astype(np.float32)
        v = np.clip(0.5 + 0.3 * cv2.GaussianBlur(noise, (0, 0), rng.uniform(0.5, 3)), 0, 1)
    elif kind == 2:
        grain = rng.uniform(0, 0.2) * rng.normal(0, 1, (px, px)).astype(np.float32)
        out: NDArray[Any] = c1 + 40 * grain[..., None]
        return out
    else:
        v = xx * rng.normal() + yy * rng.normal()
        v = (v - v.min()) / (np.ptp(v) + 1e-6)
    result: NDArray[Any] = c1 * v[..., None] + c2 * (1 - v[..., None])
    return result


def _colour_and_opacity(drawing: NDArray[Any]) -> tuple[NDArray[Any], NDArray[Any]]:
    """A face drawing's colour (float32) and opacity (0..1): opaque for BGR, the alpha of
    BGRA."""
    if drawing.shape[2] == 4:
        return drawing[..., :3].astype(np.float32), drawing[..., 3].astype(np.float32) / 255
    return drawing, np.ones(drawing.shape[:2], np.float32)


def _rotation(yaw: float, tilt: float, tilt_dir: float) -> NDArray[Any]:
    def about_z(a: float) -> NDArray[Any]:
        return np.array([[np.cos(a), -np.sin(a), 0], [np.sin(a), np.cos(a), 0], [0, 0, 1]])

    about_x = np.array(
        [[1, 0, 0], [0, np.cos(tilt), -np.sin(tilt)], [0, np.sin(tilt), np.cos(tilt)]]
    )
    out: NDArray[Any] = about_z(tilt_dir) @ about_x @ about_z(-tilt_dir) @ about_z(yaw)
    return out


def paint_die(
    canvas: NDArray[Any],
    face: Die,
    top: int,
    centre: NDArray[Any],
    span: float,
    light: NDArray[Any],
    rng: np.random.Generator,
    glare: float = 0.0,
) -> None:
    """Paint a die showing face ``top`` (0-5) on ``canvas`` (in place): its shadow toward
    ``light``'s opposite, then its visible sides (other faces) and its top, shaded; a
    translucent face (BGRA) shows what lies under it. With chance ``glare`` its top face
    shows a highlight (:func:`add_glare`)."""
    tilt = rng.uniform(0, np.radians(38)) if rng.random() < 0.8 else 0.0
    rot = _rotation(rng.uniform(0, 2 * np.pi), tilt, rng.uniform(0, 2 * np.pi))
    xy = (_CORNERS @ rot.T)[:, :2]
    xy = xy - (xy.max(0) + xy.min(0)) / 2
    xy = xy / (xy.max(0) - xy.min(0)).max() * span + centre
    h, w = canvas.shape[:2]
    shadow: NDArray[Any] = np.zeros((h, w), np.float32)
    hull = cv2.convexHull((xy - light[:2] * span * 0.15).astype(np.float32)).astype(np.int32)
    cv2.fillConvexPoly(shadow, hull, (1.0,), cv2.LINE_AA)
    shadow = cv2.GaussianBlur(shadow, (0, 0), span * 0.08 + 0.5)
    canvas *= (1 - rng.uniform(0.2, 0.6) * shadow)[..., None]
    others = [f for f in range(6) if f != top]
    rng.shuffle(others)
    square = np.array(
        [[0, 0], [TEXTURE_PX, 0], [TEXTURE_PX, TEXTURE_PX], [0, TEXTURE_PX]], np.float32
    )
    order = sorted(_SIDES, key=lambda k: float((rot @ _SIDES[k][1])[2]))
    for j, side in enumerate(order):
        corners, normal = _SIDES[side]
        facing = rot @ np.array(normal, float)
        if facing[2] <= 0.02:
            continue
        drawing = face(top) if side == "top" else face(others[j % 5])
        m = cv2.getPerspectiveTransform(square, xy[corners].astype(np.float32))
        colour, opacity = _colour_and_opacity(drawing)
        painted = cv2.warpPerspective(colour, m, (w, h), flags=cv2.INTER_AREA)
        cover = cv2.warpPerspective(opacity, m, (w, h))[..., None]
        shade = 0.65 + 0.45 * max(0.0, float(facing @ light))
        canvas[:] = canvas * (1 - cover) + painted * shade * cover
        if side == "top" and glare and rng.random() < glare:
            add_glare(canvas, xy[corners], cover[..., 0], span, rng)


def add_glare(
    canvas: NDArray[Any],
    quad: NDArray[Any],
    cover: NDArray[Any],
    span: float,
    rng: np.random.Generator,
) -> None:
    """A highlight on a die's face (``quad``, its corners; ``cover``, where the face is),
    added in place: the light reflected by a glossy face, anywhere on it, as a soft spot
    (a diffuse lamp) or a sharp-edged ellipse (a window, a bulb), 0.03-0.15 of the die
    wide, 60-200 levels over what is under it, white or tinted a little."""
    u, v = rng.uniform(0.1, 0.9, 2)
    top = quad[0] + u * (quad[1] - quad[0])
    bottom = quad[3] + u * (quad[2] - quad[3])
    cx, cy = top + v * (bottom - top)
    h, w = canvas.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    if rng.random() < 0.5:
        sigma = span * rng.uniform(0.04, 0.15)
        spot = np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / (2 * sigma * sigma))
    else:
        a = span * rng.uniform(0.03, 0.12)
        b = a * rng.uniform(0.3, 1.0)
        t = rng.uniform(0, np.pi)
        along = (xx - cx) * np.cos(t) + (yy - cy) * np.sin(t)
        across = -(xx - cx) * np.sin(t) + (yy - cy) * np.cos(t)
        spot = ((along / a) ** 2 + (across / b) ** 2 <= 1.0).astype(np.float32)
        spot = cv2.GaussianBlur(spot, (0, 0), rng.uniform(0.4, 1.5))
    tint = 1.0 - rng.uniform(0.0, 0.15, 3)
    canvas += (spot * cover)[..., None] * rng.uniform(60, 200) * tint


def scene(design: Design, top: int, rng: np.random.Generator, glare: float = 0.0) -> NDArray[Any]:
    """A CONTEXT_PX square BGR float32 scene: the design's die showing ``top`` in the
    middle (up to 2.5 px off), 0-2 of its neighbours around it; each die's top shows a
    highlight with chance ``glare``."""
    die, neighbour = design
    canvas = random_background(rng)
    light = np.append(rng.normal(0, 1, 2), 1.5)
    light /= np.linalg.norm(light)
    span = DIE_SPAN_PX * rng.uniform(0.9, 1.1)
    for _ in range(rng.integers(0, 3)):
        a, d = rng.uniform(0, 2 * np.pi), span * rng.uniform(1.0, 1.5)
        where = np.array([CONTEXT_PX / 2 + d * np.cos(a), CONTEXT_PX / 2 + d * np.sin(a)])
        other = neighbour(rng)  # drawn before its face: a seed's views stay as they were
        paint_die(canvas, other, int(rng.integers(0, 6)), where, span, light, rng, glare)
    where = np.full(2, CONTEXT_PX / 2) + rng.uniform(-2.5, 2.5, 2)
    paint_die(canvas, die(rng), top, where, span, light, rng, glare)
    return canvas


def camera(image: NDArray[Any], rng: np.random.Generator) -> NDArray[Any]:
    """The scene as a camera might give it, cut to the view and made network input."""
    y = image * rng.uniform(0.5, 1.4) * rng.uniform(0.8, 1.2, 3)
    y = 255.0 * (np.clip(y, 0, 255) / 255.0) ** rng.uniform(0.7, 1.4)
    if rng.random() < 0.5:  # a lower-resolution camera
        s = rng.uniform(0.4, 0.9)
        small = cv2.resize(y, None, fx=s, fy=s, interpolation=cv2.INTER_AREA)
        y = cv2.resize(small, (CONTEXT_PX, CONTEXT_PX))
    if rng.random() < 0.5:
        y = cv2.GaussianBlur(y, (0, 0), rng.uniform(0.3, 1.2))
    y = np.clip(y + rng.normal(0, rng.uniform(0, 8), y.shape), 0, 255).astype(np.uint8)
    if rng.random() < 0.3:
        quality = int(rng.integers(20, 70))
        _, jpeg = cv2.imencode(".jpg", y, [cv2.IMWRITE_JPEG_QUALITY, quality])
        y = cv2.imdecode(jpeg, cv2.IMREAD_COLOR)
    o = (CONTEXT_PX - VIEW_PX) // 2
    return network_input(y[o : o + VIEW_PX, o : o + VIEW_PX])


def fixed(faces: list[NDArray[Any]]) -> Design:
    """A design whose dice all look alike (``faces``), its neighbours too."""

    def die(_: np.random.Generator) -> Die:
        return faces.__getitem__

    return die, die


def render_views(
    design: Callable[[int], Design],
    designs: int,
    per_face: int,
    rng: np.random.Generator,
    glare: float = 0.0,
) -> NDArray[Any]:
    """designs x 6 x per_face x VIEW_PX x VIEW_PX float16 views, design ``d`` drawn by
    ``design(d)`` (before its views); a die's top shows a highlight with chance
    ``glare`` (0: no draw is made for it, so the views of a seed stay as they were)."""
    out = np.empty((designs, 6, per_face, VIEW_PX, VIEW_PX), np.float16)
    for d in range(designs):
        drawn = design(d)
        for f in range(6):
            for v in range(per_face):
                out[d, f, v] = camera(scene(drawn, f, rng, glare), rng)
    return out


def views(designs: int, per_face: int, seed: int, glare: float = 0.0) -> NDArray[Any]:
    """designs x 6 x per_face x VIEW_PX x VIEW_PX float16 views of random designs (a
    die's top shows a highlight with chance ``glare``)."""
    rng = np.random.default_rng(seed)
    return render_views(lambda _: fixed(random_design(rng)), designs, per_face, rng, glare)
