"""Whole simulated games: bots play, a seeded RNG plays the table (dice, shuffles, clock).

Deterministic for a seed. ``on_event`` sees every event before it is applied
(the journal hooks in there, so a journal is always written first).
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from controller.core.kinds import GameKind
from controller.game import engine
from controller.game.bots import BOTS, Bot, GreedyBot, table_input
from controller.game.events import GameEvent, TimeUp
from controller.game.state import GameConfig, GameState, Length
from controller.gamedata.bundle import GameData
from controller.gamedata.bundle import load_game_data as load_game_data  # re-exported

MAX_EVENTS = 200_000  # a guard against a game that never ends (a bug)
MINUTES45_TURNS = 40  # simulated clock: time is up after this many turns (10 rounds of 4)


@dataclass
class GameOutcome:
    """What a simulated game ended with."""

    state: GameState
    events: int
    winners: tuple[int, ...]
    warriors_left: int
    combats: int


def play_game(
    config: GameConfig,
    data: GameData,
    seed: int,
    bots: Sequence[Bot] | None = None,
    submit: Callable[[GameEvent], GameState] | None = None,
    known: Sequence[GameEvent] = (),
) -> GameOutcome:
    """Play one whole game with bots and a table RNG seeded by ``seed``.

    ``submit`` (e.g. :meth:`TableGame.submit`) journals and applies each new
    event and returns the new state; without it events are applied in place.
    ``known``: events already played (a resumed journal): they are generated
    again from the seed, checked to be the same, and not submitted again, so a
    resumed game ends exactly as an uninterrupted one.

    Raises:
        IllegalActionError: a bot broke a rule (a bug).
        RuntimeError: ``known`` is not what this seed plays.
    """
    rng = random.Random(seed)
    players = bots if bots is not None else [GreedyBot() for _ in config.players]
    state = engine.new_game(config, data)
    turns_seen = 0
    last_turn: tuple[int, int] | None = None
    for i in range(MAX_EVENTS):
        if state.over:
            break
        event: GameEvent | None = None
        if config.timed and not state.time_up and state.round:
            turn = (state.round, state.seat)
            if turn != last_turn:
                last_turn = turn
                turns_seen += 1
            if turns_seen > MINUTES45_TURNS:
                event = TimeUp()
        if event is None:
            seat = engine.actor(state)
            if seat is not None:
                event = players[seat].act(state, rng)
            else:
                event = table_input(state, rng)
                if event is None:
                    raise RuntimeError(f"the game waits for nobody in phase {state.phase}")
        if i < len(known):
            if known[i] != event:
                raise RuntimeError(f"event {i + 1} differs from the journal: {known[i]} != {event}")
            engine.advance(state, event)
        elif submit is not None:
            state = submit(event)
        else:
            engine.advance(state, event)
    counts = state.counts()
    return GameOutcome(state, state.events_applied, state.winners, sum(counts), state.log_combats)


@dataclass
class SimulationReport:
    """Figures over many games."""

    games: int
    seconds: float
    winners: Counter[str] = field(default_factory=Counter)
    warriors_left: float = 0.0
    combats: float = 0.0
    events: float = 0.0
    cpu_seconds: float = 0.0  # process time (this thread's core) over all the games
    story: bool = False  # Story-mode games
    victory_points: dict[str, float] = field(default_factory=dict)  # Story: average per side

    @property
    def games_per_second(self) -> float:
        """Games simulated per second."""
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict[str, object]:
        """The report as ``toptable simulate --json`` prints it."""
        return {
            "games": self.games,
            "seconds": round(self.seconds, 3),
            "games_per_second": round(self.games_per_second, 1),
            "winners": dict(sorted(self.winners.items())),
            "average_warriors_left": round(self.warriors_left, 2),
            "average_combats": round(self.combats, 2),
            "average_events": round(self.events, 1),
        } | (self._story_json() if self.story else {})

    @property
    def games_per_cpu_second(self) -> float:
        """Games simulated per CPU-second of this process."""
        return self.games / self.cpu_seconds if self.cpu_seconds > 0 else float("inf")

    def _story_json(self) -> dict[str, object]:
        return {
            "mode": GameKind.STORY.value,
            "cpu_seconds": round(self.cpu_seconds, 3),
            "games_per_cpu_second": round(self.games_per_cpu_second, 1),
            "average_victory_points": {k: round(v, 2) for k, v in self.victory_points.items()},
        }


def simulate(
    players: int,
    length: Length,
    games: int,
    seed: int,
    data: GameData,
    bot: str = "greedy",
    variants: object = None,
    story: bool = False,
) -> SimulationReport:
    """Simulate ``games`` games (``story``: Story-mode games); game ``i`` uses seed
    ``seed + i``."""
    from controller.rules.variants import DEFAULT_VARIANTS, Variants

    v = variants if isinstance(variants, Variants) else DEFAULT_VARIANTS
    names = tuple(f"P{i + 1}" for i in range(players))
    config = GameConfig(names, length, v, kind=GameKind.STORY if story else GameKind.TOURNAMENT)
    report = SimulationReport(games, 0.0, story=story)
    left = combats = events = 0
    vp: Counter[str] = Counter()
    c0 = time.process_time()
    t0 = time.perf_counter()
    for i in range(games):
        bots = [BOTS[bot]() for _ in names]
        out = play_game(config, data, seed + i, bots)
        key = "+".join(names[w] for w in out.winners) if out.winners else "none"
        report.winners[key] += 1
        left += out.warriors_left
        combats += out.combats
        events += out.events
        if out.state.story is not None:
            vp.update({str(k): p for k, p in out.state.story.side_points().items()})
    report.seconds = time.perf_counter() - t0
    report.cpu_seconds = time.process_time() - c0
    if games:
        report.warriors_left = left / games
        report.combats = combats / games
        report.events = events / games
        report.victory_points = {k: p / games for k, p in sorted(vp.items())}
    return report
