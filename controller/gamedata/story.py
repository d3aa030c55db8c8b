"""Load and validate the Story-mode squares (docs/rules.md §12).

Format (``story.toml``)::

    invented = true
    [[square]]
    number = 1                              # 1..13, each once
    fights = [["Super Saiyan 3 Son Goku", "Beerus"]]   # [green, red]: a warrior or a form;
                                            # several fights = a choice
    combo = { name = "Spirit Clash", symbols = ["sphere", "sphere", "kick"], damage = 20 }
    points = 2                              # victory points

Every problem is reported at once, naming the file, the square and the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.core.checked import Problems, name_problem
from controller.core.quoting import short_repr
from controller.core.tomlfile import read_toml
from controller.gamedata.combo_symbols import combo_symbols
from controller.gamedata.sources import STORY
from controller.gamedata.warrior_fields import MAX_COMBO_DAMAGE
from controller.rules.scoring import NO_COMBO_OPTION, SUM_OPTION, CardCombo
from controller.rules.warriors import Roster

SQUARES = 13
STORY_FILE = STORY
MULTI_FIGHT_SQUARES = frozenset({2, 5, 6, 8, 11})  # docs/rules.md §12: these offer several fights
_TOP_KEYS = {"invented", "note", "square"}
_SQUARE_KEYS = {"number", "fights", "combo", "points", "name"}
_COMBO_KEYS = {"name", "symbols", "damage"}
MAX_POINTS = 99  # victory points a square gives


@dataclass(frozen=True)
class Square:
    """One Story square: its fights (green, red: each a warrior's or a form's name, as the
    roster spells it), its combo and its victory points."""

    number: int
    fights: tuple[tuple[str, str], ...]
    combo: CardCombo
    points: int
    name: str = ""


@dataclass(frozen=True)
class Story:
    """The 13 squares in order."""

    squares: tuple[Square, ...]
    invented: bool = False
    source: str = ""


def parse_story(data: Mapping[str, Any], file: str, roster: Roster | None = None) -> Story:
    """Build and validate the squares; with ``roster``, the warriors must exist.

    Raises:
        DataError: every problem found, each naming the file, the square and the field.
    """
    problems = Problems(file)
    problems.unknown_keys(data, _TOP_KEYS)
    problems.optional_text(data, "note")
    raw = data.get("square")
    if not isinstance(raw, list) or not raw:
        problems.add("", "square", f"expected {SQUARES} [[square]] tables")
        raise problems.error()
    squares: dict[int, Square] = {}
    for i, entry in enumerate(raw):
        sq = _parse_square(entry, i, file, problems, roster, squares)
        if sq is not None:
            squares[sq.number] = sq
    missing = [n for n in range(1, SQUARES + 1) if n not in squares]
    if missing and not problems:
        problems.add("", "square", f"squares missing: {', '.join(map(str, missing))}")
    invented = data.get("invented", False)
    if not isinstance(invented, bool):  # bool("no") is true
        problems.add("", "invented", f"expected true or false, got {short_repr(invented)}")
    problems.check()
    return Story(tuple(squares[n] for n in range(1, SQUARES + 1)), invented, file)


def _parse_square(
    raw: Any, index: int, file: str, problems: Problems, roster: Roster | None,
    seen: Mapping[int, Square],
) -> Square | None:  # fmt: skip
    entry = f"square #{index + 1}"

    def bad(field: str, message: str) -> None:
        problems.add(entry, field, message)

    if not isinstance(raw, dict):
        bad("", "expected a table")
        return None
    number = raw.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or not 1 <= number <= SQUARES:
        bad("number", f"expected a whole number 1..{SQUARES}, got {short_repr(number)}")
        return None
    entry = f"square {number}"
    before = problems.mark()
    if number in seen:
        bad("number", "duplicate square number")
    problems.unknown_keys(raw, _SQUARE_KEYS, entry)
    fights: list[tuple[str, str]] = []
    raw_fights = raw.get("fights")
    if not isinstance(raw_fights, list) or not raw_fights:
        bad("fights", "expected a list of [green warrior, red warrior] pairs")
        raw_fights = []
    for i, f in enumerate(raw_fights):
        fight = _parse_fight(f, f"fight {i + 1}", roster)
        if isinstance(fight, str):
            bad("fights", fight)
        else:
            fights.append(fight)
    several = number in MULTI_FIGHT_SQUARES
    if raw_fights and several and len(raw_fights) < 2:
        bad("fights", "this square offers several fights (docs/rules.md §12): list at least 2")
    if raw_fights and not several and len(raw_fights) != 1:
        bad("fights", "this square has exactly one fight")
    combo = raw.get("combo")
    card: CardCombo | None = None
    if not isinstance(combo, dict):
        bad("combo", "expected { name = ..., symbols = [...], damage = N }")
    else:
        for key in sorted(set(combo) - _COMBO_KEYS):
            bad("combo", f"unknown key {short_repr(key)}; expected name, symbols, damage")
        symbols = combo_symbols(combo.get("symbols"), problems, entry, "combo")
        damage = combo.get("damage")
        if (
            not isinstance(damage, int)
            or isinstance(damage, bool)
            or not 0 <= damage <= MAX_COMBO_DAMAGE
        ):
            bad(
                "combo",
                f"damage: expected a whole number 0..{MAX_COMBO_DAMAGE}, got {short_repr(damage)}",
            )
            damage = 0
        name = combo.get("name", f"square {number} combo")
        if not isinstance(name, str) or not name.strip():
            bad("combo", f"name: expected the combo's name, got {short_repr(name)}")
        elif (why := name_problem(name) or _combo_clash(name, fights, roster)) is not None:
            bad("combo", f"name: {why}")
        card = CardCombo(str(name).strip(), symbols or (), damage)  # named as it is asked
    points = raw.get("points")
    if not isinstance(points, int) or isinstance(points, bool) or not 1 <= points <= MAX_POINTS:
        bad("points", f"expected a whole number 1..{MAX_POINTS}, got {short_repr(points)}")
    square_name = raw.get("name", "")
    if not isinstance(square_name, str):
        bad("name", f"expected the square's name, got {short_repr(square_name)}")
    elif (why := name_problem(square_name)) is not None:
        bad("name", why)
    if problems.since(before) or card is None or not isinstance(points, int):
        return None
    return Square(number, tuple(fights), card, points, str(square_name))


def _parse_fight(raw: Any, label: str, roster: Roster | None) -> tuple[str, str] | str:
    """(green, red) names of one fight — a warrior or one of its forms, as the roster spells
    it — or what is wrong with it."""
    if not isinstance(raw, list) or len(raw) > 2 or not all(isinstance(x, str) for x in raw):
        return f"{label}: expected [green warrior, red warrior], got {short_repr(raw)}"
    sides = [x.strip() for x in raw] + [""] * (2 - len(raw))
    for side, name in zip(("green", "red"), sides, strict=True):
        if not name:
            return f"{label} has no {side} warrior: expected [green warrior, red warrior]"
    if roster is None:
        return (sides[0], sides[1])
    names: list[str] = []
    owners: list[str] = []
    for name in sides:
        try:
            warrior, form = roster.find(name)
        except KeyError as exc:
            return f"{label}: {_unknown_form(name, roster) or exc}"
        names.append(form.name if form is not None else warrior.name)
        owners.append(warrior.name)
    if owners[0] == owners[1]:
        return f"{label}: {owners[0]} cannot fight himself"
    return (names[0], names[1])


def _combo_clash(name: str, fights: list[tuple[str, str]], roster: Roster | None) -> str | None:
    """Why a square's combo may not be called ``name``: a player names the option they
    score, so the name must be the square combo's alone, not the symbol sum's nor a combo
    of a warrior fighting on the square (B l.188: either a combo of the warrior's card, or
    the square's)."""
    key = name.strip().casefold()
    if key in (SUM_OPTION, NO_COMBO_OPTION):
        return f"{short_repr(name)} names another option (the symbol sum, or no combo)"
    if roster is None:
        return None
    for side in (side for fight in fights for side in fight):
        warrior, form = roster.find(side)
        combos = form.combos if form is not None and form.combos is not None else warrior.combos
        if any(combo.name.strip().casefold() == key for combo in combos):
            return (
                f"{short_repr(name)} is also a combo of {side}, who fights on this square: "
                "which one a player scores could not be told; name the square's combo otherwise"
            )
    return None


def _unknown_form(name: str, roster: Roster) -> str | None:
    """The problem with ``name`` when it names a form a known warrior does not have."""
    key = name.casefold()
    for warrior in roster.values():
        if key.endswith(" " + warrior.name.casefold()):
            forms = ", ".join(f.name for f in warrior.forms) or "none"
            return f"unknown form {short_repr(name)} of {warrior.name} (its forms: {forms})"
    return None


def load_story(path: str | Path, roster: Roster | None = None) -> Story:
    """Load and validate a story file.

    Raises:
        DataError: missing, not TOML, or invalid squares.
    """
    path = Path(path)
    data = read_toml(path)
    return parse_story(data, str(path), roster)
