"""Our own bitmap font for 1-bit OLEDs: capitals and digits 8 px high, drawn here.

Why our own: PIL's built-in bitmap font has capitals only 6 px high, and its
FreeType default is anti-aliased outlines that break up when thresholded to one
bit. Small OLED interfaces read best in capitals, so the font holds upper-case
letters, digits and the punctuation the screens use; lower-case text is shown in
capitals and accents are dropped (``é`` -> ``E``). A character the font lacks is
drawn as ``?``. :data:`BIG` doubles every pixel (16 px capitals) for the clock.

Each glyph is 8 rows; ``#`` is a lit pixel. Glyphs have their own widths and
one blank column between them.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from functools import cache

from PIL import ImageDraw

CAP_HEIGHT = 8
"""Height in pixels of capitals and digits at scale 1 (the smallest text we draw)."""

_GLYPHS: dict[str, str] = {
    "A": ".###. #...# #...# #...# ##### #...# #...# #...#",
    "B": "####. #...# #...# ####. #...# #...# #...# ####.",
    "C": ".###. #...# #.... #.... #.... #.... #...# .###.",
    "D": "####. #...# #...# #...# #...# #...# #...# ####.",
    "E": "##### #.... #.... ####. #.... #.... #.... #####",
    "F": "##### #.... #.... ####. #.... #.... #.... #....",
    "G": ".###. #...# #.... #.... #.### #...# #...# .###.",
    "H": "#...# #...# #...# ##### #...# #...# #...# #...#",
    "I": "### .#. .#. .#. .#. .#. .#. ###",
    "J": "..### ...#. ...#. ...#. ...#. #..#. #..#. .##..",
    "K": "#...# #..#. #.#.. ##... ##... #.#.. #..#. #...#",
    "L": "#.... #.... #.... #.... #.... #.... #.... #####",
    "M": "#...# ##.## #.#.# #.#.# #...# #...# #...# #...#",
    "N": "#...# ##..# ##..# #.#.# #.#.# #..## #..## #...#",
    "O": ".###. #...# #...# #...# #...# #...# #...# .###.",
    "P": "####. #...# #...# #...# ####. #.... #.... #....",
    "Q": ".###. #...# #...# #...# #...# #.#.# #..#. .##.#",
    "R": "####. #...# #...# #...# ####. #.#.. #..#. #...#",
    "S": ".###. #...# #.... .###. ....# ....# #...# .###.",
    "T": "##### ..#.. ..#.. ..#.. ..#.. ..#.. ..#.. ..#..",
    "U": "#...# #...# #...# #...# #...# #...# #...# .###.",
    "V": "#...# #...# #...# #...# #...# .#.#. .#.#. ..#..",
    "W": "#...# #...# #...# #...# #.#.# #.#.# ##.## #...#",
    "X": "#...# #...# .#.#. ..#.. ..#.. .#.#. #...# #...#",
    "Y": "#...# #...# .#.#. ..#.. ..#.. ..#.. ..#.. ..#..",
    "Z": "##### ....# ...#. ..#.. .#... #.... #.... #####",
    "0": ".###. #...# #..## #.#.# #.#.# ##..# #...# .###.",
    "1": "..#.. .##.. #.#.. ..#.. ..#.. ..#.. ..#.. #####",
    "2": ".###. #...# ....# ...#. ..#.. .#... #.... #####",
    "3": ".###. #...# ....# ..##. ....# ....# #...# .###.",
    "4": "...#. ..##. .#.#. #..#. ##### ...#. ...#. ...#.",
    "5": "##### #.... #.... ####. ....# ....# #...# .###.",
    "6": ".###. #.... #.... ####. #...# #...# #...# .###.",
    "7": "##### ....# ...#. ...#. ..#.. ..#.. .#... .#...",
    "8": ".###. #...# #...# .###. #...# #...# #...# .###.",
    "9": ".###. #...# #...# #...# .#### ....# ....# .###.",
    " ": "... ... ... ... ... ... ... ...",
    ".": ".. .. .. .. .. .. ## ##",
    ",": ".. .. .. .. .. .. ## .#",
    ":": ".. ## ## .. .. ## ## ..",
    ";": ".. ## ## .. .. ## ## .#",
    "!": "# # # # # # . #",
    "?": ".###. #...# ....# ...#. ..#.. ..#.. ..... ..#..",
    "-": ".... .... .... .... #### .... .... ....",
    "+": "..... ..#.. ..#.. ..#.. ##### ..#.. ..#.. .....",
    "/": "....# ....# ...#. ..#.. ..#.. .#... #.... #....",
    "%": "##..# ##..# ...#. ..#.. ..#.. .#... #..## #..##",
    "(": "..# .#. #.. #.. #.. #.. .#. ..#",
    ")": "#.. .#. ..# ..# ..# ..# .#. #..",
    "[": "### #.. #.. #.. #.. #.. #.. ###",
    "]": "### ..# ..# ..# ..# ..# ..# ###",
    "'": "# # . . . . . .",
    '"': "#.# #.# ... ... ... ... ... ...",
    "=": "..... ..... ##### ..... ..... ##### ..... .....",
    "<": "...# ..#. .#.. #... #... .#.. ..#. ...#",
    ">": "#... .#.. ..#. ...# ...# ..#. .#.. #...",
    "*": "..... ..#.. #.#.# .###. .###. #.#.# ..#.. .....",
    "#": ".#.#. .#.#. ##### .#.#. .#.#. ##### .#.#. .#.#.",
    "_": "..... ..... ..... ..... ..... ..... ..... #####",
    "&": ".##.. #..#. #..#. .##.. .#..# #.##. #..#. .##.#",  # a shared win names both
    "|": "# # # # # # # #",
    "·": ".. .. .. ## ## .. .. ..",
    "×": "..... ..... #...# .#.#. ..#.. .#.#. #...# .....",
    "→": "..... ..#.. ...#. ##### ...#. ..#.. ..... .....",
    "←": "..... ..#.. .#... ##### .#... ..#.. ..... .....",
}

GLYPH_GAP = 1
"""Blank columns between two glyphs."""


@dataclass(frozen=True)
class Glyph:
    """One character: its width and its lit pixels as (x, y) at scale 1."""

    width: int
    pixels: tuple[tuple[int, int], ...]


def _parse(char: str, spec: str) -> Glyph:
    rows = spec.split()
    if len(rows) != CAP_HEIGHT or len({len(r) for r in rows}) != 1:
        raise ValueError(f"glyph {char!r}: expected {CAP_HEIGHT} rows of equal width")
    pixels = tuple((x, y) for y, row in enumerate(rows) for x, c in enumerate(row) if c == "#")
    return Glyph(len(rows[0]), pixels)


GLYPHS: dict[str, Glyph] = {c: _parse(c, spec) for c, spec in _GLYPHS.items()}


@dataclass(frozen=True)
class Font:
    """The glyph set drawn at an integer ``scale`` (1: 8 px capitals, 2: 16 px)."""

    scale: int = 1

    @property
    def height(self) -> int:
        """Height of a line of text in pixels."""
        return CAP_HEIGHT * self.scale

    def width(self, text: str) -> int:
        """Width in pixels of ``text`` drawn in this font (0 for an empty string)."""
        glyphs = [_glyph(c) for c in normalise(text)]
        if not glyphs:
            return 0
        return self.scale * (sum(g.width for g in glyphs) + GLYPH_GAP * (len(glyphs) - 1))

    def fit(self, text: str, max_width: int) -> str:
        """The longest prefix of ``normalise(text)`` that fits in ``max_width`` pixels."""
        shown = normalise(text)
        width = 0
        for i, c in enumerate(shown):  # one pass: a name of any length costs its length once
            width += self.scale * ((GLYPH_GAP if i else 0) + _glyph(c).width)
            if width > max_width:
                return shown[:i].rstrip()
        return shown.rstrip()

    def fit_marked(self, text: str, max_width: int) -> str:
        """:meth:`fit`, ending in ``.`` where it cut ``text`` short: two names cut to the
        same prefix (two forms of one warrior) are seen to be cut, not taken for one."""
        whole = self.fit(text, max_width)
        if whole == normalise(text).rstrip():
            return whole
        cut = self.fit(text, max_width - self.width(".") - GLYPH_GAP * self.scale)
        return f"{cut}." if cut else whole

    def draw(self, draw: ImageDraw.ImageDraw, xy: tuple[int, int], text: str, fill: int = 1) -> int:
        """Draw ``text`` with its top-left corner at ``xy``; return the x after it."""
        x, y = xy
        s = self.scale
        for i, c in enumerate(normalise(text)):
            g = _glyph(c)
            if i:
                x += GLYPH_GAP * s
            for px, py in g.pixels:
                if s == 1:
                    draw.point((x + px, y + py), fill=fill)
                else:
                    x0, y0 = x + px * s, y + py * s
                    draw.rectangle((x0, y0, x0 + s - 1, y0 + s - 1), fill=fill)
            x += g.width * s
        return x


SMALL = Font(1)
BIG = Font(2)


@cache
def _glyph(char: str) -> Glyph:
    return GLYPHS.get(char, GLYPHS["?"])


def normalise(text: str) -> str:
    """``text`` as the font shows it: capitals, accents dropped, unknown characters as ``?``."""
    out = []
    for c in text.upper():
        if c in GLYPHS:
            out.append(c)
            continue
        base = "".join(b for b in unicodedata.normalize("NFKD", c) if not unicodedata.combining(b))
        out.append("".join(b if b in GLYPHS else "?" for b in base) or "?")
    return "".join(out)
