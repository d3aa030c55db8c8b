"""``toptable bench advisor``'s Story case: a square played for, timed and checked.

Square 1 of the bundled Story (docs/rules.md §12): green attempts first, advised to take
the square (controller/advisor/story.py); its exact chance assumes red then plays for the
damage green made. Checked by a Monte Carlo run that shares nothing with that formula:
green's attempts are thrown by green's policy (:func:`~controller.advisor.simulate.simulate`),
and for each damage green made, red's attempts by the policy of red's own advisor told that
damage; the square goes as the rules' :func:`~controller.game.story.takes` says.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from controller.advisor.advisor import Advisor
from controller.advisor.simulate import simulate
from controller.core.kinds import GameKind
from controller.game import engine
from controller.game.events import ChooseFight
from controller.game.state import GameConfig, GameState, Length, Phase
from controller.game.story import StorySide, StoryStakes, takes
from controller.gamedata.bundle import GameData, load_game_data


def _square_one(data: GameData) -> GameState:
    """A two-player Story game at green's attempt on square 1."""
    config = GameConfig(("P1", "P2"), Length.ROUNDS10, kind=GameKind.STORY)
    state = engine.new_game(config, data)
    while state.phase is Phase.STORY_FIGHT:
        seat = engine.actor(state)
        assert seat is not None  # a square's fight is always some player's to choose
        state = engine.apply(state, ChooseFight(seat, 0))
    return state


def _advisor(
    data: GameData, state: GameState, name: str, form: str | None, stakes: StoryStakes
) -> Advisor:
    c = state.combat
    assert c is not None
    pool, rerolls = engine.attempt_dice(data.fighter(name, form))
    return Advisor(
        data.fighter(name, form), cards=c.cards, sum_allowed=engine.sum_allowed(state),
        variants=state.config.variants, pool=pool, rerolls=rerolls, die=data.die, story=stakes,
    )  # fmt: skip


def story_case(attempts: int, reps: int, seed: int = 7) -> None:
    """Print the Story case: cold advice time, and green's exact chance of taking square 1
    against ``attempts`` squares played by both sides' policies."""
    data = load_game_data()
    state = _square_one(data)
    c, stakes = state.combat, engine.story_stakes(state)
    assert c is not None and stakes is not None and stakes.side is StorySide.GREEN

    def green() -> Advisor:
        return _advisor(data, state, c.attacker, c.attacker_form, stakes)

    adv = green()
    throw = tuple(data.die.faces[i % len(data.die.faces)] for i in range(adv.pool))
    cold = []
    for _ in range(reps):
        t0 = time.perf_counter()
        green().advise(throw, 0)
        cold.append(time.perf_counter() - t0)
    exact = adv.start_values().p_win
    assert exact is not None  # a Story advisor's

    made, _ = simulate(adv, attempts, seed=seed)
    me = data.fighter(c.attacker, c.attacker_form)
    red_takes = 0
    for k, damage in enumerate(np.unique(made)):
        n = int((made == damage).sum())
        answer = StoryStakes(StorySide.RED, me, *engine.attempt_dice(me), c.cards, int(damage))
        red = _advisor(data, state, c.defender, c.defender_form, answer)
        red_made, _ = simulate(red, n, seed=seed + 1 + k)
        red_takes += sum(takes(StorySide.RED, int(d), int(damage)) for d in red_made)
    simulated = 1 - red_takes / attempts
    se = (simulated * (1 - simulated) / attempts) ** 0.5
    print(
        f"Story square 1: {c.attacker} (green, {adv.pool} dice) v {c.defender}: cold advice "
        f"with red's answer solved, median {1000 * statistics.median(cold):.2f} ms (n={reps})"
    )
    print(
        f"  P(green takes the square), both sides advised: exact {exact:.4f} vs "
        f"simulated {simulated:.4f} (±{se:.4f} s.e., z {(simulated - exact) / max(se, 1e-12):+.1f}; "
        f"{attempts} squares)"
    )
