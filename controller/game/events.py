"""The game's events: inputs from the table (dice, shuffles, the clock) and player actions.

The game is the fold of these events (:func:`controller.game.engine.apply`).
*Inputs* report what happened (a throw the camera read, a deck's order, the
clock); *actions* (:class:`Action`, with the acting ``seat``) are choices a
player makes. Undo removes the last action; an input is only corrected by a
:class:`ThrowCorrected` / :class:`DieCorrected` event, itself journalled.
Every event converts to and from a JSON-able dict (``to_dict`` / ``event_from_dict``).
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, ClassVar

from controller.core.errors import TopTableError
from controller.core.events import Event
from controller.core.symbols import Symbol, parse_symbol


class EventDecodeError(TopTableError, ValueError):
    """A stored event that names no known kind or has bad fields."""


@dataclass(frozen=True)
class GameEvent(Event):
    """Base of every game event."""

    kind: ClassVar[str] = ""
    is_action: ClassVar[bool] = False

    def to_dict(self) -> dict[str, Any]:
        """The event as a JSON-able dict (with its ``kind``)."""
        out: dict[str, Any] = {"kind": self.kind}
        for f in fields(self):
            out[f.name] = _plain(getattr(self, f.name))
        return out


def _plain(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_plain(x) for x in v]
    if isinstance(v, Symbol):
        return v.value
    return v


NO_SPACE = -1  # an action's ``space`` when it names none (the journal's spelling of "none")


# ---------------------------------------------------------------- inputs
@dataclass(frozen=True)
class FirstPlayerChosen(GameEvent):
    """The die that decides who drafts first (and plays first)."""

    kind: ClassVar[str] = "first_player"
    seat: int


@dataclass(frozen=True)
class Shuffled(GameEvent):
    """A deck's order after shuffling, top first. ``deck``: a card deck or ``warriors``."""

    kind: ClassVar[str] = "shuffled"
    deck: str
    order: tuple[str, ...]


@dataclass(frozen=True)
class DiceThrown(GameEvent):
    """A full dice state after a throw or a reroll (what the camera read)."""

    kind: ClassVar[str] = "dice"
    dice: tuple[Symbol, ...]
    evidence: str = ""  # path of the camera frame, when there is one
    corrected_from: tuple[Symbol, ...] = ()  # what was first read, when a correction replaced it


@dataclass(frozen=True)
class ThrowCorrected(GameEvent):
    """The last throw was misread: these are the dice really shown."""

    kind: ClassVar[str] = "throw_corrected"
    dice: tuple[Symbol, ...]
    evidence: str = ""


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
    """The clock runs again from ``at``: the pause does not count."""

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
class Discard(Action):
    """Discard a card (hand over the limit at the start of the turn)."""

    kind: ClassVar[str] = "discard"
    card: str


@dataclass(frozen=True)
class PlayCard(Action):
    """Play a card now: start of turn (heal, move, draw, fusion, rescue), a
    transformation retry, or the extra-combat card (with ``warrior`` attacking ``target``)."""

    kind: ClassVar[str] = "play"
    card: str
    warrior: str = ""
    target: str = ""
    space: int = NO_SPACE


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
    """End the attack attempt, cashing in an option: a combo, a card in hand, or ``sum``."""

    kind: ClassVar[str] = "attack"
    option: str


@dataclass(frozen=True)
class Defend(Action):
    """The defender's answer: ``none``, ``dodge``, ``flee`` or the name of a card."""

    kind: ClassVar[str] = "defend"
    answer: str


@dataclass(frozen=True)
class StopRolling(Action):
    """Give up a dodge or defence-card attempt before the rerolls run out."""

    kind: ClassVar[str] = "stop"


@dataclass(frozen=True)
class CounterAttack(Action):
    """Attack back at once (by ability, or with a counter-attack ``card``)."""

    kind: ClassVar[str] = "counter"
    card: str = ""


@dataclass(frozen=True)
class StepAside(Action):
    """After a combat the defender survived, the attacker steps to this space."""

    kind: ClassVar[str] = "step"
    space: int


@dataclass(frozen=True)
class ChooseReward(Action):
    """After eliminating a green-space warrior: the deck to draw the reward from."""

    kind: ClassVar[str] = "reward"
    deck: str


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
        Draft, Place, Discard, PlayCard, Pass, Move, TryFusion, ChooseAttack, Defend,
        StopRolling, CounterAttack, StepAside, ChooseReward, ExtraCombat, DuelPick, ChooseFight,
    )
}  # fmt: skip
_SYMBOL_FIELDS = frozenset({"dice", "corrected_from"})


def fold_corrections(events: list[GameEvent]) -> list[GameEvent]:
    """The events with each :class:`ThrowCorrected` (:class:`DieCorrected`) folded into the
    throw (die roll) it corrects.

    A correction replaces the last throw before it, provided no player action came
    after that throw (what followed was then only the throw's automatic
    consequence, which a replay recomputes). Otherwise the correction is kept as
    is, and replaying it raises the engine's error. The clock's events
    (:class:`ClockEvent`) are the table's, not the game's: they are left out.
    """
    out: list[GameEvent] = []
    for e in events:
        if isinstance(e, ClockEvent):
            continue
        if isinstance(e, DieCorrected):
            j = _last(out, DieRolled)
            if j is not None and not any(x.is_action for x in out[j + 1 :]):
                out[j] = DieRolled(e.values)
                continue
        if isinstance(e, ThrowCorrected):
            j = _last(out, DiceThrown)
            if j is not None and not any(x.is_action for x in out[j + 1 :]):
                old = out[j]
                if isinstance(old, DiceThrown):
                    out[j] = DiceThrown(
                        e.dice, e.evidence or old.evidence, old.corrected_from or old.dice
                    )
                    continue
        out.append(e)
    return out


def _last(events: list[GameEvent], kind: type[GameEvent]) -> int | None:
    """The index of the last event of type ``kind`` (None if there is none)."""
    return next((i for i in range(len(events) - 1, -1, -1) if isinstance(events[i], kind)), None)


def event_from_dict(data: dict[str, Any]) -> GameEvent:
    """Rebuild an event from :meth:`GameEvent.to_dict` output.

    Raises:
        EventDecodeError: unknown kind or fields that do not fit.
    """
    kind = data.get("kind")
    cls = EVENT_TYPES.get(str(kind))
    if cls is None:
        raise EventDecodeError(f"unknown event kind {kind!r}")
    args: dict[str, Any] = {}
    try:
        for f in fields(cls):
            if f.name not in data:
                continue
            v = data[f.name]
            if f.name in _SYMBOL_FIELDS:
                v = tuple(parse_symbol(x) for x in v)
            elif isinstance(v, list):
                v = tuple(v)
            args[f.name] = v
        return cls(**args)
    except (TypeError, ValueError) as exc:
        raise EventDecodeError(f"bad {kind} event {data!r}: {exc}") from None
