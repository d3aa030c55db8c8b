"""The game's events: inputs from the table (dice, shuffles, the clock) and player actions.

The game is the fold of these events (:func:`controller.game.engine.apply`).
*Inputs* report what happened (a throw the camera read, a deck's order, the
clock); *actions* (:class:`Action`, with the acting ``seat``) are choices a
player makes. Undo removes the last action; an input is only corrected by a
:class:`ThrowCorrected` / :class:`DieCorrected` event, itself journalled.
Every event converts to and from a JSON-able dict (``to_dict`` / ``event_from_dict``):
enums by their values, absent values (None) as the first release spelled them
(:func:`absent_as`), so every journal written before still replays.
"""

from __future__ import annotations

import sys
import types
import typing
from collections.abc import Mapping
from dataclasses import Field, dataclass, field, fields
from enum import Enum
from typing import Any, ClassVar, Self

from controller.core.errors import TopTableError
from controller.core.events import Event
from controller.core.quoting import short_repr
from controller.core.symbols import Symbol, parse_symbol
from controller.game.state import Answer, WarriorDeck
from controller.gamedata.cards import Deck


class EventDecodeError(TopTableError, ValueError):
    """A stored event that names no known kind or has bad fields."""


_WIRE_NONE = "wire_none"


def absent_as(wire: object) -> Any:
    """A field that may be absent (None, its default), written ``wire`` in the journal.

    The first journals spelled "none" ``""`` or ``-1``; they still replay, and the
    journal keeps that spelling, so a file reads the same to every version.
    """
    return field(default=None, metadata={_WIRE_NONE: wire})


@dataclass(frozen=True)
class GameEvent(Event):
    """Base of every game event."""

    kind: ClassVar[str] = ""
    is_action: ClassVar[bool] = False

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-able dict (with its ``kind``)."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            out[f.name] = _encode(getattr(self, f.name), f)
        return out

    @classmethod
    def from_fields(cls, data: Mapping[str, Any]) -> Self:
        """The event from the fields of its :meth:`to_dict` form (absent ones: defaults).

        Raises:
            TypeError, ValueError: a field of the wrong type or value.
        """
        hints = _hints(cls)
        args: dict[str, Any] = {}
        for f in fields(cls):
            if f.name in data:
                try:
                    args[f.name] = _decode(data[f.name], hints[f.name], f)
                except (TypeError, ValueError) as exc:
                    wrong = TypeError if isinstance(exc, TypeError) else ValueError
                    raise wrong(f"field '{f.name}': {exc}") from None
        return cls(**args)


def _encode(v: Any, f: Field[Any]) -> Any:
    if v is None and _WIRE_NONE in f.metadata:
        return f.metadata[_WIRE_NONE]
    return _plain(v)


def _plain(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, Enum):
        return v.value
    return v


_HINTS: dict[type, dict[str, Any]] = {}


def _hints(cls: type) -> dict[str, Any]:
    return _HINTS.get(cls) or _HINTS.setdefault(cls, typing.get_type_hints(cls))


def _decode(v: Any, hint: Any, f: Field[Any] | None = None) -> Any:
    if f is not None and _WIRE_NONE in f.metadata and v == f.metadata[_WIRE_NONE]:
        return None
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        if v is None:
            return None
        last: Exception = ValueError(f"{short_repr(v)} fits no type of {hint}")
        for arg in typing.get_args(hint):
            if arg is not type(None):
                try:
                    return _decode(v, arg)
                except (TypeError, ValueError) as exc:
                    last = exc
        raise last
    if origin is tuple:
        if not isinstance(v, list | tuple):
            raise TypeError(f"expected a list, got {short_repr(v)}")
        inner = typing.get_args(hint)[0]
        return tuple(_decode(x, inner) for x in v)
    if hint is Symbol:
        if not isinstance(v, str):
            raise TypeError(f"expected a face name, got {short_repr(v)}")
        return parse_symbol(v)
    if isinstance(hint, type) and issubclass(hint, Enum):
        try:
            return hint(v)
        except ValueError:  # Enum's own message holds the whole value
            known = ", ".join(str(m.value) for m in hint)
            raise ValueError(f"expected one of {known}, got {short_repr(v)}") from None
    if hint in _PLAIN and (isinstance(v, bool) or not isinstance(v, _PLAIN[hint])):
        raise TypeError(f"expected {_PLAIN_NAMES[hint]}, got {short_repr(v)}")
    if hint is float and not abs(v) <= sys.float_info.max:  # NaN, inf, an int past a float
        raise ValueError(f"expected a finite number, got {short_repr(v)}")
    return v


# What a stored field of each plain type may hold (bool, an int to Python, is none of them).
_PLAIN: dict[Any, type | tuple[type, ...]] = {str: str, int: int, float: (int, float)}
_PLAIN_NAMES = {str: "text", int: "a whole number", float: "a number"}


# ---------------------------------------------------------------- inputs
@dataclass(frozen=True)
class FirstPlayerChosen(GameEvent):
    """The die that decides who drafts first (A l.24-25, B l.255); the youngest plays first
    (:class:`ChooseStarter`)."""

    kind: ClassVar[str] = "first_player"
    seat: int


@dataclass(frozen=True)
class Shuffled(GameEvent):
    """A deck's order after shuffling, top first. ``deck``: a card deck or ``warriors``."""

    kind: ClassVar[str] = "shuffled"
    deck: Deck | WarriorDeck
    order: tuple[str, ...]


@dataclass(frozen=True)
class DiceThrown(GameEvent):
    """A full dice state after a throw or a reroll (what the camera read)."""

    kind: ClassVar[str] = "dice"
    dice: tuple[Symbol, ...]
    evidence: str | None = absent_as("")  # path of the camera frame, when there is one
    corrected_from: tuple[Symbol, ...] = ()  # what was first read, when a correction replaced it


@dataclass(frozen=True)
class ThrowCorrected(GameEvent):
    """The last throw was misread: these are the dice really shown."""

    kind: ClassVar[str] = "throw_corrected"
    dice: tuple[Symbol, ...]
    evidence: str | None = absent_as("")


@dataclass(frozen=True)
class DieRolled(GameEvent):
    """Numbered die values: a transformation roll (1 or 2 dice) or a fusion roll."""

    kind: ClassVar[str] = "die"
    values: tuple[int, ...]


@dataclass(frozen=True)
class DieCorrected(GameEvent):
    """The last numbered die roll was misread: these are the values really shown."""

    kind: ClassVar[str] = "die_corrected"
    values: tuple[int, ...]


@dataclass(frozen=True)
class TimeUp(GameEvent):
    """The 45 minutes are over: the current round is finished, then the game ends."""

    kind: ClassVar[str] = "time_up"


@dataclass(frozen=True)
class ClockEvent(GameEvent):
    """The 45-minute game's clock, journalled so that a resumed or replayed game has it.

    ``at`` is the wall clock's reading (seconds). The clock is the table's, not a
    rule: the game's fold leaves these events out (:func:`fold_corrections`; the
    engine passes over them), undo steps over them, and they are never undone.
    """

    at: float


@dataclass(frozen=True)
class ClockStarted(ClockEvent):
    """The clock started (the first round began); the 45 minutes count from ``at``."""

    kind: ClassVar[str] = "clock_started"


@dataclass(frozen=True)
class ClockPaused(ClockEvent):
    """The clock was stopped at ``at``."""

    kind: ClassVar[str] = "clock_paused"


@dataclass(frozen=True)
class ClockResumed(ClockEvent):
    """The clock runs again from ``at`` (the pause does not count); none standing: a mark."""

    kind: ClassVar[str] = "clock_resumed"


CLOCK_KINDS = frozenset({ClockStarted.kind, ClockPaused.kind, ClockResumed.kind})


# ---------------------------------------------------------------- actions
@dataclass(frozen=True)
class Action(GameEvent):
    """A player's choice; ``seat`` is who makes it."""

    is_action: ClassVar[bool] = True
    seat: int


@dataclass(frozen=True)
class Draft(Action):
    """Pick a warrior in the draft."""

    kind: ClassVar[str] = "draft"
    warrior: str


@dataclass(frozen=True)
class Place(Action):
    """Place a drafted warrior's token on a space."""

    kind: ClassVar[str] = "place"
    warrior: str
    space: int


@dataclass(frozen=True)
class ChooseStarter(Action):
    """Who starts: the youngest player (A l.33, B l.275), named by ``starter``'s seat; the
    table cannot know ages, so the players tell it."""

    kind: ClassVar[str] = "starter"
    starter: int


@dataclass(frozen=True)
class Discard(Action):
    """Discard a card (hand over the limit at the start of the turn)."""

    kind: ClassVar[str] = "discard"
    card: str


@dataclass(frozen=True)
class PlayCard(Action):
    """Play a card now: start of turn (heal, move, draw, fusion, rescue), a
    transformation retry, or the extra-combat card (with ``warrior`` attacking ``target``).
    ``warrior``, ``target``, ``space``: None when the card names none."""

    kind: ClassVar[str] = "play"
    card: str
    warrior: str | None = absent_as("")
    target: str | None = absent_as("")
    space: int | None = absent_as(-1)


@dataclass(frozen=True)
class Pass(Action):
    """Decline the optional step offered (a card, a counter-attack, a second combat)."""

    kind: ClassVar[str] = "pass"


@dataclass(frozen=True)
class Move(Action):
    """Move a warrior up to 4 steps (more with a move effect) to a space."""

    kind: ClassVar[str] = "move"
    warrior: str
    space: int


@dataclass(frozen=True)
class TryFusion(Action):
    """At the start of a combat, try to fuse with a die roll of 4 or more."""

    kind: ClassVar[str] = "try_fusion"


@dataclass(frozen=True)
class ChooseAttack(Action):
    """End the attack attempt, cashing in an option by its name: a combo's, a card's in
    hand, or the symbol sum's (:data:`~controller.rules.scoring.SUM_OPTION`). The names
    come from the data files: an open set."""

    kind: ClassVar[str] = "attack"
    option: str


@dataclass(frozen=True)
class Defend(Action):
    """The defender's answer: none, a dodge, Solar Flare's flight, or a defence ``card``
    (``answer`` CARD; ``card`` is None for the others; REFLECT is never a Defend). The
    attacker answers its reflected sphere with the same event (Phase.REFLECT_CHOICE).

    The journal writes ``answer`` as the card's name or the answer's value, as the
    first release did (:attr:`text`)."""

    kind: ClassVar[str] = "defend"
    answer: Answer
    card: str | None = None

    @property
    def text(self) -> str:
        """The answer as the journal and the prompts spell it: the card's name, or
        ``none``, ``dodge``, ``flee``."""
        return self.card if self.card is not None else self.answer.value

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "defend", "seat": n, "answer": text}``."""
        return {"kind": self.kind, "seat": self.seat, "answer": self.text}

    @classmethod
    def from_fields(cls, data: Mapping[str, Any]) -> Self:
        """The inverse of :meth:`to_dict`: an answer not spelled as one is a card's name."""
        text = data["answer"]
        if not isinstance(text, str):
            raise TypeError(f"field 'answer': expected the answer's text, got {short_repr(text)}")
        seat = data["seat"]
        if isinstance(seat, bool) or not isinstance(seat, int):
            raise TypeError(f"field 'seat': expected a whole number, got {short_repr(seat)}")
        if text in _SPELLED_ANSWERS:
            return cls(seat, Answer(text))
        return cls(seat, Answer.CARD, text)


@dataclass(frozen=True)
class StopRolling(Action):
    """Give up a dodge or defence-card attempt before the rerolls run out."""

    kind: ClassVar[str] = "stop"


@dataclass(frozen=True)
class CounterAttack(Action):
    """Attack back at once (by ability, or with a counter-attack ``card``)."""

    kind: ClassVar[str] = "counter"
    card: str | None = absent_as("")


@dataclass(frozen=True)
class StepAside(Action):
    """After a combat the defender survived, the attacker steps to this space beside it: an
    empty one, or with a second combat granted a green space or (rules revision 3 on)
    another foe's space, that second combat (A l.261)."""

    kind: ClassVar[str] = "step"
    space: int


@dataclass(frozen=True)
class ChooseReward(Action):
    """After eliminating a green-space warrior: the deck to draw the reward from."""

    kind: ClassVar[str] = "reward"
    deck: Deck


@dataclass(frozen=True)
class ExtraCombat(Action):
    """The second combat of the turn granted by an event card: ``warrior`` attacks ``target``."""

    kind: ClassVar[str] = "extra_combat"
    warrior: str
    target: str


@dataclass(frozen=True)
class DuelPick(Action):
    """In a tie-break duel, the warrior this player fights with."""

    kind: ClassVar[str] = "duel_pick"
    warrior: str


@dataclass(frozen=True)
class ChooseFight(Action):
    """Story mode: on a square with several fights, the fight this pair plays."""

    kind: ClassVar[str] = "choose_fight"
    fight: int


EVENT_TYPES: dict[str, type[GameEvent]] = {
    cls.kind: cls
    for cls in (
        FirstPlayerChosen, Shuffled, DiceThrown, ThrowCorrected, DieRolled, DieCorrected, TimeUp,
        ClockStarted, ClockPaused, ClockResumed,
        Draft, Place, ChooseStarter, Discard, PlayCard, Pass, Move, TryFusion, ChooseAttack, Defend,
        StopRolling, CounterAttack, StepAside, ChooseReward, ExtraCombat, DuelPick, ChooseFight,
    )
}  # fmt: skip
_SPELLED_ANSWERS = frozenset({Answer.NONE.value, Answer.DODGE.value, Answer.FLEE.value})


def event_from_dict(data: dict[str, Any]) -> GameEvent:
    """Rebuild an event from :meth:`GameEvent.to_dict` output.

    Raises:
        EventDecodeError: unknown kind or fields that do not fit.
    """
    kind = data.get("kind")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise EventDecodeError(f"unknown event kind {short_repr(kind)}")
    try:
        return cls.from_fields(data)
    except (TypeError, ValueError, KeyError) as exc:
        raise EventDecodeError(f"bad {kind} event {short_repr(data)}: {exc}") from None
