"""The screens of the companion modes (issue 15): another card game's numbers at the table.

:class:`CompanionView` is what a companion table publishes for its displays, typed
and already worded by the mode (this package knows no mode): the mode's title, the
step, whose turn, each player's numbers written short (e.g. ``L16 E2``), the question
being asked with the buttons (which action, then each of its values), and the last
refusal with the rule that forbids it. Its screens draw it on a 1-bit canvas
with the dice table's font and helpers, at 128x64 and 128x32:

* ``status`` -- the step, every player's numbers, whose turn (inverted), who is out;
* ``choice`` -- who is asked what, and the values ``next`` steps through;
* ``refusal`` -- the action the rules refused, why, and the rule.

:func:`companion_cases` gives the gallery every screen of an example view of each mode
(plus a refusal and a finished game) at every size.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from PIL import Image, ImageDraw

from hardware.displays.draw import LINE, Draw, Size, text, text_centre, text_right, title_bar, wrap
from hardware.displays.font import SMALL
from hardware.displays.renderers import NEXT_GAME_KEYS, NEXT_GAME_SAID


@dataclass(frozen=True)
class CompanionSeat:
    """One player: name, numbers written short (``L16 E2``), turn/out flags."""

    name: str
    numbers: str
    short: str = ""  # the one number that matters most, for 128x32
    turn: bool = False
    out: bool = False


@dataclass(frozen=True)
class CompanionRefusal:
    """An action the rules refused: what was tried, why, and the rule's name."""

    action: str
    reason: str
    rule: str


@dataclass(frozen=True)
class CompanionView:
    """What a companion table shows. ``title`` is the mode's short name (the title bar);
    ``question`` is ``action`` or the field being asked."""

    title: str
    step: str
    turn: str | None
    seats: tuple[CompanionSeat, ...]
    player: str | None = None  # who is offered the choice
    question: str = "action"
    action: str = ""  # the action being entered ("" while the action is chosen)
    options: tuple[str, ...] = ()
    selected: int = 0
    refusal: CompanionRefusal | None = None
    winner: str | None = None
    last: str = ""  # the last action done, as a short line
    paused: bool = False  # the table stopped; the game resumes when it starts again
    next_game: bool = False  # stopped by CONFIRM held once the game was won: the next starts


CompanionScreen = Callable[[Draw, CompanionView, Size], None]


def _label(s: str) -> str:
    return s.replace("_", " ")


def _question(key: str) -> str:
    """A field key as a question: ``values.Ann`` -> ``ANN'S DIE``, ``base_cost`` -> ``BASE COST``."""
    field, _, who = key.partition(".")
    return f"{who}'s die" if who and field == "values" else _label(f"{who} {field}" if who else key)


def status_screen(d: Draw, view: CompanionView, size: Size) -> None:
    """The step, every player's numbers, the turn player inverted, the winner once known."""
    w, h = size
    right = _status_word(view)
    title_bar(d, w, view.title, right)
    if h < 64:  # two columns of name + the main number
        col = w // 2
        for i, s in enumerate(view.seats[:4]):
            x0, y = (i % 2) * col, LINE + 1 + (i // 2) * (LINE + 1)
            _seat_line(d, (x0, y), col - 2, s, s.short or s.numbers)
        return
    rows = view.seats[: (h - LINE - 1) // LINE]
    for i, s in enumerate(rows):
        _seat_line(d, (0, LINE + 1 + i * LINE), w, s, s.numbers)
    if view.last and LINE + 1 + (len(rows) + 1) * LINE < h - LINE:  # room for the last action
        d.line((0, h - LINE - 2, w - 1, h - LINE - 2), fill=1)
        text(d, (0, h - LINE + 1), view.last, w)


def _status_word(view: CompanionView) -> str:
    if view.paused:
        return "NEXT GAME" if view.next_game else "PAUSED"
    return f"WON {view.winner}" if view.winner else _label(view.step)


def _seat_line(d: Draw, xy: tuple[int, int], width: int, s: CompanionSeat, numbers: str) -> None:
    x0, y = xy
    fill = 0 if s.turn else 1
    if s.turn:
        d.rectangle((x0, y, x0 + width - 1, y + 9), fill=1)
    shown = "OUT" if s.out else numbers
    left = text_right(d, x0 + width - 1, y + 1, SMALL.fit(shown, width * 2 // 3), fill=fill)
    text(d, (x0 + 1, y + 1), s.name, left - x0 - 4, fill=fill)
    if s.out:
        d.line((x0 + 1, y + 5, left - 3, y + 5), fill=fill)


def choice_screen(d: Draw, view: CompanionView, size: Size) -> None:
    """Who is asked what; the values, the selected one inverted (``next`` moves, ``confirm`` takes)."""
    w, h = size
    if view.paused:
        word = _status_word(view)
        title_bar(d, w, view.title, word)
        text_centre(d, w, LINE + 4, word)
        if h >= 64:
            said = NEXT_GAME_SAID if view.next_game else (
                "the game resumes when the table starts again")  # fmt: skip
            for i, line in enumerate(wrap(said, w)):
                text(d, (0, LINE + 16 + i * LINE), line, w)
        return
    if view.winner:  # who won, the last action's line, and how the next game starts
        title_bar(d, w, view.title, "OVER")
        text_centre(d, w, LINE + 4, f"{view.winner} WINS")
        last = wrap(view.last, w)[:2] if h >= 64 else []
        for i, line in enumerate([*last, NEXT_GAME_KEYS]):
            text(d, (0, LINE + (16 if h >= 64 else 14) + i * LINE), line, w)
        return
    if not view.options:
        title_bar(d, w, view.title, _label(view.step))
        text_centre(d, w, LINE + 4, "NOTHING TO DO")
        return
    who = view.player or ""
    asked = _label(view.action) if view.action else "ACTION?"
    n = len(view.options)
    sel = view.selected % n
    title_bar(d, w, who, f"{sel + 1}/{n}" if h >= 64 else "")
    if h < 64:
        question = asked if not view.action else f"{asked}: {_question(view.question)}"
        text(d, (0, LINE + 1), question, w)
        y = LINE * 2 + 2
        d.rectangle((0, y - 1, w - 1, y + 9), fill=1)
        text(d, (2, y), f"< {_label(view.options[sel])} >", w - 28, fill=0)
        text_right(d, w - 2, y, f"{sel + 1}/{n}", fill=0)
        return
    question = f"{asked} {_question(view.question)}?" if view.action else asked
    text(d, (0, LINE + 1), question, w)
    lines = (h - 2 * LINE - 2) // LINE
    first = min(max(0, sel - lines // 2), max(0, n - lines))
    for row, i in enumerate(range(first, min(n, first + lines))):
        y = 2 * LINE + 2 + row * LINE
        chosen = i == sel
        if chosen:
            d.rectangle((0, y - 1, w - 1, y + 8), fill=1)
        text(d, (4, y), _label(view.options[i]), w - 8, fill=0 if chosen else 1)


def refusal_screen(d: Draw, view: CompanionView, size: Size) -> None:
    """The refused action, the reason, and the rule that forbids it."""
    w, h = size
    r = view.refusal
    if r is None:
        text_centre(d, w, (h - 8) // 2, "NO REFUSAL")
        return
    title_bar(d, w, f"! {_label(r.action)}", "NO")
    y = LINE + 2
    lines = wrap(r.reason, w)
    if h >= 64:
        lines += wrap(f"RULE: {r.rule}", w)
    for line in lines:
        if y + 8 > h:
            break
        text(d, (0, y), line, w)
        y += LINE


SCREENS: dict[str, CompanionScreen] = {
    "status": status_screen,
    "choice": choice_screen,
    "refusal": refusal_screen,
}
"""The companion screens by name."""


def pick_screen(view: CompanionView, preferred: str) -> str:
    """What a display set to ``preferred`` shows: a refusal takes it until the next press."""
    return "refusal" if view.refusal is not None and not view.paused else preferred


def screen_for(view: CompanionView, display_screen: str) -> str:
    """The companion screen a display configured for the dice table's ``display_screen``
    draws: the choice on the ``combat`` display, the numbers on the others (a refusal
    takes every display)."""
    return pick_screen(view, "choice" if display_screen == "combat" else "status")


def render(view: CompanionView, name: str, size: Size = (128, 64)) -> Image.Image:
    """Draw companion screen ``name`` into a new 1-bit image (KeyError: no such screen)."""
    image = Image.new("1", size)
    SCREENS[name](ImageDraw.Draw(image), view, size)
    return image


def show(device: object, view: CompanionView, name: str) -> None:
    """Draw companion screen ``name`` on a luma device."""
    from luma.core.render import canvas

    size: Size = device.size  # type: ignore[attr-defined]
    with canvas(device) as draw:
        SCREENS[name](draw, view, size)


# --- the gallery -----------------------------------------------------------------------------

EXAMPLES: dict[str, CompanionView] = {
    "dbs-tournament": CompanionView(
        title="DBS TOP",
        step="turn",
        turn="Bob",
        seats=(
            CompanionSeat("Ann", "L11 E2 C", "L11"),
            CompanionSeat("Bob", "L16 E1 C+2", "L16", turn=True),
            CompanionSeat("Cid", "L0 E2", "L0", out=True),
            CompanionSeat("Dee", "L7 E2 C", "L7"),
        ),
        player="Bob",
        question="target",
        action="attack",
        options=("Ann", "Dee"),
        selected=1,
        last="Cid: damage 5",
    ),
    "dbz-tcg": CompanionView(
        title="DBZ TCG",
        step="combat",
        turn="Goku",
        seats=(
            CompanionSeat("Goku", "1/7 A2 L41 DB3", "L41", turn=True),
            CompanionSeat("Vegeta", "2/4 A0 L35 DB1", "L35"),
        ),
        player="Vegeta",
        question="amount",
        action="life_damage",
        options=tuple(str(n) for n in range(1, 11)),
        selected=4,
        last="Vegeta: physical attack",
    ),
    "challengers": CompanionView(
        title="CHALLENGERS",
        step="round 4",
        turn=None,
        seats=(
            CompanionSeat("Ann", "F9 T3", "F9"),
            CompanionSeat("Bob", "F4 T1", "F4"),
            CompanionSeat("Cid", "F6 T2", "F6"),
            CompanionSeat("Dee", "F2 T0", "F2"),
        ),
        player="Ann",
        options=("fans", "first_player", "match"),
        selected=2,
        last="Cid: match round 3",
    ),
}
"""One example view of each mode (the gallery's and the README's)."""


def example_variants() -> dict[str, CompanionView]:
    """Every example, plus a refusal and a finished game, by label."""
    out = {f"companion-{m}": v for m, v in EXAMPLES.items()}
    dbs = EXAMPLES["dbs-tournament"]
    out["companion-refusal"] = dataclasses.replace(
        dbs,
        refusal=CompanionRefusal(
            "counter_order",
            "a [Counter: Play] window has no target",
            "Skill Rules: Counter Windows",
        ),
    )
    over = EXAMPLES["challengers"]
    out["companion-over"] = dataclasses.replace(
        over, step="over", winner="Ann", options=(), last="Ann: final, winner Ann"
    )
    return out


@dataclass(frozen=True)
class CompanionCase:
    """One companion screen of one view at one size (a gallery case)."""

    name: str
    view: CompanionView
    screen: str
    size: Size

    def render(self) -> Image.Image:
        """The 1-bit image of this case."""
        return render(self.view, self.screen, self.size)


def companion_cases(
    sizes: tuple[Size, ...] = ((128, 64), (128, 32)),
) -> list[CompanionCase]:
    """Every companion screen of every example, at every size."""
    return [
        CompanionCase(f"{label}-{screen}_{w}x{h}", view, screen, (w, h))
        for label, view in example_variants().items()
        for screen in SCREENS
        for (w, h) in sizes
        if (screen == "refusal") == (view.refusal is not None)
    ]


def readme_picture(view: CompanionView, scale: int = 3) -> Image.Image:
    """The numbers and the choice side by side at 128x64, scaled (the README's picture)."""
    left, right = render(view, "status"), render(view, pick_screen(view, "choice"))
    sheet = Image.new("L", (left.width * 2 + 4, left.height), 96)
    sheet.paste(left.convert("L"), (0, 0))
    sheet.paste(right.convert("L"), (left.width + 4, 0))
    return sheet.resize((sheet.width * scale, sheet.height * scale), Image.Resampling.NEAREST)


def write_readme_pictures(out: Path, scale: int = 3) -> list[Path]:
    """Write ``companion-MODE.png`` for every mode's example view into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for mode, view in EXAMPLES.items():
        path = out / f"companion-{mode}.png"
        readme_picture(view, scale).save(path)
        written.append(path)
    return written
