"""Story mode (docs/rules.md §12, rulebook B): 13 squares, green against red, victory points.

This module is what is Story's own, as pure data: which pairs play each square, the
fight two players choose together on a square that offers several, the damage of
each side's attempt, who takes the square and who wins after square 13. The attempts
themselves are the engine's (:mod:`controller.game.engine.story`): each is an attack
thrown with the table's dice through the same handlers as a Tournament attack.

Players: P1 and P3 are green, P2 and P4 red (seats 0, 2 green; 1, 3 red; B l.196).
Pairs alternate by square: P1-P2 on odd squares, P3-P2 (3 players) or P3-P4 (4 players)
on even ones (B l.225). A square with several fights is played once, by its pair,
with 2 or 3 players, and twice with 4 (each pair its own fight, B l.223). Green takes
the square's points only by inflicting more damage than red; otherwise red takes
them, a tie included (B l.188, l.215-219). A tie in victory points at the end is
shared (the books are silent).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from enum import StrEnum

from controller.core.errors import IllegalActionError
from controller.game.events import ChooseFight
from controller.game.state import MAX_STORY_PLAYERS, MIN_PLAYERS
from controller.gamedata.story import Story
from controller.rules.scoring import CardCombo
from controller.rules.warriors import Fighter


class StorySide(StrEnum):
    """The two sides of Story mode."""

    GREEN = "green"
    RED = "red"


def side_of(seat: int) -> StorySide:
    """P1, P3 green; P2, P4 red."""
    return StorySide.GREEN if seat % 2 == 0 else StorySide.RED


def green_takes(green_damage: int, red_damage: int) -> bool:
    """Whether green takes the square: only by inflicting more damage than red; a tie
    goes to red, no rethrow (B l.188 "more damage than the enemy attack", l.215-219)."""
    return green_damage > red_damage


def takes(side: StorySide, mine: int, theirs: int) -> bool:
    """Whether ``side`` takes the square when its attempt inflicts ``mine`` and the other
    side's ``theirs`` (:func:`green_takes`, the one rule; the advisor asks it too)."""
    if side is StorySide.GREEN:
        return green_takes(mine, theirs)
    return not green_takes(theirs, mine)


@dataclass(frozen=True)
class StoryStakes:
    """What a Story attempt plays for, as the advisor needs it: the striker's side and the
    other side's attempt (its fighter in the square's form, its dice and rerolls, its
    cards) and, when the other side has made its attempt already, its damage."""

    side: StorySide
    other: Fighter
    other_pool: int
    other_rerolls: int
    other_cards: tuple[CardCombo, ...] = ()
    other_damage: int | None = None  # None: the other side attempts after the striker


@dataclass(frozen=True)
class Proposal:
    """A fight one player of a bout proposed; the other player's yes makes it the bout's."""

    seat: int
    fight: int


@dataclass(frozen=True)
class Bout:
    """One fight played on the current square by a green and a red player."""

    green_seat: int
    red_seat: int
    fight: int | None = None  # index into the square's fights; None until both agree
    proposal: Proposal | None = None
    green_damage: int | None = None
    red_damage: int | None = None

    def other(self, seat: int) -> int:
        """The bout's other player."""
        return self.red_seat if seat == self.green_seat else self.green_seat


@dataclass(frozen=True)
class StoryState:
    """A Story game. Immutable: each change returns a new one."""

    story: Story
    players: tuple[str, ...]
    square: int = 0  # index 0..12
    bouts: tuple[Bout, ...] = ()
    points: tuple[int, ...] = ()
    over: bool = False
    winners: tuple[int, ...] = ()
    log: tuple[str, ...] = field(default=(), repr=False)

    @property
    def current(self) -> Bout | None:
        """The bout waiting for a choice or an attempt (None when the game is over)."""
        for b in self.bouts:
            if b.fight is None or b.green_damage is None or b.red_damage is None:
                return b
        return None

    def fighters(self, bout: Bout) -> tuple[str, str]:
        """(green, red) of a bout whose fight is chosen: a warrior's or a form's name.

        Raises:
            IllegalActionError: the bout's fight is not chosen yet.
        """
        if bout.fight is None:
            raise IllegalActionError("the fight is not chosen yet")
        return self.story.squares[self.square].fights[bout.fight]

    def free_fights(self) -> list[int]:
        """The current square's fights no bout has taken."""
        taken = {b.fight for b in self.bouts}
        return [i for i in range(len(self.story.squares[self.square].fights)) if i not in taken]

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


def new_story(story: Story, players: tuple[str, ...]) -> StoryState:
    """A Story game at square 1.

    Raises:
        IllegalActionError: not 2 to 4 players.
    """
    if not MIN_PLAYERS <= len(players) <= MAX_STORY_PLAYERS:
        raise IllegalActionError(
            f"Story mode is for {MIN_PLAYERS} to {MAX_STORY_PLAYERS} players, got {len(players)}"
        )
    s = StoryState(story, players, points=(0,) * len(players))
    return _open_square(s, 0)


def pairs_for(players: int, square_no: int, several: bool) -> list[tuple[int, int]]:
    """The (green seat, red seat) pairs that play square ``square_no``, in order (B l.223,
    l.225): the square's own pair (P1-P2 on odd squares, P3 and P2 or P4 on even ones),
    then, on a square with several fights and 4 players, the other pair."""
    if players == 2:
        return [(0, 1)]
    second = (2, 3) if players == 4 else (2, 1)
    own, other = ((0, 1), second) if square_no % 2 == 1 else (second, (0, 1))
    return [own, other] if several and players == 4 else [own]


def _open_square(s: StoryState, index: int) -> StoryState:
    sq = s.story.squares[index]
    several = len(sq.fights) > 1
    pairs = pairs_for(len(s.players), sq.number, several)[: len(sq.fights)]
    bouts = tuple(Bout(g, r, None if several else 0) for g, r in pairs)
    return replace(s, square=index, bouts=bouts)


def story_actor(s: StoryState) -> int | None:
    """The seat that acts now: proposes or agrees to a fight, or makes its attempt."""
    b = s.current
    if b is None:
        return None
    if b.fight is None:
        return b.green_seat if b.proposal is None else b.other(b.proposal.seat)
    return b.green_seat if b.green_damage is None else b.red_seat


def choose_fight(s: StoryState, seat: int, fight: int) -> StoryState:
    """``seat`` names a free fight of the square: the other player's fight proposed before
    (an agreement: the bout plays it), or its own proposal (green first).

    Raises:
        IllegalActionError: out of turn, no fight to choose, or not a free fight.
    """
    b = s.current
    if b is None or b.fight is not None:
        raise IllegalActionError("no fight to choose now")
    if seat != story_actor(s):
        raise IllegalActionError(f"out of turn: the story waits for seat {story_actor(s)}")
    free = s.free_fights()
    if fight not in free:
        sq = s.story.squares[s.square]
        raise IllegalActionError(
            f"square {sq.number}: choose a free fight ({', '.join(map(str, free))})"
        )
    index = s.bouts.index(b)
    agreed = b.proposal is not None and b.proposal.fight == fight
    if agreed:
        return _set_bout(s, index, replace(b, fight=fight, proposal=None))
    return _set_bout(s, index, replace(b, proposal=Proposal(seat, fight)))


def record_damage(s: StoryState, damage: int) -> StoryState:
    """The current attempt inflicted ``damage``; after the red attempt the bout is decided
    and, once every bout of the square is, the square is scored.

    Raises:
        IllegalActionError: no attempt is under way.
    """
    b = s.current
    if b is None or b.fight is None:
        raise IllegalActionError("no attempt is under way")
    index = s.bouts.index(b)
    if b.green_damage is None:
        return _set_bout(s, index, replace(b, green_damage=damage))
    return settle(_set_bout(s, index, replace(b, red_damage=damage)))


def _set_bout(s: StoryState, i: int, b: Bout) -> StoryState:
    return replace(s, bouts=(*s.bouts[:i], b, *s.bouts[i + 1 :]))


def settle(s: StoryState) -> StoryState:
    """Score the square once every bout is decided (green only by more damage, B l.188),
    then open the next square or end the story."""
    if s.current is not None:
        return s
    sq = s.story.squares[s.square]
    points = list(s.points)
    log = list(s.log)
    for b in s.bouts:
        green_d, red_d = b.green_damage or 0, b.red_damage or 0
        winner = b.green_seat if green_takes(green_d, red_d) else b.red_seat
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


def story_actions(s: StoryState) -> Iterator[ChooseFight]:
    """The legal fight choices now (the attempts are the engine's attack actions): the
    proposed fight first when there is one."""
    b = s.current
    who = story_actor(s)
    if b is None or who is None or b.fight is not None:
        return
    free = s.free_fights()
    if b.proposal is not None:
        free.remove(b.proposal.fight)
        yield ChooseFight(who, b.proposal.fight)
    for i in free:
        yield ChooseFight(who, i)
