"""Drawing helpers the screens share: text in our bitmap font, bars, dice, pips, wrapping."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PIL import ImageDraw

from controller.core.symbols import Symbol
from hardware.displays.font import SMALL, Font, normalise
from hardware.displays.icons import ICON_SIZE, draw_icon
from hardware.displays.model import FighterView, TableView

Size = tuple[int, int]
Draw = ImageDraw.ImageDraw
Screen = Callable[[Draw, TableView, Size], None]

LINE = 10
"""Line pitch in pixels for 8 px text: 2 px between lines."""
DIE_BOX = 14
"""Side of a boxed die (a 10 px icon with a 1 px frame and 1 px margin)."""


def text(
    d: Draw, xy: tuple[int, int], s: str, width: int, font: Font = SMALL, fill: int = 1
) -> int:
    """Draw ``s`` cut to ``width`` pixels at ``xy`` (a cut marked ``.``); return the x
    after it."""
    return font.draw(d, xy, font.fit_marked(s, width), fill)


def text_right(d: Draw, right: int, y: int, s: str, font: Font = SMALL, fill: int = 1) -> int:
    """Draw ``s`` ending at x = ``right`` (exclusive); return its left x."""
    left = right - font.width(s)
    font.draw(d, (left, y), s, fill)
    return left


def text_centre(d: Draw, width: int, y: int, s: str, font: Font = SMALL, fill: int = 1) -> None:
    """Draw ``s`` centred across ``width`` pixels (cut if too wide)."""
    shown = font.fit(s, width)
    font.draw(d, ((width - font.width(shown)) // 2, y), shown, fill)


def title_bar(d: Draw, width: int, title: str, right: str = "") -> None:
    """An inverted 10 px bar across the top with ``title`` left and ``right`` right."""
    d.rectangle((0, 0, width - 1, LINE - 1), fill=1)
    r = right and text_right(d, width - 2, 1, right, fill=0)
    text(d, (2, 1), title, (r or width) - 6, fill=0)


def bar(d: Draw, box: tuple[int, int, int, int], value: int, maximum: int) -> None:
    """An outlined bar in ``box`` (x0, y0, x1, y1) filled to ``value / maximum``."""
    x0, y0, x1, y1 = box
    d.rectangle(box, outline=1, fill=0)
    inner = x1 - x0 - 1
    filled = 0 if maximum <= 0 else round(inner * min(max(value, 0), maximum) / maximum)
    if filled > 0 and y1 - y0 >= 2:
        d.rectangle((x0 + 1, y0 + 1, x0 + filled, y1 - 1), fill=1)


def dice_row(
    d: Draw,
    xy: tuple[int, int],
    dice: Sequence[Symbol],
    boxed: bool = True,
    mark: int | None = None,
    also: Sequence[int] = (),
) -> int:
    """Draw the dice as icons from ``xy`` (boxed: 14 px squares); ``mark`` and ``also``
    invert dice."""
    x, y = xy
    step = DIE_BOX + 1 if boxed else ICON_SIZE + 2
    for i, sym in enumerate(dice):
        inverted = i == mark or i in also
        if boxed:
            d.rectangle(
                (x, y, x + DIE_BOX - 1, y + DIE_BOX - 1), outline=1, fill=1 if inverted else 0
            )
            draw_icon(d, (x + 2, y + 2), sym, fill=0 if inverted else 1)
        else:
            if inverted:
                d.rectangle((x - 1, y - 1, x + ICON_SIZE, y + ICON_SIZE), fill=1)
            draw_icon(d, (x, y), sym, fill=0 if inverted else 1)
        x += step
    return x


def pips(d: Draw, xy: tuple[int, int], left: int, total: int, h: int = 8) -> int:
    """Warriors as pips: filled for those left, hollow for those lost; return the x after."""
    x, y = xy
    for i in range(total):
        if i < left:
            d.rectangle((x, y, x + 3, y + h - 1), fill=1)
        else:
            d.rectangle((x, y, x + 3, y + h - 1), outline=1, fill=0)
        x += 5
    return x


def card_icon(d: Draw, xy: tuple[int, int]) -> int:
    """A small card outline (6x8) for "cards in hand"; return the x after."""
    x, y = xy
    d.rectangle((x, y, x + 5, y + 7), outline=1, fill=0)
    d.line((x + 2, y + 2, x + 3, y + 2), fill=1)
    return x + 7


def wrap(s: str, width: int, font: Font = SMALL) -> list[str]:
    """Split ``s`` into lines of at most ``width`` pixels at spaces (long words are cut)."""
    lines: list[str] = []
    cur = ""
    for word in s.split():
        trial = f"{cur} {word}" if cur else word
        if font.width(trial) <= width:
            cur = trial
            continue
        if cur:
            lines.append(cur)
        cur = font.fit(word, width)
    if cur:
        lines.append(cur)
    return lines


def squeeze(s: str, width: int, font: Font = SMALL) -> str:
    """``s`` on one line of ``width`` pixels, its last words kept: the longest words are
    cut first, each cut marked ``.``, none below four letters and no number, so the
    short words that tell two lines apart (a space's number, a card's target, a form's
    last word) stay. Text too long for that keeps its first words, and its last ones
    when they hold a number, cut between them (``PLACE BRIANNE DE. ON 12``)."""
    words = normalise(s).split()
    cut = [False] * len(words)

    def joined() -> str:
        return " ".join(f"{w}." if c else w for w, c in zip(words, cut, strict=True))

    while font.width(joined()) > width:
        cuttable = [k for k, w in enumerate(words) if len(w) > 4 and not w.isdigit()]
        if not cuttable:
            return _ends(normalise(s).split(), width, font)
        longest = max(cuttable, key=lambda k: len(words[k]))
        words[longest], cut[longest] = words[longest][:-1], True
    return joined()


def _ends(words: list[str], width: int, font: Font) -> str:
    """The first words and the last (two, else one, that fit in half the line and hold
    a number: a space's, a die's, a warrior's), cut between them and marked; else the
    first whole words, marked where there is room (a sentence reads from its start)."""
    for n in (2, 1):
        tail = " ".join(words[-n:])
        numbered = any(c.isdigit() for c in tail)
        if numbered and len(words) > n and font.width(tail) <= width // 2:
            head = font.fit_marked(" ".join(words[:-n]), width - font.width(f" {tail}"))
            return f"{head} {tail}"
    first = wrap(" ".join(words), width, font)[0] if words else ""  # whole words
    marked = first.rstrip(",;:.") + "."  # "PAUSED;" cut reads "PAUSED."
    return marked if font.width(marked) <= width else first


def fit_lines(s: str, width: int, rows: int, font: Font = SMALL) -> list[str]:
    """``s`` wrapped into at most ``rows`` lines of ``width`` pixels: what does not fit is
    squeezed into the last line (:func:`squeeze`), not dropped unseen."""
    lines = wrap(s, width, font)
    if len(lines) <= rows or rows <= 0:
        return lines[: max(rows, 0)]
    return [*lines[: rows - 1], squeeze(" ".join(lines[rows - 1 :]), width, font)]


def mmss(seconds: int) -> str:
    """``seconds`` as ``m:ss`` (minutes not capped at 59)."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def fighter_label(f: FighterView) -> str:
    """Name and form, e.g. ``JIREN FULL POWER``; a form that names its warrior alone
    (``Super Saiyan 2 Caulifla``): the name before it pushed the form's own words out of
    a line, and two forms of one warrior looked the same."""
    if not f.form:
        return f.name
    if normalise(f.name) in normalise(f.form):
        return f.form
    return f"{f.name} {f.form}"


def fighter_fit(f: FighterView, width: int, font: Font = SMALL) -> str:
    """:func:`fighter_label` in ``width`` pixels. Too long, the words before the name
    that tells the forms apart (a form's own words, before its warrior's name; else
    the warrior's name, before the form's) are written to their initials, two or more,
    first to last, until it fits (``SUPER SAIYAN BLUE + KAIO-KEN SON GOKU``: ``SSB+KK
    SON GOKU``; a number kept, ``SS2 VEGETA``; ``BDC RIBRIANNE``): cut at its end, four
    warriors' forms all read ``SUPER SAIYAN BLU.``. Else :func:`squeeze`."""
    label = normalise(fighter_label(f))
    name = normalise(f.name)
    if font.width(label) <= width or not f.form or not name:
        return squeeze(label, width, font)
    if name in normalise(f.form):  # the form names its warrior: its words before the name
        words, kept = label.partition(name)[0].split(), label[label.index(name) :]
    else:
        words, kept = name.split(), label[len(name) :].strip()
    for k in range(2, len(words) + 1):
        if k < len(words) and words[k].isdigit():
            continue  # a form's number joins its initials: SS2, not SS 2
        fitted = " ".join(["".join(_initials(w) for w in words[:k]), *words[k:], kept])
        if font.width(fitted) <= width:
            return fitted
    return squeeze(label, width, font)


def _initials(word: str) -> str:
    """A form's word written short: a number or sign kept, else each part's first letter
    (``KAIO-KEN``: ``KK``; ``(ENRAGED)``: ``E``)."""
    if not any(c.isalpha() for c in word):
        return word
    return "".join(next(c for c in part if c.isalnum()) for part in word.split("-") if any(
        c.isalnum() for c in part))  # fmt: skip
