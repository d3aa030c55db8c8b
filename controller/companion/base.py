"""What every companion mode shares: the mode interface, the rule error, choices, action parsing.

A mode is a set of pure functions over a frozen state. Actions are frozen dataclasses;
:func:`parse_action` turns one script/JSON object into one of them, checking the names
of the action, its fields and the players it names (a bad one is a
:class:`~controller.core.errors.DataError` naming file, entry and field).
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, NewType, Protocol, TypeVar

from controller.core.errors import DataError, IllegalActionError

Player = NewType("Player", str)
"""A field type meaning "the name of a player in this game"."""

JsonDict = dict[str, Any]


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


class CompanionMode(Protocol[S, A]):
    """The interface the table (screens, buttons) and the replay use for every mode."""

    @property
    def name(self) -> str:
        """The mode's command-line name, e.g. ``dbs-tournament``."""

    @property
    def actions(self) -> Mapping[str, type[A]]:
        """Action name (``do``) -> action class."""

    def new_game(
        self, players: Sequence[str], data: Mapping[str, Any] | None = None, source: str = "script"
    ) -> S:
        """The state before the first action; ``data`` overrides the mode's data file.

        Raises DataError for a wrong number of players or bad data overrides.
        """

    def whose_turn(self, state: S) -> str | None:
        """The player whose turn it is, or None (before the game, after it, no turns)."""

    def step(self, state: S) -> str:
        """A short label for where the game is (``roll``, ``planning``, ``round 3``...)."""

    def legal_actions(self, state: S, player: str) -> tuple[Offer, ...]:
        """What the table may offer ``player`` now (a guide; :meth:`apply` decides)."""

    def apply(self, state: S, action: A) -> S:
        """The state after ``action``; raises RuleViolationError naming the rule that forbids it."""

    def to_json(self, state: S) -> JsonDict:
        """``players``, ``turn``, ``step``, ``winner``, ``eliminated`` and the mode's extras."""


def _fail(source: str, entry: str, field: str, message: str) -> DataError:
    return DataError.single(source, entry, field, message)


def _convert(value: Any, hint: Any, players: Sequence[str], where: tuple[str, str, str]) -> Any:
    source, entry, field = where
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        if value is None:
            return None
        return _convert(value, args[0], players, where)
    if hint is Player:
        if not isinstance(value, str):
            raise _fail(source, entry, field, f"expected a player name, got {value!r}")
        if value not in players:
            raise _fail(source, entry, field, f"unknown player {value!r}")
        return Player(value)
    if hint is int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise _fail(source, entry, field, f"expected a whole number, got {value!r}")
        return value
    if hint is str:
        if not isinstance(value, str):
            raise _fail(source, entry, field, f"expected text, got {value!r}")
        return value
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        allowed = [m.value for m in hint]
        if value not in allowed:
            raise _fail(source, entry, field, f"expected one of {allowed}, got {value!r}")
        return hint(value)
    if origin is tuple:
        inner = typing.get_args(hint)[0]
        if typing.get_origin(inner) is tuple:  # tuple[tuple[K, V], ...] <- a JSON object
            key_hint, value_hint = typing.get_args(inner)
            if not isinstance(value, dict):
                raise _fail(source, entry, field, f"expected an object, got {value!r}")
            return tuple(
                (
                    _convert(k, key_hint, players, where),
                    _convert(v, value_hint, players, (source, entry, f"{field}.{k}")),
                )
                for k, v in value.items()
            )
        if not isinstance(value, list):
            raise _fail(source, entry, field, f"expected a list, got {value!r}")
        return tuple(_convert(v, inner, players, where) for v in value)
    raise TypeError(f"unsupported action field type {hint!r}")  # a bug in a mode


def parse_action(
    raw: object,
    catalog: Mapping[str, type[A]],
    players: Sequence[str],
    source: str = "script",
    entry: str = "action",
) -> A:
    """One action from its JSON form ``{"do": name, field: value...}``.

    Raises DataError (one line: source, entry, field) for an unknown action, an unknown
    or missing field, a value of the wrong type, or an unknown player.
    """
    if not isinstance(raw, dict):
        raise _fail(source, entry, "", f"expected an object, got {raw!r}")
    name = raw.get("do")
    if not isinstance(name, str) or name not in catalog:
        known = ", ".join(sorted(catalog))
        raise _fail(source, entry, "do", f"unknown action {name!r} (known: {known})")
    entry = f"{entry} ({name})"
    cls = catalog[name]
    hints = typing.get_type_hints(cls)
    wanted = {f.name: f for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    for key in raw:
        if key != "do" and key not in wanted:
            raise _fail(source, entry, key, f"unknown field (known: {', '.join(wanted) or 'none'})")
    kwargs: dict[str, Any] = {}
    for fname, f in wanted.items():
        if fname not in raw:
            if f.default is dataclasses.MISSING:
                raise _fail(source, entry, fname, "missing")
            continue
        kwargs[fname] = _convert(raw[fname], hints[fname], players, (source, entry, fname))
    return cls(**kwargs)


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
    """The players' names, checked: distinct, non-empty, and as many as the mode allows."""
    names = tuple(players)
    for i, name in enumerate(names):
        if not isinstance(name, str) or not name.strip():
            raise _fail(source, f"players[{i}]", "players", f"expected a name, got {name!r}")
    if len(set(names)) != len(names):
        dup = next(n for n in names if names.count(n) > 1)
        raise _fail(source, "players", "players", f"{dup!r} is listed twice")
    if not lowest <= len(names) <= highest:
        raise _fail(
            source,
            "players",
            "players",
            f"{mode} needs {lowest}-{highest} players, got {len(names)}",
        )
    return names


def clockwise_from(seats: Sequence[str], start: str, live: Sequence[str]) -> tuple[str, ...]:
    """Every player in ``live``, clockwise (seat order) beginning with ``start``."""
    i = seats.index(start)
    ring = list(seats[i:]) + list(seats[:i])
    return tuple(p for p in ring if p in live)
