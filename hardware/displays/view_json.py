"""Read a :class:`TableView` from JSON (``toptable screens --state``, tests), every problem at
once; and write one (:func:`view_to_dict`) as the loader reads it back.

The loader notes every problem in the one collector
(:class:`~controller.core.checked.Problems`) and reports them together, naming the
file, the entry and the field. Each field is read on its own here (type, range,
length: a number, a list or a text the screens could not draw in time, or at all, is
refused); :mod:`hardware.displays.view_checks` then checks the fields together.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from controller.core.checked import Problems, name_problem
from controller.core.game_limits import MAX_EXTRA_ROUNDS
from controller.core.jsonfile import read_json
from controller.core.quoting import short_repr
from controller.core.symbols import MAX_POOL, AttackSpeed, Defence, Symbol
from hardware.displays.model import (
    AdviceView,
    AttackOption,
    Clock,
    CombatView,
    Fault,
    FighterView,
    Prompt,
    PromptKind,
    SeatView,
    TableView,
)
from hardware.displays.view_checks import check_view

T = TypeVar("T")

DEFENCE_SPELLING: Mapping[str, Defence] = {
    "defence_card": Defence.DEFENCE_CARDS,
    "any_card": Defence.ANY_CARDS,
    "dodge": Defence.DODGE,
}
"""How a view file names the defences allowed (its own words since the first release)."""
E = TypeVar("E", bound=StrEnum)

MAX_NUMBER = 9_999
"""The largest whole number a view file may give (a turn, cards, endurance, damage...): the
game's stay under 1,000 (endurance at most 99, a combo's damage at most 999); a larger one is
a slip (milliseconds, a timestamp) the screens have no room for."""
MAX_SECONDS = 24 * 60 * 60
"""The most time the clock may show: a day (the timed game lasts 45 minutes)."""
MAX_WARRIORS = 6
"""Warriors in a team (6, or 4 in the short game: ``GameConfig.team_size``); one pip each. A
seat has none before the teams are drawn, nor in Story mode (its victory points instead)."""
MAX_TEXT = 500
"""Characters in one text: a 128x64 screen shows six lines of about 21; drawing a longer one
only takes time (a million-character phase took 30 s)."""
MAX_SEATS = 6
"""A game seats 2 to 6 players (``MAX_PLAYERS`` in :mod:`controller.game.state`, which the
hardware does not import); the teams screen lists six, and each seat adds a screen."""
MAX_CHOICES = 4
"""Buttons share one 128-px line: four leave each 27 px, a word like NEXT (65 raised in PIL)."""
MAX_ITEMS = 99
"""Options or faults: far more than a screen lists (three options, five lines of faults)."""
Cap = tuple[int, str, str]
"""A list's most items, its noun and why, as ``N NOUN; WHY`` words a longer one."""
DICE: Cap = (MAX_POOL, "dice", f"a pool holds at most {MAX_POOL}")
SEATS: Cap = (MAX_SEATS, "seats", f"a game seats at most {MAX_SEATS} players")
CHOICES: Cap = (MAX_CHOICES, "choices", f"at most {MAX_CHOICES} buttons fit on a screen")
DEFENCES: Cap = (len(DEFENCE_SPELLING), "defences", f"there are {len(DEFENCE_SPELLING)}")
OPTIONS: Cap = (MAX_ITEMS, "options", f"expected at most {MAX_ITEMS}")
FAULTS: Cap = (MAX_ITEMS, "faults", f"expected at most {MAX_ITEMS}")


def _kind(value: Any) -> str:
    """``value``'s JSON kind, as a problem names it."""
    if value is None or isinstance(value, bool):
        return "null" if value is None else str(value).lower()
    if isinstance(value, dict | list | str):
        return {dict: "an object", list: "a list", str: "text"}[type(value)]
    return "a number"


class _BadFieldError(Exception):
    """Internal: a field was wrong and a problem has been recorded."""


def _read(value: T | None) -> T:
    """A value a :class:`Problems` helper read (None: it noted the problem)."""
    if value is None:
        raise _BadFieldError()
    return value


class _Reader:
    """Reads typed fields out of nested JSON objects, noting every problem."""

    def __init__(self, file: str) -> None:
        self.problems = Problems(file)

    def fail(self, entry: str, name: str, message: str) -> _BadFieldError:
        self.problems.add(entry, name, message)
        return _BadFieldError()

    def obj(
        self, value: Any, entry: str, name: str, known: set[str], where: str
    ) -> Mapping[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(entry, name, f"expected an object, got {_kind(value)}")
        self.problems.unknown_keys(value, known, where)
        return value

    def get(
        self,
        data: Mapping[str, Any],
        entry: str,
        name: str,
        parse: Callable[[Any, str, str], T],
        default: Any = ...,
    ) -> Any:
        if name not in data:
            if default is ...:
                self.problems.missing(entry, name)
                raise _BadFieldError()
            return default
        if data[name] is None and default is None:
            return None
        return parse(data[name], entry, name)

    def int_(self, lo: int = 0, hi: int = MAX_NUMBER) -> Callable[[Any, str, str], int]:
        def parse(v: Any, entry: str, name: str) -> int:
            return _read(self.problems.whole_number(v, entry, name, lo, hi))

        return parse

    def str_(self, v: Any, entry: str, name: str) -> str:
        text = _read(self.problems.text(v, entry, name))
        if len(text) > MAX_TEXT:
            raise self.fail(entry, name, f"expected at most {MAX_TEXT} characters, got {len(text)}")
        return text

    def name_(self, v: Any, entry: str, name: str) -> str:
        """Text a person reads as a name or a label: not blank, no NUL character."""
        text = self.str_(v, entry, name)
        if not text.strip():
            raise self.fail(entry, name, f"expected a non-empty string, got {short_repr(text)}")
        if (why := name_problem(text)) is not None:
            raise self.fail(entry, name, why)
        return text

    def bool_(self, v: Any, entry: str, name: str) -> bool:
        return _read(self.problems.boolean(v, entry, name))

    def prob(self, v: Any, entry: str, name: str) -> float:
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1:
            raise self.fail(entry, name, f"expected a number from 0 to 1, got {short_repr(v)}")
        return float(v)

    def num(self, v: Any, entry: str, name: str) -> float:
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= MAX_NUMBER:
            # (NaN fails the range too: JSON's NaN and Infinity are Python's)
            raise self.fail(
                entry, name, f"expected a number from 0 to {MAX_NUMBER}, got {short_repr(v)}"
            )
        return float(v)

    def spelled(self, names: Mapping[str, T]) -> Callable[[Any, str, str], T]:
        def parse(v: Any, entry: str, name: str) -> T:
            if isinstance(v, str) and v in names:
                return names[v]
            raise self.fail(entry, name, f"expected one of {', '.join(names)}, got {short_repr(v)}")

        return parse

    def enum(self, kind: type[E]) -> Callable[[Any, str, str], E]:
        def parse(v: Any, entry: str, name: str) -> E:
            return _read(self.problems.choice(v, kind, entry, name))

        return parse

    def list_(
        self, item: Callable[[Any, str, str], T], cap: Cap
    ) -> Callable[[Any, str, str], tuple[T, ...]]:
        def parse(v: Any, entry: str, name: str) -> tuple[T, ...]:
            if not isinstance(v, list):
                raise self.fail(entry, name, f"expected a list, got {_kind(v)}")
            most, noun, why = cap
            if len(v) > most:  # before the items: ten thousand wrong ones are one problem
                raise self.fail(entry, name, f"{len(v)} {noun}; {why}")
            out: list[T] = []
            bad = False
            for i, x in enumerate(v):
                try:
                    out.append(item(x, entry, f"{name}[{i}]"))
                except _BadFieldError:
                    bad = True
            if bad:
                raise _BadFieldError()
            return tuple(out)

        return parse


def _fields(
    r: _Reader, d: Mapping[str, Any], entry: str, spec: dict[str, tuple[Any, ...]]
) -> dict[str, Any]:
    """Read every field in ``spec`` (name -> (parser,) or (parser, default)); raise _BadFieldError at the end."""
    out: dict[str, Any] = {}
    bad = False
    for name, (parse, *default) in spec.items():
        try:
            out[name] = r.get(d, entry, name, parse, *default)
        except _BadFieldError:
            bad = True
    if bad:
        raise _BadFieldError()
    return out


def _object(
    kind: type[T], spec_of: Callable[[_Reader], dict[str, tuple[Any, ...]]]
) -> Callable[[_Reader], Callable[[Any, str, str], T]]:
    """A parser factory reading a JSON object into the dataclass ``kind``."""

    def bind(r: _Reader) -> Callable[[Any, str, str], T]:
        def parse(v: Any, entry: str, name: str) -> T:
            where = f"{entry}.{name}" if entry else name
            spec = spec_of(r)
            data = r.obj(v, entry, name, set(spec), where)
            return kind(**_fields(r, data, where, spec))

        return parse

    return bind


_clock = _object(
    Clock,
    lambda r: {
        "round_no": (r.int_(1),),
        "rounds": (r.int_(1), None),
        "seconds_left": (r.int_(0, MAX_SECONDS), None),
        # a tie's extra round (the engine's count); a view from before the field has none
        "extra_round": (r.int_(1, MAX_EXTRA_ROUNDS), None),
    },
)
_fighter = _object(
    FighterView,
    lambda r: {
        "name": (r.name_,),
        "endurance_left": (r.int_(0),),
        "endurance_max": (r.int_(1),),
        "form": (r.name_, None),
    },
)
_option = _object(
    AttackOption,
    lambda r: {
        "label": (r.name_,),
        "damage": (r.int_(0),),
        "best": (r.bool_, False),
    },
)
_advice = _object(
    AdviceView,
    lambda r: {
        "keep": (r.list_(r.enum(Symbol), DICE), ()),
        "ko_chance": (r.prob, None),
        "expected_damage": (r.num, None),
        "win_chance": (r.prob, None),
    },
)
_combat = _object(
    CombatView,
    lambda r: {
        "attacker": (_fighter(r),),
        "defender": (_fighter(r),),
        "dice": (r.list_(r.enum(Symbol), DICE), ()),
        "roll_no": (r.int_(1), 1),
        "rolls_max": (r.int_(1), 1),
        "options": (r.list_(_option(r), OPTIONS), ()),
        "speed": (r.enum(AttackSpeed), None),
        "defences": (r.list_(r.spelled(DEFENCE_SPELLING), DEFENCES), ()),
        "advice": (_advice(r), None),
    },
)
_seat = _object(
    SeatView,
    lambda r: {
        "name": (r.name_,),
        "warriors_left": (r.int_(0),),
        "warriors_total": (r.int_(0, MAX_WARRIORS),),  # 0: no team yet, or Story mode
        "cards_in_hand": (r.int_(0), 0),
        "victory_points": (r.int_(0), None),
    },
)
_prompt = _object(
    Prompt,
    lambda r: {
        "kind": (r.enum(PromptKind),),
        "text": (r.str_,),
        "choices": (r.list_(r.name_, CHOICES), ()),
        "selected": (r.int_(0), 0),
        "dice": (r.list_(r.enum(Symbol), DICE), ()),
        "die_index": (r.int_(0), None),
        "marked": (r.list_(r.int_(0), DICE), ()),
        "step": (r.int_(1), None),
        "steps": (r.int_(1), None),
        "title": (r.str_, ""),
    },
)
_fault = _object(Fault, lambda r: {"source": (r.name_,), "message": (r.str_,)})
_view = _object(
    TableView,
    lambda r: {
        "turn": (r.int_(1),),
        "seat": (r.int_(0),),
        "player": (r.name_,),
        "clock": (_clock(r),),
        "phase": (r.name_,),
        "seats": (r.list_(_seat(r), SEATS), ()),
        "combat": (_combat(r), None),
        "prompt": (_prompt(r), None),
        "faults": (r.list_(_fault(r), FAULTS), ()),
        "over": (r.bool_, False),
    },
)


def view_from_dict(data: Any, file: str = "<state>") -> TableView:
    """Build a :class:`TableView` from parsed JSON.

    Raises:
        DataError: every problem found, each naming ``file``, the entry and the field.
    """
    r = _Reader(file)
    try:
        view = _view(r)(data, "", "")
    except _BadFieldError:
        view = None
    if view is not None:
        check_view(view, r.problems)
    return r.problems.checked(view)


def load_view(path: str | Path) -> TableView:
    """Read a :class:`TableView` from a JSON file.

    Raises:
        DataError: the file is unreadable, is not JSON, or has wrong fields (all listed).
    """
    p = Path(path)
    return view_from_dict(read_json(p), str(p))


def view_to_dict(view: TableView) -> dict[str, Any]:
    """``view`` as a JSON object (what ``json.dumps`` writes) that :func:`view_from_dict`
    reads back as ``view``: the defences in the file's spelling (:data:`DEFENCE_SPELLING`;
    ``none``, no answer, is the empty list). Nothing is raised."""
    data = dataclasses.asdict(view)
    if view.combat is not None:
        spelling = {defence: word for word, defence in DEFENCE_SPELLING.items()}
        data["combat"]["defences"] = [spelling[d] for d in view.combat.defences if d in spelling]
    return data


EXAMPLE_STATE = Path(__file__).with_name("example_state.json")
"""The bundled example state: a fight in progress (used by tests and the README gallery)."""
