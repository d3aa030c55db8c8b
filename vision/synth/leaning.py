"""A stranger's photos with some dice leaning (cocked), to measure whether the reader
flags them: :mod:`vision.synth.strangers` renders flat dice only.

A leaning die is turned about one edge of its foot by ``LEAN_DEGREES`` (the edge stays on
the table, the die above it), so the camera sees its top face foreshortened and the side
it leans towards, and its shadow follows every corner's height. Nothing holds it up in the
picture (a die leans on another die or the tray's wall in a real tray); it stands clear of
the other dice. With a ``share`` of 0, the photos are the stranger's own, pixel for pixel.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np
from numpy.typing import NDArray

from vision.synth.designs import face_texture
from vision.synth.strangers import Die3D, Stranger, StrangerCamera

LEAN_SHARE = 0.3  # of the dice of a photo, about this share lean
LEAN_DEGREES = (25.0, 55.0)
CLEARANCE = 1.6  # a leaning die's centre this many sides from any other die's, at least


class LeaningCamera(StrangerCamera):
    """A stranger's camera (:class:`~vision.synth.strangers.StrangerCamera`) whose photos
    show some dice leaning; after each photo, ``leaning`` says which of its labels (in
    their order) lean."""

    def __init__(self, who: Stranger, seed: int = 0, share: float = LEAN_SHARE) -> None:
        super().__init__(who, seed)
        self.share = share
        self.leaning: list[bool] = []
        self._lean: dict[int, float] = {}  # a die's seed -> its lean (radians)

    def photo(self, count: int | None = None, faces: list[tuple[int, int]] | None = None
              ) -> tuple[NDArray[Any], list[tuple[str, tuple[float, float, float, float]]]]:  # fmt: skip
        """One photo and its labels, as the stranger's camera gives them; a leaning die's
        box holds all of it (its top face is not flat to label)."""
        self._lean = {}
        self.leaning = []
        return super().photo(count, faces)

    def _corners(self, die: Die3D, z: float) -> NDArray[Any]:
        lean = self._lean.get(die.seed, 0.0)
        if not lean:
            return super()._corners(die, z)
        c, s = math.cos(die.angle), math.sin(die.angle)
        local = np.array([(-0.5, 0.5), (0.5, 0.5), (0.5, -0.5), (-0.5, -0.5)])
        # turned about the foot's edge at local y = -0.5: the top goes towards -y
        y = (local[:, 1] + 0.5) * math.cos(lean) - z * math.sin(lean) - 0.5
        height = (local[:, 1] + 0.5) * math.sin(lean) + z * math.cos(lean)
        xy = np.column_stack([local[:, 0], y]) @ np.array([[c, s], [-s, c]])
        return np.column_stack([xy + np.array([die.x, die.y]), height])

    def _cube(self, die: Die3D) -> NDArray[Any]:
        """The die's eight corners (8 x 3): its foot's four, then its top's."""
        return np.vstack([self._corners(die, 0.0), self._corners(die, 1.0)])

    def _outline(self, die: Die3D) -> NDArray[Any]:
        """The die's corners seen from above (8 x 2)."""
        return self._cube(die)[:, :2]

    def _place(self, faces: list[tuple[int, int]], project: Any, on_table: Any,
               floor: NDArray[Any], px: float) -> list[Die3D]:  # fmt: skip
        placed = super()._place(faces, project, on_table, floor, px)
        if self.share <= 0:
            return placed
        low, high = (math.radians(d) for d in LEAN_DEGREES)
        w, h = self.who.width, self.who.height
        for die in placed:
            if self.rng.random() >= self.share:
                continue
            self._lean[die.seed] = float(self.rng.uniform(low, high))
            mine = cv2.convexHull(self._outline(die).astype(np.float32))
            pts = project(self._cube(die))
            clear = all(
                math.hypot(o.x - die.x, o.y - die.y) >= CLEARANCE
                and cv2.intersectConvexConvex(
                    mine, cv2.convexHull(self._outline(o).astype(np.float32))
                )[0]
                <= 1e-3
                for o in placed
                if o is not die
            ) and (pts.min() >= 4 and pts[:, 0].max() <= w - 5 and pts[:, 1].max() <= h - 5)
            if not clear:
                del self._lean[die.seed]  # it stays flat
        return placed

    def _shadows(self, image: NDArray[Any], dice: list[Die3D], project: Any,
                 light: NDArray[Any]) -> None:  # fmt: skip
        if not self._lean:
            super()._shadows(image, dice, project, light)
            return
        mask: NDArray[Any] = np.zeros(image.shape[:2], np.float32)
        for die in dice:
            corners = self._cube(die)
            cast = corners.copy()
            cast[:, :2] += light * corners[:, 2:3]  # each corner's shadow on the table
            cast[:, 2] = 0.0
            foot = corners[corners[:, 2] < 1e-9]
            hull = cv2.convexHull(project(np.vstack([foot, cast])).astype(np.float32))
            cv2.fillConvexPoly(mask, np.round(hull).astype(np.int32), (1.0,), cv2.LINE_AA)
        mask = cv2.GaussianBlur(mask, (0, 0), max(0.6, self.who.shadow_blur * self.who.die_px))
        image *= (1.0 - self.who.shadow * mask)[..., None]

    def _paste(self, image: NDArray[Any], die: Die3D, project: Any, cam: NDArray[Any],
               light: NDArray[Any], px: float) -> tuple[float, float, float, float]:  # fmt: skip
        self.leaning.append(die.seed in self._lean)
        if die.seed not in self._lean:
            return super()._paste(image, die, project, cam, light, px)
        top, bottom = self._corners(die, 1.0), self._corners(die, 0.0)
        middle = np.vstack([top, bottom]).mean(0)
        side_rng = np.random.default_rng(die.seed)
        others = [f for f in range(6) if f not in (die.face, 5 - die.face)]
        quads = [(top, die.face)] + [
            (np.array([top[k], top[(k + 1) % 4], bottom[(k + 1) % 4], bottom[k]]),
             others[int(side_rng.integers(len(others)))])
            for k in range(4)
        ]  # fmt: skip
        seen = []
        for quad, face in quads:
            centre = quad.mean(0)
            normal = (centre - middle) / np.linalg.norm(centre - middle)
            if float(normal @ (cam - centre)) <= 0:
                continue  # turned away from the camera
            facing_light = float(np.clip(-normal[:2] @ light, -1, 1))
            lit = 0.55 + 0.25 * facing_light + 0.3 * max(0.0, float(normal[2]))
            seen.append((float(np.linalg.norm(cam - centre)), quad, face, min(lit, 1.0)))
        tex_px = int(np.clip(1.3 * px, 24, 160))
        dice = self.who.sets[die.set_index]
        for _, quad, face, lit in sorted(seen, key=lambda s: -s[0]):  # far faces first
            tex = face_texture(dice, face, tex_px, die.seed + face)
            self._warp_into(image, tex, project(quad), lit)
        pts = project(np.vstack([top, bottom]))
        x0, y0 = pts.min(0)
        x1, y1 = pts.max(0)
        return (float(x0), float(y0), float(x1 - x0), float(y1 - y0))
