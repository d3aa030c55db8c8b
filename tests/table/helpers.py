"""Helpers for the daemon tests: hands that post device events straight to the table."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, cast

from controller.core.symbols import Symbol
from controller.game.state import GameState, Length, Phase
from controller.table.controller import TableController
from hardware.controls.events import ButtonName, ButtonPressed
from vision.events import ThrowSettled

FACES = tuple(Symbol)


@dataclass
class _Config:
    length: Length
    story: bool = False

    @property
    def timed(self) -> bool:
        return self.length is Length.MINUTES45 and not self.story


@dataclass
class _ClockState:
    """The few fields of a game state the game clock reads."""

    config: _Config
    round: int = 1
    time_up: bool = False
    phase: Phase = Phase.MOVE


def clock_state(**kw: Any) -> GameState:
    """A game state as the clock sees it (``length`` default 45 minutes, ``story``,
    ``round``, ``time_up``, ``phase``)."""
    length = kw.pop("length", Length.MINUTES45)
    return cast(GameState, _ClockState(_Config(length, kw.pop("story", False)), **kw))


def settled(
    dice: tuple[Symbol, ...], roll_no: int = 1, cocked: tuple[int, ...] = ()
) -> ThrowSettled:
    """A settled throw as the camera reader would post it."""
    faces = tuple(None if i in cocked else d.value for i, d in enumerate(dice))
    n = len(dice)
    return ThrowSettled(
        faces=faces, boxes=((0.0, 0.0, 1.0, 1.0),) * n, confidences=(0.99,) * n, cocked=cocked,
        unsure=(), expected=n, count_mismatch=False, roll_no=roll_no, kept=(), rerolled=tuple(range(n)),
        speed="lightning", timestamp=0.0, face_set="tournament",
    )  # fmt: skip


class DirectHands:
    """Acts by calling the table's handlers, as the devices' events would. Every
    ``misread_every``-th throw comes with its first die cocked."""

    def __init__(self, table: TableController, seed: int = 0, misread_every: int = 0) -> None:
        self.table = table
        self.seed = seed
        self.misread_every = misread_every
        self.throws = 0
        self.truth: tuple[Symbol, ...] = ()
        self.camera_on = True

    def _rng(self) -> random.Random:
        return random.Random(f"{self.seed}:{self.table.state.events_applied}:dice:{self.throws}")

    def press(self, button: ButtonName, long: bool = False) -> None:
        self.table.on_button(ButtonPressed(button, long))

    def move_token(self, origin: int, space: int) -> None:
        self.table.on_board_move(self.table.state.occ[origin], origin, space)

    def place_token(self, space: int) -> None:
        self.table.on_token_placed(space)

    def lift_token(self, space: int) -> None:
        self.table.token_lifted(self.table.state.occ[space])

    def throw(self, count: int) -> None:
        rng = self._rng()
        self._show(tuple(FACES[rng.randrange(6)] for _ in range(count)))

    def reroll(self, keep: Sequence[Symbol]) -> None:
        rng = self._rng()
        kept = list(keep)
        new = kept + [FACES[rng.randrange(6)] for _ in range(len(self.truth) - len(kept))]
        self._show(tuple(new))

    def dice(self) -> tuple[Symbol, ...]:
        return self.truth

    def _show(self, dice: tuple[Symbol, ...]) -> None:
        self.truth = dice
        self.throws += 1
        if not self.camera_on:
            return
        cocked = (0,) if self.misread_every and self.throws % self.misread_every == 0 else ()
        self.table.on_throw(settled(dice, cocked=cocked))
