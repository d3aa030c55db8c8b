"""Move tracking: from sensor lifts and places to moves of named tokens (PicoChess-style).

The rules say which moves are legal, as data: a collection of ``(from, to)``
space pairs, or a callable returning one (asked afresh at each decision). A lift
from A and a place on B become ``TokenMoved("Goku", A, B)`` once the token has
rested on B for ``settle_s`` seconds, so a token slid across other spaces counts
once, for where it stops. A token lifted and put back is ``TokenReturned``; a
placement that is not legal is ``IllegalPlacement`` (with the legal spaces, for
the display); a place that fits two lifted tokens is a ``MoveQuestion`` answered
with :meth:`MoveTracker.answer`; a change nobody can explain is
``UnexpectedChange``. Nothing here raises on bad input from the board: it is
counted and returned as an outcome (logged at debug level: whether it deserves a
warning depends on the game, see :mod:`controller.board.follow`).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass

from controller.core.errors import IllegalActionError, UnknownNameError
from controller.core.events import Event
from controller.core.quoting import short_repr
from controller.gamedata.board import BoardLayout

log = logging.getLogger(__name__)

Move = tuple[int, int]
LegalMoves = Collection[Move] | Callable[[], Iterable[Move]]


@dataclass(frozen=True)
class TokenLifted(Event):
    """A known token left its space (the display may show where it can go)."""

    token: str
    space: int


@dataclass(frozen=True)
class TokenMoved(Event):
    """A token moved and came to rest: "Goku moves 3 -> 9"."""

    token: str
    src: int
    dst: int

    def __str__(self) -> str:
        return f"{self.token} moves {self.src}→{self.dst}"


@dataclass(frozen=True)
class TokenReturned(Event):
    """A token was lifted and put back where it was."""

    token: str
    space: int


@dataclass(frozen=True)
class IllegalPlacement(Event):
    """A token rests on a space it may not move to; ``legal`` lists where it may go."""

    token: str
    src: int
    dst: int
    legal: tuple[int, ...]

    def __str__(self) -> str:
        where = ", ".join(map(str, self.legal)) or "nowhere (put it back)"
        return f"{self.token} cannot move {self.src}→{self.dst}; legal: {where}"


@dataclass(frozen=True)
class MoveQuestion(Event):
    """The tracker cannot tell which token was placed on ``space``: ask the players."""

    space: int
    candidates: tuple[TokenMoved, ...]

    def __str__(self) -> str:
        options = "; ".join(f"{i + 1}) {c}" for i, c in enumerate(self.candidates))
        return f"which token is on {self.space}? {options}"


@dataclass(frozen=True)
class UnexpectedChange(Event):
    """A sensor change no token explains (a stray magnet, a missed lift...)."""

    space: int
    occupied: bool
    message: str


Outcome = (
    TokenLifted | TokenMoved | TokenReturned | IllegalPlacement | MoveQuestion | UnexpectedChange
)


@dataclass
class _Placed:
    token: str
    src: int
    at: float
    legal: bool
    reported: bool = False


class MoveTracker:
    """Follows named tokens from board changes. Single-threaded: call from the table's thread."""

    def __init__(
        self,
        positions: Mapping[str, int],
        legal: LegalMoves,
        *,
        settle_s: float = 0.4,
        layout: BoardLayout | None = None,
    ) -> None:
        """Raises:
        IllegalActionError: two tokens start on one space.
        """
        self._at: dict[int, str] = {}
        for token, space in positions.items():
            if space in self._at:
                raise IllegalActionError(
                    f"{token} and {self._at[space]} both start on space {space}"
                )
            self._at[space] = token
        self._legal = legal
        self.settle_s = settle_s
        self.layout = layout
        self._lifted: dict[int, str] = {}  # origin space -> token in the air
        self._placed: dict[int, _Placed] = {}  # space -> token resting there, move not yet final
        self._stray: set[int] = set()
        self._question: tuple[MoveQuestion, float] | None = None
        self.unknown_sensors = 0
        self.unexpected = 0

    # -- queries ---------------------------------------------------------------
    def positions(self) -> dict[str, int]:
        """Where each token is known to rest (moves not yet settled are not included)."""
        return {token: space for space, token in self._at.items()}

    def in_the_air(self) -> dict[str, int]:
        """Tokens lifted and not yet placed, with the space they came from."""
        return {token: space for space, token in self._lifted.items()}

    @property
    def question(self) -> MoveQuestion | None:
        """The open question for the display, if any."""
        return self._question[0] if self._question else None

    def legal_moves(self) -> frozenset[Move]:
        """The legal (from, to) pairs as of now."""
        moves = self._legal() if callable(self._legal) else self._legal
        return frozenset(moves)

    def destinations(self, src: int) -> tuple[int, ...]:
        """Where a token on ``src`` may legally go."""
        return tuple(sorted(b for a, b in self.legal_moves() if a == src))

    # -- input -----------------------------------------------------------------
    def on_sensor(self, sensor: int, occupied: bool, now: float) -> list[Outcome]:
        """A sensor change; mapped to its space through the layout (ignored if unmapped)."""
        if self.layout is None:
            return self.on_change(sensor, occupied, now)
        space = self.layout.space_for_sensor(sensor)
        if space is None:
            self.unknown_sensors += 1
            log.warning(
                "sensor %d changed, but board %r maps only sensors %s; ignored",
                sensor,
                self.layout.name,
                _ranges(s.sensor for s in self.layout.spaces.values() if s.sensor is not None),
            )
            return []
        return self.on_change(space, occupied, now)

    def on_change(self, space: int, occupied: bool, now: float) -> list[Outcome]:
        """A space became occupied or empty at time ``now`` (seconds, any monotonic clock)."""
        out = self.tick(now)
        out += self._place(space, now) if occupied else self._lift(space)
        return out

    def tick(self, now: float) -> list[Outcome]:
        """Finish the moves whose token has rested ``settle_s``; call it a few times a second."""
        out: list[Outcome] = []
        for space, p in list(self._placed.items()):
            if now - p.at < self.settle_s:
                continue
            if p.legal:
                del self._placed[space]
                self._at[space] = p.token
                out.append(TokenMoved(p.token, p.src, space))
            elif not p.reported:
                p.reported = True
                out.append(IllegalPlacement(p.token, p.src, space, self.destinations(p.src)))
        return out

    def answer(self, choice: int) -> list[Outcome]:
        """Answer the open question with the 0-based index of the right candidate.

        Raises:
            IllegalActionError: no question is open.
            UnknownNameError: ``choice`` is not one of the candidates.
        """
        if self._question is None:
            raise IllegalActionError("no question is open")
        q, at = self._question
        if not 0 <= choice < len(q.candidates):
            raise UnknownNameError(f"choice {choice} is not one of 0..{len(q.candidates) - 1}")
        move = q.candidates[choice]
        self._question = None
        self._lifted.pop(move.src, None)
        self._placed[q.space] = _Placed(move.token, move.src, at, True)
        return self.tick(at + self.settle_s)

    def assign(self, token: str, space: int) -> None:
        """Say which token stands on a space the tracker could not explain.

        Raises:
            UnknownNameError: no such token.
        """
        known = (
            set(self._at.values())
            | set(self._lifted.values())
            | {p.token for p in self._placed.values()}
        )
        if token not in known:
            raise UnknownNameError(
                f"no token named {short_repr(token)}; known: {', '.join(sorted(known))}"
            )
        for table in (self._at, self._lifted):
            for s, t in list(table.items()):
                if t == token:
                    del table[s]
        for s, p in list(self._placed.items()):
            if p.token == token:
                del self._placed[s]
        self._stray.discard(space)
        self._at[space] = token

    # -- the two primitive changes ----------------------------------------------------
    def _lift(self, space: int) -> list[Outcome]:
        placed = self._placed.pop(space, None)
        if placed is not None:  # lifted again before settling: a slide, or a correction
            self._lifted[placed.src] = placed.token
            return []
        if space in self._at:
            token = self._at.pop(space)
            self._lifted[space] = token
            return [TokenLifted(token, space)]
        if space in self._stray:
            self._stray.discard(space)
            return []
        if self._question is not None and self._question[0].space == space:
            self._question = None  # the token in question was taken away again
            return []
        return [self._unexpected(space, False, f"a token left space {space}, where none was known")]

    def _place(self, space: int, now: float) -> list[Outcome]:
        if space in self._lifted:
            token = self._lifted.pop(space)
            self._at[space] = token
            return [TokenReturned(token, space)]
        if not self._lifted:
            self._stray.add(space)
            return [
                self._unexpected(
                    space, True, f"a token appeared on space {space}, but none was lifted"
                )
            ]
        legal = self.legal_moves()
        fits = [(src, tok) for src, tok in self._lifted.items() if (src, space) in legal]
        if len(self._lifted) == 1:
            src, token = next(iter(self._lifted.items()))
            del self._lifted[src]
            self._placed[space] = _Placed(token, src, now, (src, space) in legal)
            return []
        if len(fits) == 1:
            src, token = fits[0]
            del self._lifted[src]
            self._placed[space] = _Placed(token, src, now, True)
            return []
        if not fits:
            names = ", ".join(sorted(self._lifted.values()))
            self._stray.add(space)
            return [
                self._unexpected(
                    space, True, f"no lifted token ({names}) may move to space {space}"
                )
            ]
        q = MoveQuestion(space, tuple(TokenMoved(tok, src, space) for src, tok in sorted(fits)))
        self._question = (q, now)
        return [q]

    def _unexpected(self, space: int, occupied: bool, message: str) -> UnexpectedChange:
        # Counted and returned; the caller, who knows the game, says whether a person
        # should look (a stray magnet during play) or not (tokens tidied away).
        self.unexpected += 1
        log.debug("%s", message)
        return UnexpectedChange(space, occupied, message)


def _ranges(values: Iterable[int]) -> str:
    nums = sorted(set(values))
    if not nums:
        return "none"
    parts = []
    start = prev = nums[0]
    for n in [*nums[1:], None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        parts.append(str(start) if start == prev else f"{start}..{prev}")
        if n is not None:
            start = prev = n
    return ", ".join(parts)
