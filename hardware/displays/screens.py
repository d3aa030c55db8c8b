"""The screens: pure functions that draw a :class:`TableView` on a 1-bit canvas.

Each screen is ``draw(canvas, view, size)``: it reads only its arguments and
draws only on the canvas, so the same code feeds a luma device
(:func:`show`), a PNG (:func:`render`) and the change-only pusher. Every screen
has a 128x64 layout and a compact one for 128x32 (any height under 64). All text
uses our bitmap font (8 px capitals; the clock 16 px).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image, ImageDraw

from controller.core.symbols import Symbol
from hardware.displays.errors import UnknownScreenError
from hardware.displays.font import BIG, SMALL, Font
from hardware.displays.icons import ICON_SIZE, draw_icon
from hardware.displays.model import AttackSpeed, Defence, Fighter, PromptKind, Seat, TableView

Size = tuple[int, int]
Draw = ImageDraw.ImageDraw
Screen = Callable[[Draw, TableView, Size], None]

LINE = 10
"""Line pitch in pixels for 8 px text: 2 px between lines."""
DIE_BOX = 14
"""Side of a boxed die (a 10 px icon with a 1 px frame and 1 px margin)."""

SPEED_NAMES: dict[AttackSpeed, str] = {
    AttackSpeed.LIGHTNING: "LIGHTNING",
    AttackSpeed.SURPRISE: "SURPRISE",
    AttackSpeed.NORMAL: "NORMAL",
}
DEFENCE_NAMES: dict[Defence, str] = {
    Defence.DEFENCE_CARD: "DEF CARD",
    Defence.ANY_CARD: "CARD",
    Defence.INVULNERABLE_CARD: "INVULN CARD",
    Defence.DODGE: "DODGE",
}
PROMPT_TITLES: dict[PromptKind, str] = {
    PromptKind.CONFIRM_READ: "CONFIRM READ",
    PromptKind.RETHROW: "RETHROW DIE",
    PromptKind.CHOOSE_MOVE: "CHOOSE MOVE",
    PromptKind.MAPPING: "MAP BOARD",
    PromptKind.CHOOSE: "CHOOSE",
}


# --- drawing helpers ---------------------------------------------------------------------


def text(
    d: Draw, xy: tuple[int, int], s: str, width: int, font: Font = SMALL, fill: int = 1
) -> int:
    """Draw ``s`` cut to ``width`` pixels at ``xy``; return the x after it."""
    return font.draw(d, xy, font.fit(s, width), fill)


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
) -> int:
    """Draw the dice as icons from ``xy`` (boxed: 14 px squares); ``mark`` inverts one die."""
    x, y = xy
    step = DIE_BOX + 1 if boxed else ICON_SIZE + 2
    for i, sym in enumerate(dice):
        inverted = i == mark
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


def mmss(seconds: int) -> str:
    """``seconds`` as ``m:ss`` (minutes not capped at 59)."""
    return f"{seconds // 60}:{seconds % 60:02d}"


def fighter_label(f: Fighter) -> str:
    """Name and form, e.g. ``SON GOKU SSJ``."""
    return f"{f.name} {f.form}" if f.form else f.name


def current_seat(view: TableView) -> Seat | None:
    """The seat whose turn it is, if the view lists seats."""
    return view.seats[view.seat] if 0 <= view.seat < len(view.seats) else None


# --- the screens -------------------------------------------------------------------------


def turn_screen(d: Draw, view: TableView, size: Size) -> None:
    """Whose turn, the round (x/N) and the time left (mm:ss), the phase."""
    w, h = size
    c = view.clock
    round_text = f"ROUND {c.round_no}/{c.rounds}" if c.rounds else f"ROUND {c.round_no}"
    big = mmss(c.seconds_left) if c.seconds_left is not None else f"{c.round_no}/{c.rounds or '-'}"
    if h < 64:
        left = text_right(d, w, 0, view.phase)
        text(d, (0, 0), view.player, left - 4)
        BIG.draw(d, (0, 16), big)  # pages 2-3 exactly
        text_right(d, w, 14, f"T{view.turn}")
        text_right(d, w, 24, round_text if c.seconds_left is not None else "ROUND")
        return
    text(d, (0, 0), f"TURN {view.turn}", w // 2)
    text_right(d, w, 0, view.phase)
    name = view.player
    if BIG.width(name) <= w:
        text_centre(d, w, 12, name, BIG)
    else:
        text_centre(d, w, 16, name)
    d.line((0, 29, w - 1, 29), fill=1)
    # the big clock fills display pages 4-5 exactly, so a tick rewrites only those pages
    text_centre(d, w, 32, big, BIG)
    text_centre(d, w, 53, round_text if c.seconds_left is not None else "ROUND")


def combat_screen(d: Draw, view: TableView, size: Size) -> None:
    """Attacker against defender: forms, endurance bars, the dice, the best option."""
    w, h = size
    c = view.combat
    if c is None:
        text_centre(d, w, (h - 8) // 2, "NO COMBAT")
        return
    best = c.best
    if h < 64:
        a, b = c.attacker, c.defender
        text(d, (0, 0), f"{a.name} {a.endurance_left}", w // 2 - 2)
        text_right(d, w, 0, SMALL.fit(f"{b.endurance_left} {b.name}", w // 2 - 2))
        x = dice_row(d, (0, 11), c.dice, boxed=False)
        # The speed decides the defence, so it shows on the smallest screen too.
        right = text_right(d, w, 24, SPEED_NAMES[c.speed]) - 4 if c.speed is not None else w
        if best is not None:
            text_right(d, w, 12, str(best.damage))
            text(d, (0, 24), best.label, right)
        else:
            text(d, (x + 2, 12), "-", w)
        return
    for y, f in ((0, c.attacker), (14, c.defender)):
        score = f"{f.endurance_left}/{f.endurance_max}"
        left = text_right(d, w, y, score)
        text(d, (0, y), fighter_label(f), left - 4)
        bar(d, (0, y + 9, w - 1, y + 12), f.endurance_left, f.endurance_max)
    dice_row(d, (0, 29), c.dice)
    text_right(d, w, 32, f"R{c.roll_no}/{c.rolls_max}")
    if best is not None:
        dmg = text_right(d, w, 46, str(best.damage))
        text(d, (0, 46), f">{best.label}", dmg - 4)
    if c.speed is not None:
        text(d, (0, 56), _speed_line(c.speed, c.defences), w)


def _speed_line(speed: AttackSpeed, defences: Sequence[Defence]) -> str:
    allowed = "/".join(DEFENCE_NAMES[x] for x in defences) if defences else "NO DEF"
    return f"{SPEED_NAMES[speed]}: {allowed}"


def options_screen(d: Draw, view: TableView, size: Size) -> None:
    """The options with their damage (best marked), speed and defences, the advisor."""
    w, h = size
    c = view.combat
    if c is None:
        text_centre(d, w, (h - 8) // 2, "NO COMBAT")
        return
    best = c.best
    rows = 1 if h < 64 else 3
    y = 0
    if h >= 64:
        title_bar(d, w, f"ROLL {c.roll_no}/{c.rolls_max}", SPEED_NAMES[c.speed] if c.speed else "")
        y = LINE + 1
    ordered = sorted(c.options, key=lambda o: (o is not best, -o.damage))
    for o in ordered[:rows]:
        dmg = text_right(d, w, y, str(o.damage))
        text(d, (0, y), f"{'>' if o is best else ' '}{o.label}", dmg - 4)
        y += LINE
    if not c.options:
        text(d, (0, y), "NO OPTION", w)
        y += LINE
    if h >= 64 and c.speed is not None:
        allowed = "/".join(DEFENCE_NAMES[x] for x in c.defences) if c.defences else "NONE"
        text(d, (0, y + 1), f"DEF: {allowed}", w)
    a = c.advice
    if a is not None:
        y = h - ICON_SIZE - 1 if h >= 64 else LINE + 1
        x = 0
        if a.keep:
            x = SMALL.draw(d, (0, y + 1), "KEEP") + 2
            x = dice_row(d, (x, y), a.keep, boxed=False)
        extra = []
        if a.ko_chance is not None:
            extra.append(f"KO {round(a.ko_chance * 100)}%")
        if a.expected_damage is not None:
            extra.append(f"E {round(a.expected_damage)}")
        if extra:
            text_right(d, w, y + 1, SMALL.fit(" ".join(extra), w - x - 2))


def teams_screen(d: Draw, view: TableView, size: Size) -> None:
    """Every seat: warriors left (pips) and cards in hand; the current seat inverted."""
    w, h = size
    if not view.seats:
        text_centre(d, w, (h - 8) // 2, "NO SEATS")
        return
    if h < 64:
        col = w // 2
        for i, s in enumerate(view.seats[:6]):
            x0, y = (i // 3) * col, (i % 3) * (LINE + 1)
            _seat_row(d, (x0, y), col - 2, s, i == view.seat, compact=True)
        return
    top = 1
    if len(view.seats) <= 5:  # six seats fill the screen without the title
        title_bar(d, w, "TEAMS", f"TURN {view.turn}")
        top = LINE + 1
    for i, s in enumerate(view.seats[:6]):
        _seat_row(d, (0, top + i * LINE), w, s, i == view.seat, compact=False)


def _seat_row(
    d: Draw, xy: tuple[int, int], width: int, s: Seat, current: bool, compact: bool
) -> None:
    x0, y = xy
    fill = 0 if current else 1
    if current:
        d.rectangle((x0, y - 1, x0 + width - 1, y + 8), fill=1)
    cards = str(s.cards_in_hand)
    right = x0 + width - 1
    cx = right - SMALL.width(cards)
    SMALL.draw(d, (cx, y), cards, fill)
    icon_x = cx - 8
    d.rectangle((icon_x, y, icon_x + 5, y + 7), outline=fill, fill=1 - fill)
    if compact:
        wl = f"{s.warriors_left}"
        px = icon_x - 3 - SMALL.width(wl)
        SMALL.draw(d, (px, y), wl, fill)
    else:
        px = icon_x - 3 - 5 * s.warriors_total
        x = px
        for k in range(s.warriors_total):
            if k < s.warriors_left:
                d.rectangle((x, y, x + 3, y + 7), fill=fill)
            else:
                d.rectangle((x, y, x + 3, y + 7), outline=fill, fill=1 - fill)
            x += 5
    SMALL.draw(d, (x0 + 1, y), SMALL.fit(s.name, px - x0 - 4), fill)


def seat_screen(index: int) -> Screen:
    """A per-seat display: that player's name, warriors left, cards, and whose turn it is."""

    def draw_seat(d: Draw, view: TableView, size: Size) -> None:
        w, h = size
        if not 0 <= index < len(view.seats):
            text_centre(d, w, (h - 8) // 2, f"NO SEAT {index}")
            return
        s = view.seats[index]
        mine = index == view.seat
        if h < 64:
            text(d, (0, 0), s.name, w - 40)
            if mine:
                d.rectangle((w - 37, 0, w - 1, 9), fill=1)
                text_right(d, w - 2, 1, "TURN", fill=0)
            x = pips(d, (0, 12), s.warriors_left, s.warriors_total)
            text(d, (x + 2, 12), f"{s.warriors_left}/{s.warriors_total}", w)
            x = card_icon(d, (0, 23))
            text(d, (x + 1, 23), f"{s.cards_in_hand} CARDS", w)
            return
        if BIG.width(s.name) <= w:
            text_centre(d, w, 0, s.name, BIG)
        else:
            text_centre(d, w, 4, s.name)
        x = pips(d, (0, 20), s.warriors_left, s.warriors_total, h=10)
        text(d, (x + 3, 21), f"{s.warriors_left}/{s.warriors_total} LEFT", w - x)
        x = card_icon(d, (0, 34))
        text(d, (x + 2, 34), f"{s.cards_in_hand} CARDS", w)
        if mine:
            d.rectangle((0, 48, w - 1, 63), fill=1)
            text_centre(d, w, 52, f"YOUR TURN: {view.phase}", fill=0)
        else:
            text_centre(d, w, 52, f"TURN: {view.player}")

    return draw_seat


def prompt_screen(d: Draw, view: TableView, size: Size) -> None:
    """A question: title, the dice (a cocked die marked) or text, the choices as buttons."""
    w, h = size
    p = view.prompt
    if p is None:
        text_centre(d, w, (h - 8) // 2, "NO QUESTION")
        return
    step = f"{p.step}/{p.steps}" if p.step is not None and p.steps else ""
    title_bar(d, w, p.title.upper() if p.title else PROMPT_TITLES[p.kind], step)
    boxed = h >= 64
    y = LINE + 2 if boxed else LINE + 1
    bottom = h - LINE if p.choices else h
    if p.dice:
        dice_row(d, (1, y + (0 if boxed else 1)), p.dice, boxed=boxed, mark=p.die_index)
        y += (DIE_BOX if boxed else ICON_SIZE + 2) + 2
    for line in wrap(p.text, w):
        if y + 8 > bottom:
            break
        text(d, (0, y), line, w)
        y += LINE
    if p.choices:
        _buttons(d, size, p.choices, p.selected)


def _buttons(d: Draw, size: Size, choices: Sequence[str], selected: int) -> None:
    w, h = size
    n = len(choices)
    cell = w // n
    y0 = h - LINE
    for i, label in enumerate(choices):
        x0 = i * cell
        x1 = w - 1 if i == n - 1 else x0 + cell - 2
        chosen = i == selected
        d.rectangle((x0, y0, x1, h - 1), outline=1, fill=1 if chosen else 0)
        shown = SMALL.fit(label, x1 - x0 - 3)
        tx = x0 + (x1 - x0 + 1 - SMALL.width(shown)) // 2
        SMALL.draw(d, (tx, y0 + 1), shown, 0 if chosen else 1)


def errors_screen(d: Draw, view: TableView, size: Size) -> None:
    """Every active fault (they stay until the daemon clears them), or "ALL OK"."""
    w, h = size
    if not view.faults:
        text_centre(d, w, (h - 8) // 2, "ALL OK")
        return
    n = len(view.faults)
    title_bar(d, w, "! FAULT" if n == 1 else f"! {n} FAULTS")
    y = LINE + 2
    for f in view.faults:
        for line in wrap(f.message, w):
            if y + 8 > h:
                return
            text(d, (0, y), line, w)
            y += LINE


SCREENS: dict[str, Screen] = {
    "turn": turn_screen,
    "combat": combat_screen,
    "options": options_screen,
    "teams": teams_screen,
    "prompt": prompt_screen,
    "errors": errors_screen,
}
"""The screens by name; ``seat:N`` (see :func:`screen_by_name`) adds one per seat."""


def screen_by_name(name: str) -> Screen:
    """The screen called ``name``: one of :data:`SCREENS` or ``seat:N``.

    Raises:
        UnknownScreenError: no such screen; the message lists the names.
    """
    if name in SCREENS:
        return SCREENS[name]
    prefix, _, num = name.partition(":")
    if prefix == "seat" and num.isdigit():
        return seat_screen(int(num))
    raise UnknownScreenError(
        f"unknown screen {name!r}: expected one of {', '.join(SCREENS)}, seat:N"
    )


def screen_names(view: TableView) -> list[str]:
    """Every screen name for ``view``: the fixed ones, then ``seat:N`` for each seat."""
    return [*SCREENS, *(f"seat:{i}" for i in range(len(view.seats)))]


def pick_screen(view: TableView, preferred: str, alerts: bool = True) -> str:
    """What a display set to ``preferred`` shows now.

    With ``alerts``, active faults take the display (they stay until cleared),
    then an open prompt; a combat screen with no combat falls back to ``turn``.
    """
    if alerts and view.faults:
        return "errors"
    if alerts and view.prompt is not None:
        return "prompt"
    if preferred in ("combat", "options") and view.combat is None:
        return "turn"
    return preferred


def render(view: TableView, name: str, size: Size = (128, 64)) -> Image.Image:
    """Draw screen ``name`` into a new 1-bit image of ``size``.

    Raises:
        UnknownScreenError: no such screen.
    """
    screen = screen_by_name(name)
    image = Image.new("1", size)
    screen(ImageDraw.Draw(image), view, size)
    return image


def show(device: Any, view: TableView, name: str) -> None:
    """Draw screen ``name`` on a luma ``device`` through ``luma.core.render.canvas``.

    Raises:
        UnknownScreenError: no such screen.
    """
    from luma.core.render import canvas

    screen = screen_by_name(name)
    with canvas(device) as draw:
        screen(draw, view, device.size)
