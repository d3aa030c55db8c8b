"""The screen renderers: one pure ``draw(canvas, view, size)`` per screen, 128x64 and 128x32."""

from __future__ import annotations

from collections.abc import Sequence

from controller.core.game_limits import MAX_EXTRA_ROUNDS
from controller.core.symbols import AttackSpeed, Defence
from hardware.displays.draw import (
    DIE_BOX,
    LINE,
    Draw,
    Screen,
    Size,
    bar,
    card_icon,
    dice_row,
    fighter_fit,
    fit_lines,
    mmss,
    pips,
    squeeze,
    text,
    text_centre,
    text_right,
    title_bar,
)
from hardware.displays.font import BIG, GLYPH_GAP, SMALL
from hardware.displays.icons import ICON_SIZE
from hardware.displays.model import Clock, PromptKind, SeatView, TableView

SPEED_NAMES: dict[AttackSpeed, str] = {
    AttackSpeed.LIGHTNING: "LIGHTNING",
    AttackSpeed.SURPRISE: "SURPRISE",
    AttackSpeed.NORMAL: "NORMAL",
}
DEFENCE_NAMES: dict[Defence, str] = {
    Defence.NONE: "NO DEF",
    Defence.DEFENCE_CARDS: "DEF CARD",
    Defence.ANY_CARDS: "CARD",
    Defence.DODGE: "DODGE",
}
NEXT_GAME_KEYS = "HOLD OK: NEXT GAME"
"""What the turn screen says at game over."""
NEXT_GAME_SAID = "game over: the next game starts as the table starts again"
"""What the screens say once CONFIRM, held at game over, stopped the table (every mode)."""
PROMPT_TITLES: dict[PromptKind, str] = {
    PromptKind.CONFIRM_READ: "CONFIRM READ",
    PromptKind.RETHROW: "RETHROW DIE",
    PromptKind.CHOOSE_MOVE: "CHOOSE MOVE",
    PromptKind.MAPPING: "MAP BOARD",
    PromptKind.CHOOSE: "CHOOSE",
}


def _round_texts(c: Clock) -> tuple[str, str]:
    """The clock's big text (mm:ss left, else the round: ``x/N``, a tie's extra round
    ``N+k``; a 45-minute game's extra round ``+k``) and the small line under or beside it
    (``ROUND x/N``, ``EXTRA k/3``)."""
    extra = c.extra_round
    if extra is not None and c.rounds is None:  # time is up: 0:00 would say nothing of the tie
        return f"+{extra}", f"EXTRA {extra}/{MAX_EXTRA_ROUNDS}"
    if extra is not None:  # past the last round: "6/5" would say nothing of the tie
        line, count = f"EXTRA {extra}/{MAX_EXTRA_ROUNDS}", f"{c.rounds}+{extra}"
    else:
        line = f"ROUND {c.round_no}/{c.rounds}" if c.rounds else f"ROUND {c.round_no}"
        count = f"{c.round_no}/{c.rounds or '-'}"
    if c.seconds_left is not None:
        return mmss(c.seconds_left), line
    # untimed, the big text is the round: the line names it, or names the tie's extra round
    return count, line if extra is not None else "ROUND"


def turn_screen(d: Draw, view: TableView, size: Size) -> None:
    """Whose turn, the round (x/N, or a tie's extra round k of 3) and the time left (mm:ss),
    the phase."""
    w, h = size
    big, round_text = _round_texts(view.clock)
    if view.over:  # the winners, whose names the phase gives, on the player's line; and
        # what starts the next game (controller.table.entry: CONFIRM held at game over)
        phase, name = "GAME OVER", view.phase
        big, round_text = "", NEXT_GAME_KEYS
    else:
        phase, name = view.phase, view.player
    if h < 64:
        left = text_right(d, w, 0, phase)  # whole: a Story square's points are numbers
        text(d, (0, 0), name, left - 4)
        BIG.draw(d, (0, 16), big)  # pages 2-3 exactly
        text_right(d, w, 14, f"T{view.turn}")
        text_right(d, w, 24, round_text)
        return
    turn = text(d, (0, 0), f"TURN {view.turn}", w // 2)
    text_right(d, w, 0, SMALL.fit_marked(phase, w - turn - 4))
    if BIG.width(name) <= w:
        text_centre(d, w, 12, name, BIG)
    else:
        text_centre(d, w, 16, squeeze(name, w))
    d.line((0, 29, w - 1, 29), fill=1)
    # the big clock fills display pages 4-5 exactly, so a tick rewrites only those pages
    text_centre(d, w, 32, big, BIG)
    text_centre(d, w, 53, round_text)


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
        # the endurance is drawn whole and the name cut to what is left: cut at the end of
        # "ANDROID 17 26", the 26 went and the 17 read as the endurance
        half = w // 2 - 2
        for f, line in ((a, "{name} {number}"), (b, "{number} {name}")):
            number = str(f.endurance_left)
            # the line is the name, a gap, then " N": the gap counts too
            name = SMALL.fit_marked(f.name, half - SMALL.width(f" {number}") - GLYPH_GAP)
            shown = line.format(name=name, number=number)
            if f is a:
                text(d, (0, 0), shown, half)
            else:
                text_right(d, w, 0, shown)
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
        text(d, (0, y), fighter_fit(f, left - 4), left - 4)
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
        if a.win_chance is not None:
            extra.append(f"WIN {round(a.win_chance * 100)}%")
        if a.ko_chance is not None:
            extra.append(f"KO {round(a.ko_chance * 100)}%")
        if a.expected_damage is not None:
            extra.append(f"E {round(a.expected_damage)}")
        if extra:
            text_right(d, w, y + 1, SMALL.fit_marked(" ".join(extra), w - x - 2))


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
            _seat_row(d, (x0, y), col - 2, s, i == view.seat and not view.over, compact=True)
        return
    top = 1
    if len(view.seats) <= 5:  # six seats fill the screen without the title
        title_bar(d, w, "TEAMS", f"TURN {view.turn}")
        top = LINE + 1
    for i, s in enumerate(view.seats[:6]):
        _seat_row(d, (0, top + i * LINE), w, s, i == view.seat and not view.over, compact=False)


def _seat_row(
    d: Draw, xy: tuple[int, int], width: int, s: SeatView, current: bool, compact: bool
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
    if compact or s.victory_points is not None:
        wl = f"{s.warriors_left}" if s.victory_points is None else f"{s.victory_points} VP"
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
        mine = index == view.seat and not view.over
        if h < 64:
            text(d, (0, 0), s.name, w - 40)
            if mine:
                d.rectangle((w - 37, 0, w - 1, 9), fill=1)
                text_right(d, w - 2, 1, "TURN", fill=0)
            if s.victory_points is not None:
                text(d, (0, 12), f"{s.victory_points} VICTORY PTS", w)
            else:
                x = pips(d, (0, 12), s.warriors_left, s.warriors_total)
                text(d, (x + 2, 12), f"{s.warriors_left}/{s.warriors_total}", w)
            x = card_icon(d, (0, 23))
            text(d, (x + 1, 23), f"{s.cards_in_hand} CARDS", w)
            return
        if BIG.width(s.name) <= w:
            text_centre(d, w, 0, s.name, BIG)
        else:
            text_centre(d, w, 4, s.name)
        if s.victory_points is not None:
            text(d, (0, 21), f"{s.victory_points} VICTORY POINTS", w)
        else:
            x = pips(d, (0, 20), s.warriors_left, s.warriors_total, h=10)
            text(d, (x + 3, 21), f"{s.warriors_left}/{s.warriors_total} LEFT", w - x)
        x = card_icon(d, (0, 34))
        text(d, (x + 2, 34), f"{s.cards_in_hand} CARDS", w)
        if mine:
            d.rectangle((0, 48, w - 1, 63), fill=1)
            text_centre(d, w, 52, squeeze(f"YOUR TURN: {view.phase}", w - 2), fill=0)
        else:
            said = view.phase if view.over else f"TURN: {view.player}"  # the winners
            text_centre(d, w, 52, squeeze(said, w - 2))

    return draw_seat


def prompt_screen(d: Draw, view: TableView, size: Size) -> None:
    """A question: title, the dice (a cocked die marked) or text, the choices as buttons."""
    w, h = size
    p = view.prompt
    if p is None:
        text_centre(d, w, (h - 8) // 2, "NO QUESTION")
        return
    step = f"{p.step}/{p.steps}" if p.step is not None and p.steps else ""
    if view.faults:  # the errors screen waits behind the question: said it is there
        step = f"! {step}".rstrip()
    title_bar(d, w, p.title.upper() if p.title else PROMPT_TITLES[p.kind], step)
    boxed = h >= 64
    y = LINE + 2 if boxed else LINE + 1
    bottom = h - LINE if p.choices else h
    if p.dice:
        dice_row(
            d, (1, y + (0 if boxed else 1)), p.dice, boxed=boxed, mark=p.die_index, also=p.marked
        )
        y += (DIE_BOX if boxed else ICON_SIZE + 2) + 2
    rows = max(0, (bottom - y - 8) // LINE + 1)
    lines = fit_lines(p.text, w, rows)
    if view.faults:  # the refusal whole where there is room: its second half says what to do
        lines += fit_lines(f"! {view.faults[0].message}", w, rows - len(lines))
    for line in lines:
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
    rows = (h - y - 8) // LINE + 1
    shown = view.faults[:rows]  # each fault gets a line at least: a share of what is left
    for i, f in enumerate(shown):
        share = (rows - (y - LINE - 2) // LINE) // (len(shown) - i)
        for line in fit_lines(f.message, w, share):
            text(d, (0, y), line, w)
            y += LINE
