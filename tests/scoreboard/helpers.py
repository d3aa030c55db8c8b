"""What the scoreboard's tests share: a clock moved by hand, a table's state message."""

from __future__ import annotations

from typing import Any

from controller.game.state import GameState
from controller.publish.messages import encode, state_message


class Clock:
    """A monotonic and a wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def wall(self) -> float:
        return 1_700_000_000.0 + self.now


def state_bytes(final: GameState, table: str = "t1", seq: int = 9, **change: Any) -> bytes:
    """``final``'s state message from ``table`` at row ``seq`` of game g1 (fields
    ``change``d), as the broker carries it."""
    m = state_message(final, table, seq=seq, game_id="g1")
    m.update(change)
    return encode(m)
