"""What a person enters with the table's buttons to turn an offered :class:`Offer` into an action.

An :class:`~controller.companion.base.Offer` names an action, the values allowed for
some fields and the fields typed in. With four buttons nothing is typed: every field
becomes an :class:`EntryField`, a short list of values stepped through with ``next``
(amounts 1-10, a die's 1-6, the power levels of the attack table's brackets...). A
field with a single allowed value is filled in without asking.

:func:`entry_fields` lists the fields to ask, in order; :func:`build_action` turns the
answers into the action's JSON form (what :func:`~controller.companion.base.parse_action`
reads and the journal stores). The table and the bots use the same lists, so a bot
never wants a value the buttons cannot enter.

Pure: the standard library and :mod:`controller.companion` only.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.companion.base import DIE_FACES, CompanionMode, JsonDict, Offer, Player

Value = str | int | None
"""One value a field can take (None: "none", for an optional field)."""

NONE_LABEL = "none"

POWER_LEVELS: tuple[int, ...] = (1000, 7000, 20000, 90000, 600000, 6000000, 60000000)
"""Power levels offered for an attack: one in each bracket of the attack table."""

FREE_VALUES: Mapping[str, tuple[int, ...]] = {
    "amount": tuple(range(1, 11)),
    "cards": tuple(range(1, 7)),
    "delta": (1, 2, 3, 4, 5, -1, -2, -3),
    "base_cost": tuple(range(0, 9)),
    "number": tuple(range(1, 8)),
    "attacker_power_level": POWER_LEVELS,
    "defender_power_level": POWER_LEVELS,
}
"""The values offered for a typed-in whole number, by field name."""
ACTION_VALUES: Mapping[tuple[str, str], tuple[int, ...]] = {
    ("pur", "amount"): tuple(range(0, 11)),  # a Personality without a PUR still ends the step
}
"""Where one action's field takes other values than :data:`FREE_VALUES` gives its name."""

DEFAULT_VALUES: tuple[int, ...] = tuple(range(0, 11))


@dataclass(frozen=True)
class EntryField:
    """One question of an action: ``key`` (``amount``, ``values.Ann``...) and its values."""

    key: str
    values: tuple[Value, ...]

    @property
    def labels(self) -> tuple[str, ...]:
        """What the screen shows for each value."""
        return tuple(label(v) for v in self.values)


def label(value: Value) -> str:
    """A value as the screen shows it (``none`` for None)."""
    return NONE_LABEL if value is None else str(value)


def _optional(hint: Any) -> tuple[Any, bool]:
    """``(inner type, is optional)`` of a field's type hint."""
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(hint) if a is not type(None)]
        return args[0], len(args) != len(typing.get_args(hint))
    return hint, False


def _hints(mode: CompanionMode[Any, Any], do: str) -> dict[str, Any]:
    cls = mode.actions[do]
    names = [f.name for f in dataclasses.fields(cls)]
    hints = typing.get_type_hints(cls)
    return {n: hints[n] for n in names}


def _rolling(mode: CompanionMode[Any, Any], state: Any, players: Sequence[str]) -> list[str]:
    shown = mode.to_json(state).get("rolling")
    if isinstance(shown, list) and shown:
        return [str(p) for p in shown]
    return list(players)


def entry_fields(
    mode: CompanionMode[Any, Any], state: Any, choice: Offer, player: str
) -> tuple[EntryField, ...]:
    """The fields to ask for ``choice`` offered to ``player``, in order (fixed ones left out)."""
    players = [str(p["name"]) for p in mode.to_json(state)["players"]]
    options = dict(choice.options)
    out: list[EntryField] = []
    for name, hint in _hints(mode, choice.do).items():
        inner, optional = _optional(hint)
        if name in options:
            allowed: tuple[Value, ...] = tuple(options[name])
            if optional:
                allowed = (None, *allowed)
            if len(allowed) > 1:
                out.append(EntryField(name, allowed))
            continue
        if name not in choice.free:
            continue  # a field the choice leaves out keeps its default
        if typing.get_origin(inner) is tuple:  # a {player: number} object: one die each
            out += [EntryField(f"{name}.{p}", DIE_FACES) for p in _rolling(mode, state, players)]
            continue
        values: tuple[Value, ...]
        if inner is Player:
            values = tuple(p for p in players if p != player)
        elif isinstance(inner, type) and issubclass(inner, enum.Enum):
            values = tuple(m.value for m in inner)
        else:
            values = ACTION_VALUES.get((choice.do, name)) or FREE_VALUES.get(name, DEFAULT_VALUES)
        out.append(EntryField(name, (None, *values) if optional else values))
    return tuple(out)


def enterable(mode: CompanionMode[Any, Any], choice: Offer) -> bool:
    """Whether the buttons can enter ``choice``: False when a field it must be given has
    no value allowed (a Dragon Ball offered with every number on the table: the entry
    had no value to step through, and the table failed at the next press)."""
    hints = _hints(mode, choice.do)
    return all(
        values or _optional(hints[name])[1] for name, values in choice.options if name in hints
    )


def build_action(
    mode: CompanionMode[Any, Any], choice: Offer, player: str, answers: Mapping[str, Value]
) -> JsonDict:
    """The JSON form of ``choice`` with the fixed values and ``answers`` filled in."""
    options = dict(choice.options)
    action: JsonDict = {"do": choice.do}
    for name, hint in _hints(mode, choice.do).items():
        inner, optional = _optional(hint)
        if name in answers:
            value: Any = answers[name]
        elif name in options and len(options[name]) == 1 and not optional:
            value = options[name][0]
        elif typing.get_origin(inner) is tuple and any(k.startswith(f"{name}.") for k in answers):
            value = {k.split(".", 1)[1]: v for k, v in answers.items() if k.startswith(f"{name}.")}
            action[name] = value
            continue
        else:
            continue  # left to its default
        if typing.get_origin(inner) is tuple and not isinstance(value, dict):
            value = [player, value]  # the other player of a pair (who begins a match)
        action[name] = value
    return action
