"""Story mode (docs/rules.md §12, rulebook B): 13 squares, green against red, victory points.

Players: P1 and P3 are green, P2 and P4 red (seats 0, 2 green; 1, 3 red). On each
square a green and a red player each make one attack attempt (Power dice,
Technique rerolls) with their warrior's combos, the square's combo or a symbol
sum; the higher damage takes the square's victory points; a tie is thrown again.
Squares with several fights: the pair chooses one; with 4 players, two of them
are played (P1-P2 and P3-P4 each play one).

Engine decisions where the rulebook is silent (documented in README.md): with 3
or 4 players a single-fight square is played by the pairs in turn (P1-P2 on odd
squares, P3-P2 or P3-P4 on even ones); a tie in victory points at the end is
shared. Like the tournament engine, this is a pure fold of events: dice arrive
as :class:`DiceThrown`, choices as :class:`ChooseAttack` / :class:`ChooseFight`.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum

from controller.core.errors import IllegalActionError, InvalidThrowError
from controller.core.symbols import Symbol
from controller.game.events import Action, ChooseAttack, ChooseFight, DiceThrown, GameEvent
from controller.gamedata.story import Story
from controller.rules.dice import clamp_pool
from controller.rules.scoring import ThrowScorer
from controller.rules.warriors import Roster


class StorySide(StrEnum):
    """The two sides of Story mode."""

    GREEN = "green"
    RED = "red"


def side_of(seat: int) -> StorySide:
    """P1, P3 green; P2, P4 red."""
    return StorySide.GREEN if seat % 2 == 0 else StorySide.RED


@dataclass(frozen=True)
class Bout:
    """One fight being played on the current square."""

    green_seat: int
    red_seat: int
    fight: int | None = None  # index into the square's fights; None until chosen
    throws: tuple[tuple[Symbol, ...], ...] = ()  # the current thrower's attempt
    green_damage: int | None = None
    red_damage: int | None = None
    rethrows: int = 0


@dataclass(frozen=True)
class StoryState:
    """A Story game. Immutable: :func:`apply_story` returns a new one."""

    story: Story
    roster: Roster
    players: tuple[str, ...]
    square: int = 0  # index 0..12
    bouts: tuple[Bout, ...] = ()
    points: tuple[int, ...] = ()
    over: bool = False
    winners: tuple[int, ...] = ()
    log: tuple[str, ...] = field(default=(), repr=False)

    @property
    def current(self) -> Bout | None:
        """The bout waiting for a choice or a throw (None when the game is over)."""
        for b in self.bouts:
            if b.fight is None or b.green_damage is None or b.red_damage is None:
                return b
        return None

    def fighters(self, bout: Bout) -> tuple[str, str]:
        """(green warrior, red warrior) of a bout whose fight is chosen.

        Raises:
            IllegalActionError: the bout's fight is not chosen yet.
        """
        if bout.fight is None:
            raise IllegalActionError("the fight is not chosen yet")
        return self.story.squares[self.square].fights[bout.fight]

    def side_points(self) -> dict[StorySide, int]:
        """The victory points of each side (its players' points added up)."""
        out = dict.fromkeys(StorySide, 0)
        for seat, p in enumerate(self.points):
            out[side_of(seat)] += p
        return out

    def summary(self) -> dict[str, object]:
        """A JSON-able digest (part of :meth:`GameState.summary` in Story mode)."""
        return {
            "square": self.story.squares[self.square].number,
            "points": list(self.points),
            "victory_points": {str(k): v for k, v in self.side_points().items()},
            "log": list(self.log),
        }


def new_story(story: Story, roster: Roster, players: tuple[str, ...]) -> StoryState:
    """A Story game at square 1.

    Raises:
        IllegalActionError: not 2 to 4 players.
    """
    if not 2 <= len(players) <= 4:
        raise IllegalActionError(f"Story mode is for 2 to 4 players, got {len(players)}")
    s = StoryState(story, roster, players, points=(0,) * len(players))
    return _open_square(s, 0)


def _pairs(n: int, square_no: int, several: bool) -> list[tuple[int, int]]:
    if n == 2:
        return [(0, 1)]
    second = (2, 3) if n == 4 else (2, 1)
    if several:
        return [(0, 1), second]
    return [(0, 1)] if square_no % 2 == 1 else [second]


def _open_square(s: StoryState, index: int) -> StoryState:
    sq = s.story.squares[index]
    several = len(sq.fights) > 1
    pairs = _pairs(len(s.players), sq.number, several)
    if several and len(pairs) > len(sq.fights):
        pairs = pairs[: len(sq.fights)]
    bouts = tuple(Bout(g, r, None if several else 0) for g, r in pairs)
    return replace(s, square=index, bouts=bouts)


def story_actor(s: StoryState) -> int | None:
    """The seat that acts (chooses a fight, throws or cashes in) now."""
    b = s.current
    if b is None:
        return None
    if b.fight is None:
        return b.green_seat
    return b.green_seat if b.green_damage is None else b.red_seat


def _thrower(s: StoryState, b: Bout) -> tuple[str, int]:
    green, red = s.fighters(b)
    return (green, b.green_seat) if b.green_damage is None else (red, b.red_seat)


def story_pool(s: StoryState) -> tuple[int, int]:
    """(dice, rerolls) of the current attempt."""
    b = s.current
    if b is None or b.fight is None:
        return (0, 0)
    f = s.roster.fighter(_thrower(s, b)[0])
    return clamp_pool(f.power), f.technique


def story_options(s: StoryState) -> list[tuple[str, int]]:
    """(option, damage) the current attempt's last throw allows."""
    b = s.current
    if b is None or not b.throws:
        return []
    f = s.roster.fighter(_thrower(s, b)[0])
    scorer = ThrowScorer(f, (s.story.squares[s.square].combo,))
    return [(o.name, o.damage) for o in scorer.score(b.throws[-1]).options]


def apply_story(s: StoryState, e: GameEvent) -> StoryState:
    """The state after ``e``.

    Raises:
        IllegalActionError: an event not allowed now (the message says why).
        InvalidThrowError: a throw with the wrong number of dice.
    """
    if s.over:
        raise IllegalActionError("the story is over")
    b = s.current
    if b is None:
        raise IllegalActionError("nothing to play")
    who = story_actor(s)
    if isinstance(e, Action) and e.seat != who:
        raise IllegalActionError(f"out of turn: the story waits for seat {who}")
    index = s.bouts.index(b)
    if isinstance(e, ChooseFight):
        sq = s.story.squares[s.square]
        taken = {x.fight for x in s.bouts}
        if b.fight is not None or not 0 <= e.fight < len(sq.fights) or e.fight in taken:
            raise IllegalActionError(
                f"square {sq.number}: choose a free fight 0..{len(sq.fights) - 1}"
            )
        return set_bout(s, index, replace(b, fight=e.fight))
    if b.fight is None:
        raise IllegalActionError("choose the fight first")
    if isinstance(e, DiceThrown):
        pool, rerolls = story_pool(s)
        if len(e.dice) != pool:
            raise InvalidThrowError(
                f"the attempt throws {pool} dice, the throw shows {len(e.dice)}"
            )
        if len(b.throws) > rerolls:
            raise IllegalActionError(
                f"all {rerolls} rerolls are made: choose what the throw is worth"
            )
        return set_bout(s, index, replace(b, throws=(*b.throws, tuple(e.dice))))
    if isinstance(e, ChooseAttack):
        options = dict(story_options(s))
        match = next((k for k in options if k.casefold() == e.option.strip().casefold()), None)
        if match is None:
            raise IllegalActionError(
                f"the last throw does not make {e.option!r}; it makes: {', '.join(options)}"
            )
        damage = options[match]
        if b.green_damage is None:
            return set_bout(s, index, replace(b, green_damage=damage, throws=()))
        nb = replace(b, red_damage=damage, throws=())
        return settle(set_bout(s, index, nb))
    raise IllegalActionError(f"a {e.kind} event is not part of Story mode")


def set_bout(s: StoryState, i: int, b: Bout) -> StoryState:
    return replace(s, bouts=(*s.bouts[:i], b, *s.bouts[i + 1 :]))


def settle(s: StoryState) -> StoryState:
    """After a bout's second attempt: a tie is thrown again; once every bout of the square
    is decided its points are taken and the next square opens (or the story ends)."""
    sq = s.story.squares[s.square]
    for i, b in enumerate(s.bouts):
        if b.green_damage is None or b.red_damage is None:
            continue
        if b.green_damage == b.red_damage:  # a tie is thrown again (§12)
            return set_bout(s, i, Bout(b.green_seat, b.red_seat, b.fight, rethrows=b.rethrows + 1))
    if s.current is not None:
        return s
    points = list(s.points)
    log = list(s.log)
    for b in s.bouts:
        green_d, red_d = b.green_damage or 0, b.red_damage or 0
        winner = b.green_seat if green_d > red_d else b.red_seat
        points[winner] += sq.points
        log.append(
            f"square {sq.number}: {s.players[winner]} takes {sq.points} ({green_d} v {red_d})"
        )
    s = replace(s, points=tuple(points), log=tuple(log))
    if s.square + 1 >= len(s.story.squares):
        best = max(points)
        return replace(
            s, over=True, bouts=(), winners=tuple(i for i, p in enumerate(points) if p == best)
        )
    return _open_square(s, s.square + 1)


def story_actions(s: StoryState) -> Iterator[Action]:
    """The legal actions now (throws are inputs, not listed)."""
    b = s.current
    who = story_actor(s)
    if b is None or who is None:
        return
    if b.fight is None:
        taken = {x.fight for x in s.bouts}
        for i in range(len(s.story.squares[s.square].fights)):
            if i not in taken:
                yield ChooseFight(who, i)
        return
    for name, _ in story_options(s):
        yield ChooseAttack(who, name)
