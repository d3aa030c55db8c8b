"""Read a :class:`TableView` from JSON (``toptable screens --state``, tests), every problem at once.

The loader notes every problem in the one collector
(:class:`~controller.core.checked.Problems`) and reports them together, naming the
file, the entry and the field.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from controller.core.checked import Problems
from controller.core.jsonfile import read_json
from controller.core.symbols import AttackSpeed, Defence, Symbol
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

T = TypeVar("T")

DEFENCE_SPELLING: Mapping[str, Defence] = {
    "defence_card": Defence.DEFENCE_CARDS,
    "any_card": Defence.ANY_CARDS,
    "dodge": Defence.DODGE,
}
"""How a view file names the defences allowed (its own words since the first release)."""
E = TypeVar("E", bound=StrEnum)


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
            raise self.fail(entry, name, f"expected an object, got {type(value).__name__}")
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

    def int_(self, lo: int = 0) -> Callable[[Any, str, str], int]:
        def parse(v: Any, entry: str, name: str) -> int:
            return _read(self.problems.whole_number(v, entry, name, lo))

        return parse

    def str_(self, v: Any, entry: str, name: str) -> str:
        return _read(self.problems.text(v, entry, name))

    def bool_(self, v: Any, entry: str, name: str) -> bool:
        return _read(self.problems.boolean(v, entry, name))

    def prob(self, v: Any, entry: str, name: str) -> float:
        if isinstance(v, bool) or not isinstance(v, int | float) or not 0 <= v <= 1:
            raise self.fail(entry, name, f"expected a number from 0 to 1, got {v!r}")
        return float(v)

    def num(self, v: Any, entry: str, name: str) -> float:
        if isinstance(v, bool) or not isinstance(v, int | float) or v < 0:
            raise self.fail(entry, name, f"expected a number >= 0, got {v!r}")
        return float(v)

    def spelled(self, names: Mapping[str, T]) -> Callable[[Any, str, str], T]:
        def parse(v: Any, entry: str, name: str) -> T:
            if isinstance(v, str) and v in names:
                return names[v]
            raise self.fail(entry, name, f"expected one of {', '.join(names)}, got {v!r}")

        return parse

    def enum(self, kind: type[E]) -> Callable[[Any, str, str], E]:
        def parse(v: Any, entry: str, name: str) -> E:
            return _read(self.problems.choice(v, kind, entry, name))

        return parse

    def list_(self, item: Callable[[Any, str, str], T]) -> Callable[[Any, str, str], tuple[T, ...]]:
        def parse(v: Any, entry: str, name: str) -> tuple[T, ...]:
            if not isinstance(v, list):
                raise self.fail(entry, name, f"expected a list, got {type(v).__name__}")
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
        "seconds_left": (r.int_(0), None),
    },
)
_fighter = _object(
    FighterView,
    lambda r: {
        "name": (r.str_,),
        "endurance_left": (r.int_(0),),
        "endurance_max": (r.int_(1),),
        "form": (r.str_, None),
    },
)
_option = _object(
    AttackOption,
    lambda r: {
        "label": (r.str_,),
        "damage": (r.int_(0),),
        "best": (r.bool_, False),
    },
)
_advice = _object(
    AdviceView,
    lambda r: {
        "keep": (r.list_(r.enum(Symbol)), ()),
        "ko_chance": (r.prob, None),
        "expected_damage": (r.num, None),
    },
)
_combat = _object(
    CombatView,
    lambda r: {
        "attacker": (_fighter(r),),
        "defender": (_fighter(r),),
        "dice": (r.list_(r.enum(Symbol)), ()),
        "roll_no": (r.int_(1), 1),
        "rolls_max": (r.int_(1), 1),
        "options": (r.list_(_option(r)), ()),
        "speed": (r.enum(AttackSpeed), None),
        "defences": (r.list_(r.spelled(DEFENCE_SPELLING)), ()),
        "advice": (_advice(r), None),
    },
)
_seat = _object(
    SeatView,
    lambda r: {
        "name": (r.str_,),
        "warriors_left": (r.int_(0),),
        "warriors_total": (r.int_(1),),
        "cards_in_hand": (r.int_(0), 0),
        "victory_points": (r.int_(0), None),
    },
)
_prompt = _object(
    Prompt,
    lambda r: {
        "kind": (r.enum(PromptKind),),
        "text": (r.str_,),
        "choices": (r.list_(r.str_), ()),
        "selected": (r.int_(0), 0),
        "dice": (r.list_(r.enum(Symbol)), ()),
        "die_index": (r.int_(0), None),
        "step": (r.int_(1), None),
        "steps": (r.int_(1), None),
        "title": (r.str_, ""),
    },
)
_fault = _object(Fault, lambda r: {"source": (r.str_,), "message": (r.str_,)})
_view = _object(
    TableView,
    lambda r: {
        "turn": (r.int_(1),),
        "seat": (r.int_(0),),
        "player": (r.str_,),
        "clock": (_clock(r),),
        "phase": (r.str_,),
        "seats": (r.list_(_seat(r)), ()),
        "combat": (_combat(r), None),
        "prompt": (_prompt(r), None),
        "faults": (r.list_(_fault(r)), ()),
    },
)


def _check(view: TableView, r: _Reader) -> None:
    """Cross-field checks that a single field cannot express."""
    if view.seats and view.seat >= len(view.seats):
        r.fail("", "seat", f"{view.seat} but only {len(view.seats)} seats (numbered from 0)")
    if view.clock.rounds is not None and view.clock.round_no > view.clock.rounds:
        r.fail("clock", "round_no", f"{view.clock.round_no} is past rounds={view.clock.rounds}")
    for i, s in enumerate(view.seats):
        if s.warriors_left > s.warriors_total:
            r.fail(
                f"seats[{i}]",
                "warriors_left",
                f"{s.warriors_left} > warriors_total={s.warriors_total}",
            )
    c = view.combat
    if c is not None:
        for who, f in (("attacker", c.attacker), ("defender", c.defender)):
            if f.endurance_left > f.endurance_max:
                r.fail(
                    f"combat.{who}",
                    "endurance_left",
                    f"{f.endurance_left} > endurance_max={f.endurance_max}",
                )
        if c.roll_no > c.rolls_max:
            r.fail("combat", "roll_no", f"{c.roll_no} > rolls_max={c.rolls_max}")
        if len(c.dice) > 6:
            r.fail("combat", "dice", f"{len(c.dice)} dice; a pool holds at most 6")
    p = view.prompt
    if p is not None:
        if not p.choices and p.kind is not PromptKind.CHOOSE:
            # the table asks these with buttons (controller/table/view.py); only a plain
            # choice, such as a pause, may offer none
            r.fail("prompt", "choices", f"a {p.kind.value} prompt offers its choices; got none")
        if p.choices and p.selected >= len(p.choices):
            r.fail("prompt", "selected", f"{p.selected} but only {len(p.choices)} choices")
        if p.die_index is not None and p.die_index >= len(p.dice):
            r.fail("prompt", "die_index", f"{p.die_index} but only {len(p.dice)} dice")
        if len(p.dice) > 6:
            r.fail("prompt", "dice", f"{len(p.dice)} dice; a pool holds at most 6")


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
        _check(view, r)
    return r.problems.checked(view)


def load_view(path: str | Path) -> TableView:
    """Read a :class:`TableView` from a JSON file.

    Raises:
        DataError: the file is unreadable, is not JSON, or has wrong fields (all listed).
    """
    p = Path(path)
    return view_from_dict(read_json(p), str(p))


EXAMPLE_STATE = Path(__file__).with_name("example_state.json")
"""The bundled example state: a fight in progress (used by tests and the README gallery)."""
