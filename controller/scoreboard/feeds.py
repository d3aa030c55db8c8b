"""What the scoreboard knows of one table: its shown state, its games' streams, its flags.

A table is shown once it has sent one valid state. Besides the state, a feed
keeps the event streams of its last few games (:mod:`.streams`), counts what it
dropped or flagged, and watches the publisher instances behind its messages:
every table process stamps its messages with a random ``instance``, so two
processes publishing as one table id (a cloned SD card) show as messages
switching back and forth between two instances. One switch is a restart; two or
more within :data:`DUPLICATE_WINDOW_S` is a duplicate, shown on the card.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import Any

from controller.scoreboard.streams import WINDOW, EventLog

GAMES_PER_TABLE = 4  # event streams kept per table (a late event of the last game)
GAMES_REMEMBERED = 16  # game ids known per table (to tell an older game's late state)
DUPLICATE_WINDOW_S = 60.0
INSTANCES_KEPT = 4


@dataclass
class TableFeed:
    """One table as the scoreboard knows it (its methods run under the board's lock)."""

    table_id: str
    state: dict[str, Any] | None = None
    online: bool | None = None
    games: dict[str, EventLog] = field(default_factory=dict)  # the last few games' streams
    dropped: int = 0  # messages that failed the checks
    flagged: int = 0  # states ahead of what their event stream supports, not (yet) believed
    held: tuple[dict[str, Any], bool] | None = None  # the last such state, and if retained
    received_at: float | None = None  # wall time of the shown state (told, never measured)
    shown_at: float | None = None  # monotonic time of the shown state (None: not known)
    heard_at: float = 0.0  # monotonic time of the last valid message
    known_games: OrderedDict[str, None] = field(default_factory=OrderedDict)
    _instance: str | None = None
    _offline_of: str | None = None  # the instance whose "offline" is shown
    _switches: deque[float] = field(default_factory=lambda: deque(maxlen=INSTANCES_KEPT))
    _instances: OrderedDict[str, None] = field(default_factory=OrderedDict)

    # ------------------------------------------------------------ input
    def note_game(self, game_id: str) -> bool:
        """Remember ``game_id``; True if it is new to this table (not an older game's)."""
        new = game_id not in self.known_games
        self.known_games[game_id] = None
        self.known_games.move_to_end(game_id)
        while len(self.known_games) > GAMES_REMEMBERED:
            self.known_games.popitem(last=False)
        return new

    def note_online(self, online: bool, instance: str | None) -> bool:
        """A table's "online" or "offline"; False if it is ignored: an "offline" of another
        instance than the one heard last is the last will of a process that died (a power
        cut), which mosquitto sends up to 1.5 keepalives after its successor said online."""
        if not online and instance is not None and self._instance not in (None, instance):
            return False
        self.online = online
        self._offline_of = None if online else instance
        return True

    def note_instance(self, instance: str | None, now: float) -> None:
        """The publisher instance behind a message (None: a table too old to say). A
        message of another instance than the one whose "offline" is shown (a retained will
        the broker kept) says its table is online again."""
        if instance is None:
            return
        if self.online is False and self._offline_of not in (None, instance):
            self.online, self._offline_of = True, None
        if self._instance is not None and instance != self._instance:
            self._switches.append(now)
        self._instance = instance
        self._instances[instance] = None
        self._instances.move_to_end(instance)
        while len(self._instances) > INSTANCES_KEPT:
            self._instances.popitem(last=False)

    def duplicate(self, now: float) -> bool:
        """Whether two publishers seem to share this table id (switching back and forth)."""
        recent = [t for t in self._switches if now - t <= DUPLICATE_WINDOW_S]
        return len(recent) >= 2

    def events(self, game_id: str, seq: int) -> EventLog:
        """The stream of ``game_id``, made on its first event ``seq``.

        A scoreboard joining mid-game starts the stream at the shown state's seq (the
        rows up to it are in the state) when the event is within a window of it, else
        just before the event (the shown state is then not supported by the stream).
        """
        log = self.games.get(game_id)
        if log is None:
            start = seq - 1
            shown = self.state
            if (
                shown is not None
                and shown["game_id"] == game_id
                and abs(seq - shown["seq"]) <= WINDOW
            ):
                start = shown["seq"]
            log = self.games[game_id] = EventLog(game_id, delivered=start, first=start + 1)
            while len(self.games) > GAMES_PER_TABLE:
                self.games.pop(next(iter(self.games)))
        return log

    # ------------------------------------------------------------ output
    def shown_events(self) -> EventLog | None:
        """The event stream of the game shown (the state's, else the newest)."""
        if self.state is not None and self.state["game_id"] in self.games:
            return self.games[self.state["game_id"]]
        return self.games[next(reversed(self.games))] if self.games else None

    def to_json(self, now: float) -> dict[str, Any]:
        """The table as ``GET /api/tables`` lists it: its latest state plus delivery figures.
        Its age is measured on the monotonic clock ``now``: NTP steps a Pi's wall clock."""
        base: dict[str, Any] = (
            dict(self.state)
            if self.state is not None
            else {"game_id": None, "round": 0, "teams": [], "winners": [], "over": False}
        )
        events = self.shown_events()
        base["table_id"] = self.table_id
        base["online"] = self.online
        base["events"] = events.to_json() if events is not None else None
        base["dropped"] = self.dropped
        base["flagged"] = self.flagged + sum(g.jumps for g in self.games.values())
        base["received_at"] = self.received_at
        base["age_s"] = None if self.shown_at is None else round(max(0.0, now - self.shown_at), 1)
        base["duplicate"] = self.duplicate(now)
        base["instances"] = list(self._instances) if base["duplicate"] else []
        return base
