"""The board: spaces, their colours, adjacency and sensors. One module for all.

The game flow (movement, landing, support dice) and the board link's move
tracking (which sensor is which space) both use this one layout. The layout is
data (``board.toml``), validated at load; see ``controller/data/README.md`` for
the format.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from controller.core.checked import Problems, name_problem
from controller.core.quoting import short_repr
from controller.core.tomlfile import read_toml

MAX_SENSORS = 128
MAX_SPACE_ID = 999_999_999
"""The largest space id (nine digits: no board has a billion spaces); a sensor map writes
ids as its keys and reads back no larger one."""
MOVE_STEPS = 4  # docs/rules.md §10: a warrior moves up to 4 spaces


class Colour(StrEnum):
    """A space's colour; red, yellow and blue name the card deck drawn there."""

    RED = "red"
    YELLOW = "yellow"
    BLUE = "blue"
    GREEN = "green"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Space:
    """One space of the board."""

    id: int
    colour: Colour
    neighbours: frozenset[int]
    sensor: int | None  # index of its hall sensor, or None if not wired/mapped
    name: str = ""


@dataclass(frozen=True)
class BoardLayout:
    """The board graph. ``example`` is True for a layout not mapped from a real board."""

    name: str
    spaces: Mapping[int, Space]
    example: bool = False
    source: str = ""

    def __post_init__(self) -> None:
        by_sensor = {s.sensor: s.id for s in self.spaces.values() if s.sensor is not None}
        object.__setattr__(self, "_by_sensor", by_sensor)

    def space(self, space_id: int) -> Space:
        """The space with this id.

        Raises:
            KeyError: no such space.
        """
        try:
            return self.spaces[space_id]
        except KeyError:
            raise KeyError(
                f"board {short_repr(self.name)} has no space {short_repr(space_id)}"
            ) from None

    def colour(self, space_id: int) -> Colour:
        """The colour of a space (KeyError if it does not exist)."""
        return self.space(space_id).colour

    def neighbours(self, space_id: int) -> frozenset[int]:
        """The spaces adjacent to ``space_id`` (KeyError if it does not exist)."""
        return self.space(space_id).neighbours

    def adjacent(self, a: int, b: int) -> bool:
        """Whether two spaces touch."""
        return b in self.neighbours(a)

    def space_for_sensor(self, sensor: int) -> int | None:
        """The space wired to ``sensor``, or None if no space uses it."""
        found: dict[int, int] = object.__getattribute__(self, "_by_sensor")
        return found.get(sensor)

    @property
    def sensor_count(self) -> int:
        """How many sensors the layout needs (highest index + 1)."""
        sensors = [s.sensor for s in self.spaces.values() if s.sensor is not None]
        return max(sensors) + 1 if sensors else 0

    def distances(self, start: int, max_steps: int = MOVE_STEPS) -> dict[int, int]:
        """Shortest step counts from ``start`` to every space within ``max_steps``.

        Tokens never block a path (docs/rules.md §10: a move passes over any token).
        The start itself is at distance 0.
        """
        self.space(start)
        dist = {start: 0}
        queue = deque([start])
        while queue:
            here = queue.popleft()
            if dist[here] == max_steps:
                continue
            for nxt in self.spaces[here].neighbours:
                if nxt not in dist:
                    dist[nxt] = dist[here] + 1
                    queue.append(nxt)
        return dist

    def reachable(
        self, start: int, teammates: Iterable[int] = (), max_steps: int = MOVE_STEPS
    ) -> frozenset[int]:
        """Spaces a warrior on ``start`` may end a move on: 1..max_steps away, no teammate there."""
        blocked = set(teammates)
        return frozenset(
            s for s, d in self.distances(start, max_steps).items() if d >= 1 and s not in blocked
        )

    def with_sensors(self, mapping: Mapping[int, int]) -> BoardLayout:
        """A copy whose space->sensor assignment is ``mapping`` (others unmapped)."""
        spaces = {
            sid: Space(s.id, s.colour, s.neighbours, mapping.get(sid), s.name)
            for sid, s in self.spaces.items()
        }
        return BoardLayout(self.name, spaces, self.example, self.source)


_SPACE_KEYS = {"id", "colour", "neighbours", "sensor", "name"}
_TOP_KEYS = {"name", "example", "note", "space"}


def parse_board(data: Mapping[str, Any], file: str) -> BoardLayout:
    """Build and validate a layout from parsed TOML.

    Raises:
        DataError: every problem found, each naming the file, the space and the field.
    """
    problems = Problems(file)

    def bad(entry: str, field: str, message: str) -> None:
        problems.add(entry, field, message)

    problems.unknown_keys(data, _TOP_KEYS)
    name = data.get("name", Path(file).stem)
    if not isinstance(name, str) or not name.strip():
        bad("", "name", f"expected a non-empty string, got {short_repr(name)}")
        name = str(name)
    elif (why := name_problem(name)) is not None:
        bad("", "name", why)
    problems.optional_text(data, "note")
    example = data.get("example", False)
    if not isinstance(example, bool):
        bad("", "example", "expected true or false")
        example = True
    raw_spaces = data.get("space")
    if not isinstance(raw_spaces, list) or not raw_spaces:
        bad("", "space", "expected at least one [[space]] table")
        raise problems.error()

    spaces: dict[int, Space] = {}
    sensors: dict[int, int] = {}
    raw_neighbours: dict[int, list[Any]] = {}
    for index, raw in enumerate(raw_spaces):
        entry = f"space #{index + 1}"
        if not isinstance(raw, dict):
            bad(entry, "", "expected a table")
            continue
        sid = raw.get("id")
        if not isinstance(sid, int) or isinstance(sid, bool) or not 0 <= sid <= MAX_SPACE_ID:
            bad(entry, "id", f"expected a whole number 0..{MAX_SPACE_ID}, got {short_repr(sid)}")
            continue
        entry = f"space {sid}"
        for key in raw:
            if key not in _SPACE_KEYS:
                bad(entry, key, f"unknown key; expected one of {', '.join(sorted(_SPACE_KEYS))}")
        if sid in spaces:
            bad(entry, "id", "duplicate space id")
            continue
        colour_text = raw.get("colour")
        try:
            colour = Colour(str(colour_text))
        except ValueError:
            bad(
                entry,
                "colour",
                f"expected one of red, yellow, blue, green, got {short_repr(colour_text)}",
            )
            colour = Colour.GREEN
        sensor = raw.get("sensor")
        if sensor is not None:
            if (
                not isinstance(sensor, int)
                or isinstance(sensor, bool)
                or not 0 <= sensor < MAX_SENSORS
            ):
                bad(
                    entry,
                    "sensor",
                    f"expected a sensor index 0..{MAX_SENSORS - 1}, got {short_repr(sensor)}",
                )
                sensor = None
            elif sensor in sensors:
                bad(entry, "sensor", f"sensor {sensor} is already used by space {sensors[sensor]}")
                sensor = None
            else:
                sensors[sensor] = sid
        neighbours = raw.get("neighbours", [])
        if not isinstance(neighbours, list):
            bad(entry, "neighbours", "expected a list of space ids")
            neighbours = []
        raw_neighbours[sid] = neighbours
        label = raw.get("name", "")
        if not isinstance(label, str):
            bad(entry, "name", "expected a string")
            label = ""
        elif (why := name_problem(label)) is not None:
            bad(entry, "name", why)
            label = ""
        spaces[sid] = Space(sid, colour, frozenset(), sensor, label)

    final: dict[int, Space] = {}
    for sid, neighbours in raw_neighbours.items():
        entry = f"space {sid}"
        good: set[int] = set()
        for n in neighbours:
            if not isinstance(n, int) or isinstance(n, bool) or n not in spaces:
                bad(entry, "neighbours", f"{short_repr(n)} is not a space of this board")
            elif n == sid:
                bad(entry, "neighbours", "a space cannot be its own neighbour")
            elif n in good:
                bad(entry, "neighbours", f"lists {n} twice")
            else:
                good.add(n)
        final[sid] = Space(
            sid, spaces[sid].colour, frozenset(good), spaces[sid].sensor, spaces[sid].name
        )
    for sid, space in final.items():
        for n in space.neighbours:
            if sid not in final[n].neighbours:
                bad(f"space {sid}", "neighbours", f"lists {n}, but space {n} does not list {sid}")
        if not space.neighbours and not raw_neighbours[sid] and len(final) > 1:
            # a token there could never move, and a move is not optional: the game stops
            bad(f"space {sid}", "neighbours", "expected at least one neighbour (a token on a "
                "space with none could never move)")  # fmt: skip
    problems.check()
    return BoardLayout(name, final, example, file)


def load_board(path: str | Path) -> BoardLayout:
    """Load and validate a board layout file.

    Raises:
        DataError: the file is missing, not TOML, or its layout is invalid.
    """
    path = Path(path)
    data = read_toml(path)
    return parse_board(data, str(path))
