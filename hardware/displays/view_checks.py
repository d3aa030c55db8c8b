"""Cross-field checks of a view file's :class:`TableView`: what no single field can say.

:func:`~hardware.displays.view_json.view_from_dict` reads each field on its own (type,
range, length); once every field is right, :func:`check_view` notes in the same
:class:`~controller.core.checked.Problems` what only fields together show wrong: a
seat that does not exist, a player who is not that seat's, a roll past the last, a
die the advisor keeps that the dice do not show. The game's own views
(:func:`controller.table.view.build_view`) pass every check.
"""

from __future__ import annotations

from collections import Counter

from controller.core.checked import Problems
from controller.core.game_limits import MAX_EXTRA_ROUNDS
from hardware.displays.model import AdviceView, Clock, CombatView, Prompt, PromptKind, TableView


def check_view(view: TableView, problems: Problems) -> None:
    """Note in ``problems`` each cross-field problem of ``view`` (its fields each right)."""
    _seats(view, problems)
    _clock(view.clock, problems)
    if view.combat is not None:
        _combat(view.combat, problems)
    if view.prompt is not None:
        _prompt(view.prompt, problems)


def _clock(c: Clock, problems: Problems) -> None:
    rounds = c.rounds  # (a tie plays extra rounds past the last)
    if rounds is not None and c.round_no > rounds + MAX_EXTRA_ROUNDS:
        problems.add(
            "clock",
            "round_no",
            f"{c.round_no} is past rounds={rounds} and the {MAX_EXTRA_ROUNDS} extra "
            "rounds of a tie",
        )
    elif rounds is not None and c.extra_round is not None and c.round_no != rounds + c.extra_round:
        # the game's extra round k is round rounds+k (a 45-minute game's has no last round)
        problems.add(
            "clock",
            "extra_round",
            f"{c.extra_round} but round_no={c.round_no} is not rounds={rounds} + {c.extra_round}",
        )


def _seats(view: TableView, problems: Problems) -> None:
    seats = view.seats
    if seats and view.seat >= len(seats):
        problems.add("", "seat", f"{view.seat} but only {len(seats)} seats (numbered from 0)")
    elif seats and view.player != seats[view.seat].name:
        # the game names the player whose seat it is (controller/table/view.py)
        problems.add(
            "", "player", f"{view.player!r} but seats[{view.seat}] is {seats[view.seat].name!r}"
        )
    first: dict[str, int] = {}
    for i, s in enumerate(seats):
        if s.warriors_left > s.warriors_total:
            problems.add(
                f"seats[{i}]",
                "warriors_left",
                f"{s.warriors_left} > warriors_total={s.warriors_total}",
            )
        if s.name in first:  # the game refuses two players of one name
            problems.add(f"seats[{i}]", "name", f"{s.name!r} is seats[{first[s.name]}]'s name too")
        first.setdefault(s.name, i)


def _combat(c: CombatView, problems: Problems) -> None:
    for who, f in (("attacker", c.attacker), ("defender", c.defender)):
        if f.endurance_left > f.endurance_max:
            problems.add(
                f"combat.{who}",
                "endurance_left",
                f"{f.endurance_left} > endurance_max={f.endurance_max}",
            )
    if c.roll_no > c.rolls_max:
        problems.add("combat", "roll_no", f"{c.roll_no} > rolls_max={c.rolls_max}")
    seen = set()
    for i, d in enumerate(c.defences):
        if d in seen:
            problems.add("combat", f"defences[{i}]", f"{d.value!r} is listed twice")
        seen.add(d)
    if c.advice is not None:
        _keep(c.advice, c, problems)


def _keep(advice: AdviceView, c: CombatView, problems: Problems) -> None:
    """The advisor keeps dice of the throw on show: none the dice do not show."""
    shown = Counter(c.dice)
    for symbol, n in Counter(advice.keep).items():
        if n > shown[symbol]:
            problems.add(
                "combat.advice",
                "keep",
                f"keeps {n} {symbol.value} but combat.dice shows {shown[symbol]}",
            )


def _prompt(p: Prompt, problems: Problems) -> None:
    if not p.choices and p.kind is not PromptKind.CHOOSE:
        # the table asks these with buttons (controller/table/view.py); only a plain
        # choice, such as a pause, may offer none
        problems.add("prompt", "choices", f"a {p.kind.value} prompt offers its choices; got none")
    if p.choices and p.selected >= len(p.choices):
        problems.add("prompt", "selected", f"{p.selected} but only {len(p.choices)} choices")
    if p.die_index is not None and p.die_index >= len(p.dice):
        problems.add("prompt", "die_index", f"{p.die_index} but only {len(p.dice)} dice")
    if any(i >= len(p.dice) for i in p.marked):
        problems.add("prompt", "marked", f"{max(p.marked)} but only {len(p.dice)} dice")
    if p.step is not None and p.steps is not None and p.step > p.steps:
        problems.add("prompt", "step", f"{p.step} > steps={p.steps}")
