"""What ``toptable demo --json`` prints: :class:`DemoSummary` (the Story fields only in
Story mode, the delivery only with --mqtt, so a plain Tournament summary keeps its keys)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from controller.core.kinds import GameKind
from controller.game.state import GameState


@dataclass
class DemoSummary:
    """What ``toptable demo --json`` prints."""

    seed: int
    players: list[str]
    length: str
    winners: list[str]
    warriors_left: dict[str, int]
    rounds: int
    combats: int
    throws: int  # dice throws in the whole game (from the journal)
    throws_read: int  # throws the camera read in this run
    reads_disagreeing: int
    reads_flagged: int
    silent_misreads: int
    moves_from_board: int
    button_presses: int
    events: int
    seconds: float
    journal: str
    log: str
    gif: str
    resumed: bool = False
    handler_failures: int = 0  # table-loop handlers that raised (logged): 0 in a good run
    latency_ms: dict[str, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    mode: str | None = None  # Story mode only (a Tournament summary has none of these)
    victory_points: dict[str, int] | None = None  # per side (green, red)
    points: dict[str, int] | None = None  # per player
    squares: int | None = None  # squares played
    delivery: str | None = None  # --mqtt only: "N of M events delivered[; the rest wait ...]"
    undelivered: int | None = None  # --mqtt only: journal rows the broker has not taken

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON-able dict (the Story fields only in Story mode, the
        delivery only with --mqtt)."""
        return {k: v for k, v in self.__dict__.items() if v is not None or k not in _OPTIONAL}


_OPTIONAL = frozenset({"mode", "victory_points", "points", "squares", "delivery", "undelivered"})


def story_fields(state: GameState) -> dict[str, Any]:
    """The Story summary's fields (none for a Tournament game)."""
    st = state.story
    if st is None:
        return {}
    return {
        "mode": GameKind.STORY.value,
        "victory_points": {str(k): v for k, v in st.side_points().items()},
        "points": dict(zip(state.players, st.points, strict=True)),
        "squares": st.square + 1,
    }
