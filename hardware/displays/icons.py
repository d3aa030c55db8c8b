"""Our own 10x10 pixel icons for the six dice faces, drawn as bitmaps here.

The rulebooks' icons were lost in translation, so these are ours: a boot (kick),
a moving fist (punch), a ki ball (sphere), a dumbbell (strength), a star (star) and a
spiral (teleport). :data:`ICON_SIZE` is the side of every icon in pixels.
"""

from __future__ import annotations

from PIL import ImageDraw

from controller.core.symbols import Symbol

ICON_SIZE = 10

_ICONS: dict[Symbol, str] = {
    Symbol.KICK: """
        ..###.....
        ..###.....
        ..###.....
        ..###.....
        ..###.....
        ..#####...
        ..#######.
        ..########
        ..##..####
        ..........
    """,
    Symbol.PUNCH: """
        ....#####.
        ...#.#.##.
        ##.#.#.#.#
        ...#######
        ####.....#
        ...#.#####
        ##.#.....#
        ...#....#.
        ....####..
        ..........
    """,
    Symbol.SPHERE: """
        ...####...
        ..#....#..
        .#..##..#.
        #..####..#
        #.######.#
        #.######.#
        #..####..#
        .#..##..#.
        ..#....#..
        ...####...
    """,
    Symbol.STRENGTH: """
        ..........
        .#......#.
        ##......##
        ##......##
        ##########
        ##########
        ##......##
        ##......##
        .#......#.
        ..........
    """,
    Symbol.STAR: """
        ....##....
        ....##....
        ...####...
        ##########
        .########.
        ..######..
        ..######..
        .###..###.
        .##....##.
        ##......##
    """,
    Symbol.TELEPORT: """
        ..######..
        .#......#.
        #..####..#
        #.#....#.#
        #.#.##.#.#
        #.#..#.#.#
        #..###.#.#
        #......#.#
        .#######.#
        .........#
    """,
}


def _parse(symbol: Symbol, spec: str) -> tuple[tuple[int, int], ...]:
    rows = spec.split()
    if len(rows) != ICON_SIZE or any(len(r) != ICON_SIZE for r in rows):
        raise ValueError(f"icon {symbol}: expected {ICON_SIZE} rows of {ICON_SIZE} pixels")
    return tuple((x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#")


ICON_PIXELS: dict[Symbol, tuple[tuple[int, int], ...]] = {
    s: _parse(s, spec) for s, spec in _ICONS.items()
}


def draw_icon(draw: ImageDraw.ImageDraw, xy: tuple[int, int], symbol: Symbol, fill: int = 1) -> int:
    """Draw the icon of ``symbol`` with its top-left corner at ``xy``; return the x after it."""
    x, y = xy
    draw.point([(x + px, y + py) for px, py in ICON_PIXELS[symbol]], fill=fill)
    return x + ICON_SIZE
