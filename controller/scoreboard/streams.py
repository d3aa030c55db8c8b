"""Each game's event stream as the scoreboard receives it: deduplicated, put back in order by
seq, in bounded space and time whatever numbers arrive.

What the stream supports: a table sends its journal's rows in order, at most
:data:`~controller.publish.publisher.WINDOW` in flight, and after a reconnection
goes back :data:`~controller.publish.publisher.REPLAY` rows. So an honest stream
never jumps far past the highest seq seen: an event more than :data:`WINDOW`
past it is *flagged* (``jumps``) and not held. Only a run of :data:`RESYNC_RUN`
consecutive seqs out there (a table that really went on while this scoreboard's
queue at the broker overflowed) moves the stream to it; one forged number never does.

Events waiting behind a gap are held while they are within :data:`WINDOW` of the
lowest seq still missing; when the stream has gone a whole window past a gap,
the gap is given up (``lost``) and the held events are passed on. Every call
costs at most O(:data:`WINDOW`) and holds at most :data:`WINDOW` numbers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MISSING_SHOWN = 50  # missing seqs listed (the count is given apart)
WINDOW = 1024  # seqs held ahead of a gap, and the largest plausible jump past the highest seq
RESYNC_RUN = 8  # consecutive seqs beyond the window that make the stream move there
KINDS_KEPT = 5


@dataclass
class EventLog:
    """One game's events as received: deduplicated and put back in order by seq."""

    game_id: str
    delivered: int = 0  # every seq up to this one arrived (and was passed on) or was given up
    first: int = 1  # the first seq this scoreboard could see (it joined the game there)
    ahead: set[int] = field(default_factory=set)  # arrived past a gap, waiting for it
    top: int = 0  # the highest seq taken in (delivered or held)
    duplicates: int = 0
    reordered: int = 0  # arrived ahead of a gap (delivered later, in order)
    lost: int = 0  # seqs given up: the stream went a whole window past them
    jumps: int = 0  # seqs far beyond the stream, flagged and not held
    kinds: list[str] = field(default_factory=list)  # the last few kinds delivered
    _run: tuple[int, int] | None = None  # (first, next) of a run of seqs beyond the window

    def __post_init__(self) -> None:
        self.top = max(self.top, self.delivered)

    def receive(self, seq: int, kind: str) -> list[int]:
        """Note one arrival; return the seqs now passed on, in order (maybe none)."""
        if seq <= self.delivered or seq in self.ahead:
            self.duplicates += 1
            return []
        if seq > self.top + WINDOW:
            return self._beyond(seq, kind)
        out = self._give_up_below(seq - WINDOW) if seq - self.delivered > WINDOW else []
        self.top = max(self.top, seq)
        if seq != self.delivered + 1:
            self.ahead.add(seq)
            self.reordered += 1
            return out
        out.append(seq)
        self.delivered = seq
        out += self._pass_on_held()
        self._note(kind)
        return out

    def supports(self, seq: int, slack: int) -> bool:
        """Whether a state including rows up to ``seq`` is within what this stream has seen."""
        return seq <= self.top + slack

    def _beyond(self, seq: int, kind: str) -> list[int]:
        """A seq past the window: flagged, unless it completes a run of consecutive ones."""
        run = self._run
        if run is not None and seq == run[1]:
            self._run = run = (run[0], seq + 1)
            if run[1] - run[0] >= RESYNC_RUN:
                return self._resync(run[0], seq, kind)
            return []
        self._run = (seq, seq + 1)
        self.jumps += 1
        return []

    def _resync(self, start: int, end: int, kind: str) -> list[int]:
        out = sorted(self.ahead)
        self.lost += (start - 1 - self.delivered) - len(self.ahead)
        self.ahead.clear()
        out += range(start, end + 1)
        self.delivered = self.top = end
        self._run = None
        self._note(kind)
        return out

    def _give_up_below(self, floor: int) -> list[int]:
        """Stop waiting for the seqs up to ``floor``: held ones are passed on, the rest lost."""
        out = []
        for s in range(self.delivered + 1, floor + 1):
            if s in self.ahead:
                self.ahead.discard(s)
                out.append(s)
            else:
                self.lost += 1
        self.delivered = max(self.delivered, floor)
        return out + self._pass_on_held()

    def _pass_on_held(self) -> list[int]:
        out = []
        while self.delivered + 1 in self.ahead:
            self.delivered += 1
            self.ahead.discard(self.delivered)
            out.append(self.delivered)
        return out

    def _note(self, kind: str) -> None:
        self.kinds = [*self.kinds[-(KINDS_KEPT - 1) :], kind]

    def missing_count(self) -> int:
        """How many seqs are still absent below the highest taken in."""
        return self.top - self.delivered - len(self.ahead)

    def missing(self) -> list[int]:
        """The first :data:`MISSING_SHOWN` seqs still absent (constant space: no range is built)."""
        out: list[int] = []
        s = self.delivered + 1
        while s < self.top and len(out) < MISSING_SHOWN:
            if s not in self.ahead:
                out.append(s)
            s += 1
        return out

    def to_json(self) -> dict[str, Any]:
        """The delivery figures the API shows."""
        return {
            "game_id": self.game_id,
            "first_seq": self.first,
            "last_seq": self.delivered,
            "missing": self.missing(),
            "missing_count": self.missing_count(),
            "duplicates": self.duplicates,
            "reordered": self.reordered,
            "lost": self.lost,
            "jumps": self.jumps,
        }
