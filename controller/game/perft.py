"""Perft: count the legal decision sequences from a fixed state (python-chess's perft).

A regression oracle for the engine: the counts from a few fixed states, to depth 1, 2
and 3, are stored in ``tests/data/legal_counts/*.json``; a change that alters which
actions are legal, or where an event leads, changes a count.

How a state branches (one step of depth):

* every action of :func:`controller.game.legal.legal_actions` (Story mode too);
* every table input the game waits for, from a fixed set:

  - ``FirstPlayerChosen``: each seat;
  - ``Shuffled``: one order only, the expected deck as listed (a shuffle is not a choice);
  - ``DieRolled`` (transformation, fusion): every distinct multiset of the dice values 1..6;
  - ``DiceThrown`` (an attack throw or reroll, a defence throw): :func:`throw_outcomes`,
    the six uniform throws (every die the same face) and the six "ramps" (die ``i``
    shows face ``i + k``), as distinct multisets;
  - corrections (``ThrowCorrected``) and the clock (``TimeUp``) are not counted.

A state with nothing to do (the game over) counts 0 at depth ≥ 1 and 1 at depth 0.

The states are built deterministically: a seeded game of random bots (the table's
inputs from the same seeded RNG) is played until a condition holds (:data:`STATES`).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from controller.core.kinds import GameKind
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.bots import RandomBot, table_input
from controller.game.engine import InputKind
from controller.game.events import (
    CounterAttack,
    DiceThrown,
    DieRolled,
    FirstPlayerChosen,
    GameEvent,
    PlayCard,
    Shuffled,
)
from controller.game.legal import legal_actions
from controller.game.state import GameConfig, GameState, Length, Phase
from controller.gamedata.bundle import GameData, load_game_data

FACES: tuple[Symbol, ...] = tuple(Symbol)
MAX_PREFIX = 5_000  # a guard: a state's condition never met in this many events is a bug


def throw_outcomes(n: int) -> list[tuple[Symbol, ...]]:
    """The throws of ``n`` dice a perft branches on (see the module docstring)."""
    out: dict[tuple[Symbol, ...], tuple[Symbol, ...]] = {}
    for k in range(len(FACES)):
        for dice in (
            tuple(FACES[k] for _ in range(n)),
            tuple(FACES[(i + k) % len(FACES)] for i in range(n)),
        ):
            out.setdefault(tuple(sorted(dice)), dice)
    return list(out.values())


def die_outcomes(n: int) -> list[tuple[int, ...]]:
    """Every distinct multiset of ``n`` dice of 1..6."""
    return list(itertools.combinations_with_replacement(range(1, 7), n))


def inputs(state: GameState) -> list[GameEvent]:
    """The table inputs ``state`` branches on."""
    ph = state.phase
    if ph is Phase.FIRST_PLAYER:
        return [FirstPlayerChosen(q) for q in range(len(state.players))]
    if ph is Phase.SHUFFLE:
        aw = engine.awaiting(state)
        deck = aw.decks[0]
        return [Shuffled(deck, tuple(engine.expected_deck(state, deck)))]
    aw = engine.awaiting(state)
    if aw.input is InputKind.DIE:
        return [DieRolled(v) for v in die_outcomes(aw.die_count)]
    if aw.input is InputKind.DICE:
        return [DiceThrown(t) for t in throw_outcomes(aw.dice)]
    return []


def decisions(state: GameState) -> list[GameEvent]:
    """The decisions (actions and inputs) ``state`` branches on."""
    if state.over:
        return []
    return [*legal_actions(state), *inputs(state)]


def children(state: GameState) -> Iterator[GameState]:
    """The states one decision (an action or an input) away."""
    for event in decisions(state):
        yield engine.apply(state, event)


def perft(state: GameState, depth: int) -> int:
    """The number of decision sequences of length ``depth`` from ``state``. The last level
    is counted without being applied (python-chess's bulk counting): the legal actions
    are legal by construction, which the tests check by applying them elsewhere."""
    if depth == 0:
        return 1
    if depth == 1:
        return len(decisions(state))
    return sum(perft(child, depth - 1) for child in children(state))


# ------------------------------------------------------------------ the fixed states
@dataclass(frozen=True)
class PerftState:
    """A fixed state: a seeded game played until ``until`` holds."""

    name: str
    description: str
    players: int
    seed: int
    until: Callable[[GameState], bool]
    story: bool = False


def _drafted(n: int) -> Callable[[GameState], bool]:
    return lambda s: s.phase is Phase.DRAFT and sum(len(t) for t in s.teams) == n


def _attack_with_rerolls(s: GameState) -> bool:
    c = s.combat
    return (
        s.phase is Phase.ATTACK
        and c is not None
        and len(c.throws) == 1
        and c.max_rerolls >= 1
        and not c.counter
    )


def _defence_choice(s: GameState) -> bool:
    return s.phase is Phase.DEFENCE_CHOICE and len(engine.defence_answers(s)) >= 3


def _transform(s: GameState) -> bool:
    return s.phase is Phase.TRANSFORM


def _defence_roll(s: GameState) -> bool:
    c = s.combat
    return s.phase is Phase.DEFENCE_ROLL and c is not None and len(c.defence_throws) == 1


def _placing(s: GameState) -> bool:
    return s.phase is Phase.PLACE and sum(p.space is not None for p in s.pieces.values()) == 10


def _card_window(s: GameState) -> bool:
    if s.phase not in (Phase.START_CARD, Phase.COUNTER_OFFER, Phase.EXTRA_OFFER):
        return False
    return any(isinstance(a, (PlayCard, CounterAttack)) for a in legal_actions(s))


STATES: dict[str, PerftState] = {
    s.name: s
    for s in (
        PerftState("setup", "a new 4-player game, waiting for the first player", 4, 0, lambda s: True),
        PerftState("draft", "4 players, mid-draft: 7 warriors drafted", 4, 1, _drafted(7)),
        PerftState(
            "attack", "the first attack thrown once, with rerolls left", 4, 2, _attack_with_rerolls
        ),
        PerftState(
            "defence", "a defence choice with at least 3 answers", 4, 3, _defence_choice
        ),
        PerftState(
            "cards", "a card window (start of turn, counter-attack or extra combat)", 3, 4,
            _card_window,
        ),
        PerftState("story", "Story mode, 2 players, at square 1", 2, 5, lambda s: True, story=True),
        PerftState("place", "4 players placing tokens: 10 placed", 4, 6, _placing),
        PerftState("transform", "a transformation roll awaited", 4, 7, _transform),
        PerftState("roll", "a defence roll thrown once", 3, 8, _defence_roll),
    )
}  # fmt: skip


def build(name: str, data: GameData) -> tuple[GameState, int]:
    """The state ``name`` of :data:`STATES` and the number of events played to reach it.

    Raises:
        KeyError: no such state.
        RuntimeError: the condition was never met (a bug, or changed data).
    """
    spec = STATES[name]
    players = tuple(f"P{i + 1}" for i in range(spec.players))
    kind = GameKind.STORY if spec.story else GameKind.TOURNAMENT
    config = GameConfig(players, Length.ROUNDS10, kind=kind)
    rng = random.Random(spec.seed)
    bot = RandomBot()
    state = engine.new_game(config, data)
    for played in range(MAX_PREFIX):
        if spec.until(state):
            return state, played
        if state.over:
            break
        seat = engine.actor(state)
        event = bot.act(state, rng) if seat is not None else table_input(state, rng)
        if event is None:
            raise RuntimeError(f"perft state {name}: the game waits for nobody ({state.phase})")
        engine.advance(state, event)
    raise RuntimeError(f"perft state {name}: its condition never held (seed {spec.seed})")


def digest(state: GameState) -> str:
    """A short hash of ``state.summary()``: the same state was built."""
    text = json.dumps(state.summary(), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass(frozen=True)
class PerftCounts:
    """What ``toptable game perft`` prints and ``tests/data/legal_counts/*.json`` hold."""

    state: str
    description: str
    prefix_events: int
    phase: str
    summary_sha256: str
    counts: dict[int, int]  # depth -> sequences

    def to_json(self) -> dict[str, object]:
        """The JSON form (depths as strings)."""
        return {
            "state": self.state,
            "description": self.description,
            "prefix_events": self.prefix_events,
            "phase": self.phase,
            "summary_sha256": self.summary_sha256,
            "counts": {str(d): n for d, n in sorted(self.counts.items())},
        }


def counts(name: str, depth: int, data_dir: str | None = None) -> PerftCounts:
    """The perft counts of state ``name`` for depths 1..``depth``.

    Raises:
        KeyError: no such state.
        DataError: a data file is missing or malformed.
    """
    spec = STATES[name]
    state, played = build(name, load_game_data(data_dir))
    found = {d: perft(state, d) for d in range(1, depth + 1)}
    return PerftCounts(name, spec.description, played, state.phase.value, digest(state), found)


__all__ = [
    "STATES",
    "PerftCounts",
    "PerftState",
    "build",
    "children",
    "counts",
    "decisions",
    "die_outcomes",
    "digest",
    "inputs",
    "perft",
    "throw_outcomes",
]
