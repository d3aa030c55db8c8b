"""What every companion mode shares: the mode object, the rule error, choices, action parsing.

A mode (:class:`CompanionMode`) is one object: its game kind, its title and main
number, how it writes a player's numbers short, its actions, and pure functions over
a frozen state. Actions are frozen dataclasses;
:func:`read_action` turns one script/JSON object into one of them, checking the names
of the action, its fields and the players it names, and notes every problem in the one
collector (:class:`~controller.core.checked.Problems`: file, entry and field);
:func:`parse_action` does it for one action and raises the
:class:`~controller.core.errors.DataError`.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, ClassVar, Generic, NewType, Protocol, TypeVar

from controller.core.checked import Problems, name_problem
from controller.core.errors import DataError, IllegalActionError
from controller.core.kinds import GameKind
from controller.core.quoting import short_repr

Player = NewType("Player", str)
"""A field type meaning "the name of a player in this game"."""

JsonDict = dict[str, Any]


@dataclass(frozen=True)
class Within:
    """The bounds of a whole-number field of an action (``Annotated[int, Within(1, 6)]``):
    a value outside them is bad input, refused with the field named when the action is
    read (None: that end open)."""

    low: int | None = None
    high: int | None = None


DIE_FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
"""A die the table asks for (the setup roll of dbs-tournament): one six-sided die."""
DieRoll = Annotated[int, Within(DIE_FACES[0], DIE_FACES[-1])]
"""A field type meaning "what a die shows"."""

R_AMOUNT = "Companion: amounts are positive whole numbers"
"""The table's own rule for every mode: an amount entered is a positive whole number."""


class RuleViolationError(IllegalActionError):
    """An action the rules forbid now; ``rule`` names the rule, ``reason`` says why."""

    def __init__(self, rule: str, reason: str) -> None:
        self.rule = rule
        self.reason = reason
        super().__init__(f"{reason} [{rule}]")


@dataclass(frozen=True)
class Offer:
    """One action the table may offer a player now.

    ``options`` gives, for some fields, the values allowed (names, numbers);
    ``free`` lists the fields the person enters (amounts, dice values).
    """

    do: str
    options: tuple[tuple[str, tuple[str | int, ...]], ...] = ()
    free: tuple[str, ...] = ()

    def to_json(self) -> JsonDict:
        """``{"do": ..., "options": {field: [values]}, "free": [fields]}``."""
        return {
            "do": self.do,
            "options": {k: list(v) for k, v in self.options},
            "free": list(self.free),
        }


class CompanionAction:
    """Base of every mode's actions; ``DO`` is the name scripts use."""

    DO: ClassVar[str] = ""


S = TypeVar("S")
A = TypeVar("A", bound=CompanionAction)


S_co = TypeVar("S_co", covariant=True)


class NewGame(Protocol[S_co]):
    """A mode's ``new_game``: the state before the first action."""

    def __call__(
        self,
        players: Sequence[str],
        data: Mapping[str, Any] | None = None,
        source: str = "script",
        revision: int | None = None,
    ) -> S_co:
        """``data`` overrides the mode's data file; ``revision`` is the rules' revision the
        game is played by (None: the mode's newest, :attr:`CompanionMode.rules_revision`).

        Raises DataError for a wrong number of players, bad data overrides or a revision
        the mode does not have.
        """


@dataclass(frozen=True)
class SeatSummary:
    """A player's numbers written short for the screens: all of them (``L16 E2 C+2``) and
    the one that matters most (``L16``, for the smallest screens)."""

    numbers: str
    main: str


@dataclass(frozen=True)
class CompanionMode(Generic[S, A]):
    """One companion mode: what it is and shows, and its pure rules over a frozen state ``S``.

    The table (screens, buttons, journal), the publisher, the replay and the bots ask
    the mode; nothing else switches on a mode's name.
    """

    kind: GameKind
    title: str
    """The mode's short name on the screens' title bar (``DBZ TCG``)."""
    main_number: str
    """The key, in :attr:`to_json`'s players, of the number the scoreboard shows (``life``)."""
    actions: Mapping[str, type[A]]
    """Action name (``do``) -> action class."""
    new_game: NewGame[S]
    whose_turn: Callable[[S], str | None]
    """The player whose turn it is, or None (before the game, after it, no turns)."""
    step: Callable[[S], str]
    """A short label for where the game is (``roll``, ``planning``, ``round 3``...)."""
    legal_actions: Callable[[S, str], tuple[Offer, ...]]
    """What the table may offer a player now (a guide; :attr:`apply` decides)."""
    apply: Callable[[S, A], S]
    """The state after an action; raises RuleViolationError naming the rule that forbids it."""
    to_json: Callable[[S], JsonDict]
    """``players``, ``turn``, ``step``, ``winner``, ``eliminated`` and the mode's extras."""
    seat_summary: Callable[[JsonDict], SeatSummary]
    """A player's numbers (one of :attr:`to_json`'s ``players``) written short."""
    rules_revision: int = 1
    """The mode's newest rules revision: a new game is played by it, and its journal
    records it, so a game begun by an older revision replays and plays on by that one
    (:func:`checked_revision`)."""

    @property
    def name(self) -> str:
        """The mode's name on the command line, in configs and journals (``dbz-tcg``)."""
        return self.kind.value

    def parse_action(
        self, raw: object, players: Sequence[str], source: str = "script", entry: str = "action"
    ) -> A:
        """One of this mode's actions from its JSON form (see :func:`parse_action`).

        Raises:
            DataError: an unknown action, field or player, or a value of the wrong type.
        """
        return parse_action(raw, self.actions, players, source, entry)


def _convert(
    value: Any, hint: Any, players: Sequence[str], problems: Problems, entry: str, field: str
) -> Any:
    """``value`` as the type ``hint`` says; a wrong one is noted in ``problems`` (the caller
    tells by :meth:`Problems.since`)."""
    origin = typing.get_origin(hint)
    if origin is Annotated:
        inner, *extras = typing.get_args(hint)
        bounds = next((x for x in extras if isinstance(x, Within)), Within())
        if inner is not int:
            raise TypeError(f"unsupported bounded field type {hint!r}")  # a bug in a mode
        return problems.whole_number(value, entry, field, bounds.low, bounds.high)
    if origin in (typing.Union, types.UnionType):
        if value is None:
            return None
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return _convert(value, args[0], players, problems, entry, field)
    if hint is Player:
        if not isinstance(value, str):
            problems.add(entry, field, f"expected a player name, got {short_repr(value)}")
        elif value not in players:
            problems.add(entry, field, f"unknown player {short_repr(value)}")
        else:
            return Player(value)
        return None
    if hint is int:
        return problems.whole_number(value, entry, field)
    if hint is str:
        return problems.text(value, entry, field)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return problems.choice(value, hint, entry, field)
    if origin is tuple:
        inner = typing.get_args(hint)[0]
        if typing.get_origin(inner) is tuple:  # tuple[tuple[K, V], ...] <- a JSON object
            key_hint, value_hint = typing.get_args(inner)
            if not isinstance(value, dict):
                problems.add(entry, field, f"expected an object, got {short_repr(value)}")
                return None
            return tuple(
                (
                    _convert(k, key_hint, players, problems, entry, field),
                    _convert(v, value_hint, players, problems, entry, f"{field}.{k}"),
                )
                for k, v in value.items()
            )
        if not isinstance(value, list):
            problems.add(entry, field, f"expected a list, got {short_repr(value)}")
            return None
        return tuple(
            _convert(v, inner, players, problems, entry, f"{field}[{i}]")
            for i, v in enumerate(value)
        )
    raise TypeError(f"unsupported action field type {hint!r}")  # a bug in a mode


def read_action(
    raw: object,
    catalog: Mapping[str, type[A]],
    players: Sequence[str],
    problems: Problems,
    entry: str = "action",
) -> A | None:
    """One action from its JSON form ``{"do": name, field: value...}``, or None when it
    is wrong: every problem (an unknown action, an unknown or missing field, a value of
    the wrong type, an unknown player) is noted in ``problems``, naming ``entry``
    (e.g. ``actions[3] (draw)``) and the field; a number outside its field's bounds
    (:class:`Within`) is one of them."""
    if not isinstance(raw, dict):
        problems.add(entry, "", f"expected an object, got {short_repr(raw)}")
        return None
    name = raw.get("do")
    if not isinstance(name, str) or name not in catalog:
        known = ", ".join(sorted(catalog))
        problems.add(entry, "do", f"unknown action {short_repr(name)} (known: {known})")
        return None
    entry = f"{entry} ({name})"
    cls = catalog[name]
    hints = typing.get_type_hints(cls, include_extras=True)  # with the bounds (Within)
    wanted = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    mark = problems.mark()
    problems.unknown_keys(raw, {"do", *wanted}, entry)
    kwargs: dict[str, Any] = {}
    for fname, f in wanted.items():
        if fname in raw:
            kwargs[fname] = _convert(raw[fname], hints[fname], players, problems, entry, fname)
        elif f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
            problems.missing(entry, fname)
    if problems.since(mark):
        return None
    return cls(**kwargs)


def parse_action(
    raw: object,
    catalog: Mapping[str, type[A]],
    players: Sequence[str],
    source: str = "script",
    entry: str = "action",
) -> A:
    """One action from its JSON form ``{"do": name, field: value...}`` (see :func:`read_action`).

    Raises DataError naming ``source``, the entry and the field of every problem.
    """
    problems = Problems(source)
    return problems.checked(read_action(raw, catalog, players, problems, entry))


def action_to_json(action: CompanionAction) -> JsonDict:
    """The JSON form of an action (the inverse of :func:`parse_action`)."""

    def plain(v: Any) -> Any:
        if isinstance(v, enum.Enum):
            return v.value
        if isinstance(v, tuple):
            if v and all(isinstance(x, tuple) and len(x) == 2 for x in v):
                return {str(k): plain(x) for k, x in v}
            return [plain(x) for x in v]
        return v

    out: JsonDict = {"do": action.DO}
    for f in dataclasses.fields(action):  # type: ignore[arg-type]
        out[f.name] = plain(getattr(action, f.name))
    return out


def check_players(
    players: Sequence[str], lowest: int, highest: int, mode: str, source: str = "script"
) -> tuple[str, ...]:
    """The players' names, checked: distinct, non-empty, and as many as the mode allows.

    Raises DataError naming ``source`` with every problem.
    """
    problems = Problems(source)
    names = tuple(players)
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            problems.add(f"players[{i}]", "players", f"expected a name, got {short_repr(name)}")
        elif (why := name_problem(name)) is not None:
            problems.add(f"players[{i}]", "players", why)
    for dup in dict.fromkeys(n for n in names if names.count(n) > 1):
        problems.add("players", "players", f"{short_repr(dup)} is listed twice")
    if not lowest <= len(names) <= highest:
        problems.add(
            "players", "players", f"{mode} needs {lowest}-{highest} players, got {len(names)}"
        )
    problems.check()
    return names


def checked_revision(revision: int | None, newest: int, source: str = "script") -> int:
    """The rules revision a game is played by: ``revision``, or ``newest`` for None.

    Raises:
        DataError: not a whole number 1..``newest`` (naming ``source`` and the field).
    """
    if revision is None:
        return newest
    if isinstance(revision, bool) or not isinstance(revision, int) or not 1 <= revision <= newest:
        expected = (
            "expected 1 (the mode's one rules revision)"
            if newest == 1
            else f"expected a whole number 1..{newest} (this toptable's newest)"
        )
        raise DataError.single(
            source, "", "rules_revision", f"{expected}, got {short_repr(revision)}"
        )
    return revision


def clockwise_from(seats: Sequence[str], start: str, live: Sequence[str]) -> tuple[str, ...]:
    """Every player in ``live``, clockwise (seat order) beginning with ``start``."""
    i = seats.index(start)
    ring = list(seats[i:]) + list(seats[:i])
    return tuple(p for p in ring if p in live)
