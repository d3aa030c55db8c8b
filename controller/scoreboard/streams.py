"""One table's entry and each game's event stream, deduplicated and put back in order by seq."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MISSING_SHOWN = 50


# ---------------------------------------------------------------- the event stream of a game
@dataclass
class EventLog:
    """One game's events as received: deduplicated and put back in order by seq."""

    game_id: str
    delivered: int = 0  # every seq up to this one has arrived (and was passed on, in order)
    first: int = 1  # the first seq this scoreboard could see (it joined the game there)
    ahead: set[int] = field(default_factory=set)  # arrived past a gap, waiting for it
    duplicates: int = 0
    reordered: int = 0  # arrived ahead of a gap (delivered later, in order)
    kinds: list[str] = field(default_factory=list)  # the last few kinds delivered

    def receive(self, seq: int, kind: str) -> list[int]:
        """Note one arrival; return the seqs now delivered in order (maybe none)."""
        if seq <= self.delivered or seq in self.ahead:
            self.duplicates += 1
            return []
        if seq != self.delivered + 1:
            self.ahead.add(seq)
            self.reordered += 1
            return []
        out = [seq]
        self.delivered = seq
        while self.delivered + 1 in self.ahead:
            self.delivered += 1
            self.ahead.discard(self.delivered)
            out.append(self.delivered)
        self.kinds = [*self.kinds[-4:], kind]
        return out

    def missing(self) -> list[int]:
        """The seqs still absent below the highest arrived (at most 50 shown)."""
        if not self.ahead:
            return []
        top = max(self.ahead)
        return [s for s in range(self.delivered + 1, top) if s not in self.ahead][:MISSING_SHOWN]

    def to_json(self) -> dict[str, Any]:
        """The delivery figures the API shows."""
        return {
            "game_id": self.game_id,
            "first_seq": self.first,
            "last_seq": self.delivered,
            "missing": self.missing(),
            "duplicates": self.duplicates,
            "reordered": self.reordered,
        }


@dataclass
class TableFeed:
    """What is known of one table."""

    table_id: str
    state: dict[str, Any] | None = None
    online: bool | None = None
    games: dict[str, EventLog] = field(default_factory=dict)  # the last few games' streams
    dropped: int = 0
    received_at: float | None = None

    def events(self) -> EventLog:
        """The event stream of the game shown (the state's, else the newest); needs ``games``."""
        if self.state is not None and self.state["game_id"] in self.games:
            return self.games[self.state["game_id"]]
        return self.games[next(reversed(self.games))]

    def to_json(self) -> dict[str, Any]:
        """The table as ``GET /api/tables`` lists it: its latest state plus delivery figures."""
        base: dict[str, Any] = (
            dict(self.state)
            if self.state is not None
            else {"game_id": None, "round": 0, "teams": [], "winners": [], "over": False}
        )
        base["table_id"] = self.table_id
        base["online"] = self.online
        base["events"] = self.events().to_json() if self.games else None
        base["dropped"] = self.dropped
        base["received_at"] = self.received_at
        return base
