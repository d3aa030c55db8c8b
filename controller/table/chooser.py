"""The buttons' way to choose: a list of labelled choices, ``next`` moves, ``confirm`` takes.

The table builds a :class:`Chooser` from what the game waits for: the legal
actions of the acting seat, the seat who starts, a number for a die the camera
does not read, or a face for a die entered by hand. What a chooser is for is a
:class:`ChooserKind`; how many dice it enters is :attr:`Chooser.count`. Labels
are short enough for a 128-px line.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Generic, TypeVar

from controller.game.events import (
    Action,
    ChooseAttack,
    ChooseFight,
    ChooseReward,
    ChooseStarter,
    CounterAttack,
    Defend,
    Discard,
    Draft,
    DuelPick,
    ExtraCombat,
    Move,
    Pass,
    Place,
    PlayCard,
    StepAside,
    StopRolling,
    TryFusion,
)
from controller.game.state import Answer, GameState
from controller.rules.scoring import SUM_OPTION

T = TypeVar("T")

_serials = itertools.count(1)


class ChooserKind(Enum):
    """What confirming a chooser's choice does."""

    ACTIONS = "actions"  # plays the legal action chosen (or starts entering dice by hand)
    SEAT = "seat"  # names the seat who starts
    DIE_NUMBERS = "die numbers"  # one number of the ``count`` dice the camera does not read
    DICE_FACES = "dice faces"  # one face of a throw of ``count`` dice entered by hand


class EnterDice(Enum):
    """The choice, offered beside the actions while the camera is gone, to enter a throw."""

    ENTER_DICE = "enter new dice"


ENTER_DICE = EnterDice.ENTER_DICE


@dataclass
class Chooser(Generic[T]):
    """A titled list of choices with a cursor. ``count``: the dice a DIE_NUMBERS or
    DICE_FACES chooser enters, or that the ENTER_DICE choice of an ACTIONS one starts."""

    title: str
    labels: tuple[str, ...]
    values: tuple[T, ...]
    selected: int = 0
    kind: ChooserKind = ChooserKind.ACTIONS
    count: int = 0
    serial: int = field(default_factory=lambda: next(_serials), compare=False)

    def move(self, steps: int = 1) -> None:
        """Move the cursor, wrapping around."""
        if self.labels:
            self.selected = (self.selected + steps) % len(self.labels)

    @property
    def value(self) -> T:
        """The choice under the cursor.

        Raises:
            IndexError: the chooser is empty.
        """
        return self.values[self.selected]

    def select(self, value: T) -> None:
        """Put the cursor on ``value`` (no change if absent)."""
        if value in self.values:
            self.selected = self.values.index(value)


def option_label(name: str) -> str:
    """An attack option's label: its name, or "symbol sum" for the sum."""
    return "symbol sum" if name == SUM_OPTION else name


def action_label(action: Action, damage: dict[str, int] | None = None) -> str:
    """A short label for an action (``damage`` gives attack options' damage by name)."""
    if isinstance(action, Move):
        return f"{action.warrior} to {action.space}"
    if isinstance(action, Place):
        return f"place {action.warrior} on {action.space}"
    if isinstance(action, Draft):
        return action.warrior
    if isinstance(action, ChooseAttack):
        name = option_label(action.option)
        if damage and action.option in damage:
            return f"{name} {damage[action.option]}"
        return name
    if isinstance(action, Defend):
        return "no defence" if action.answer is Answer.NONE else action.text
    if isinstance(action, PlayCard):
        space = "" if action.space is None else str(action.space)
        extra = action.target or action.warrior or space
        return f"{action.card}{' > ' + extra if extra else ''}"
    if isinstance(action, Pass):
        return "pass"
    if isinstance(action, StopRolling):
        return "stop rolling"
    if isinstance(action, StepAside):
        return f"step to {action.space}"
    if isinstance(action, ChooseReward):
        return f"draw {action.deck}"
    if isinstance(action, ExtraCombat):
        return f"{action.warrior} vs {action.target}"
    if isinstance(action, DuelPick):
        return action.warrior
    if isinstance(action, TryFusion):
        return "try fusion"
    if isinstance(action, CounterAttack):
        return f"counter{' with ' + action.card if action.card else ''}"
    if isinstance(action, Discard):
        return f"discard {action.card}"
    return action.kind


def action_chooser(
    title: str, actions: Sequence[Action], damage: dict[str, int] | None = None
) -> Chooser[Action]:
    """A chooser over legal actions, in the engine's order."""
    return Chooser(title, tuple(action_label(a, damage) for a in actions), tuple(actions))


def number_chooser(
    title: str, low: int, high: int, kind: ChooserKind = ChooserKind.DIE_NUMBERS, count: int = 1
) -> Chooser[int]:
    """A chooser over the numbers ``low``..``high``."""
    values = tuple(range(low, high + 1))
    return Chooser(title, tuple(str(v) for v in values), values, kind=kind, count=count)


def starter_chooser(state: GameState, actions: list[Action]) -> Chooser[Action]:
    """Who starts: the players by name; the youngest starts (A l.33, B l.275)."""
    labels = tuple(
        state.players[a.starter] if isinstance(a, ChooseStarter) else a.kind for a in actions
    )
    return Chooser("who is the youngest?", labels, tuple(actions))


def fight_chooser(state: GameState, actions: list[Action]) -> Chooser[Action]:
    """Story mode: the square's free fights, named by their warriors (green v red); the fight
    the other player proposed first, marked ``yes:`` (confirming it agrees to it)."""
    st = state.story
    fights = st.story.squares[st.square].fights if st is not None else ()
    bout = st.current if st is not None else None
    proposed = bout.proposal.fight if bout is not None and bout.proposal is not None else None
    labels = tuple(
        f"{'yes: ' if a.fight == proposed else ''}{fights[a.fight][0]} v {fights[a.fight][1]}"
        if isinstance(a, ChooseFight) and 0 <= a.fight < len(fights)
        else a.kind
        for a in actions
    )
    title = "agree to the fight?" if proposed is not None else "propose the fight"
    return Chooser(title, labels, tuple(actions))
