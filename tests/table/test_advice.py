"""The advisor's line: only during an attack with a throw on show, and only when enabled."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from controller.advisor.advisor import DiceAction
from controller.core.symbols import Symbol
from controller.demo.players import TablePlayers
from controller.game import engine
from controller.game.bots import GreedyBot, RandomBot
from controller.game.events import ChooseAttack, DiceThrown, event_from_dict
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, GameState, Length, Phase
from controller.table.advice import AdviceLine
from controller.table.controller import TableController
from tests.game.helpers import build, tie_s_duel
from tests.paths import SCENARIOS
from tests.table.helpers import DirectHands


@pytest.mark.timeout(60)
def test_advice_follows_the_attack_throw_on_show(tmp_path: Path) -> None:
    data = load_game_data()
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), data)
    table = TableController(game, seed=9)
    players = TablePlayers(table.awaits, DirectHands(table, 9), [GreedyBot(), RandomBot()], 9)
    line = AdviceLine()
    assert line.update(table.state) is None  # no combat yet
    for _ in range(5000):
        c = table.state.combat
        if table.state.phase is Phase.ATTACK and c is not None and c.throws:
            break
        players.step()
    state = table.state
    advice = line.update(state)
    assert advice is not None and line.best is not None
    assert advice.keep == line.best.keep
    assert table.advice.best == line.best  # the table's own line says the same
    assert AdviceLine(enabled=False).update(state) is None


@pytest.mark.parametrize("variants", [(), ("story_combos_only",)])
def test_advice_cashes_in_only_what_the_engine_offers(variants: tuple[str, ...]) -> None:
    """A Story attempt's last throw of five kicks, no reroll left: with the variant
    ``story_combos_only`` (B l.188, l.213) the engine offers only ('no combo', 0), and the
    advisor says so (it asks the engine whether the sum is allowed, and cashes in as the
    engine does: rules.scoring.cashable), never the symbol sum it refuses."""
    setup = {"mode": "story", "players": ["P1", "P2"], "variants": list(variants)}
    state = build(setup, SCENARIOS / "game" / "story.toml")
    for _ in range(4):  # the throw and its three rerolls
        state = engine.apply(state, DiceThrown((Symbol.KICK,) * 5))
    line = AdviceLine()
    line.update(state)
    best = line.best
    assert best is not None and best.option is not None
    options = engine.attack_options(state)
    assert (best.option.option.name, best.option.option.damage) in options
    assert (best.option.option.name == "sum") is (not variants)


K = Symbol.KICK


def _story_square_1() -> GameState:
    """Square 1 of a Story game (Son Goku in Super Saiyan 3 v Beerus), green to throw."""
    return build({"mode": "story", "players": ["P1", "P2"]}, SCENARIOS / "game" / "story.toml")


def test_story_advice_plays_for_the_square_not_a_knock_out() -> None:
    """A Story attempt has no defence and no knock-out (docs/rules.md §12): red, after
    green's 30, is advised for the square (a tie is red's): its chance, never a P(KO),
    on the screen too; six kicks (48) stop with the square won."""
    state = engine.apply(_story_square_1(), DiceThrown((K,) * 5))
    state = engine.apply(state, ChooseAttack(0, "sum"))  # green inflicts 30
    line = AdviceLine()
    throw = (K, K, K, K, Symbol.PUNCH, Symbol.TELEPORT)  # the sum, 20
    advice = line.update(engine.apply(state, DiceThrown(throw)))
    best = line.best
    assert advice is not None and best is not None and line.advisor is not None
    assert line.advisor.defender is None and best.p_eliminate is None
    assert advice.ko_chance is None and advice.win_chance == best.p_win
    assert best.action is DiceAction.REROLL and best.p_win == pytest.approx(0.9227, abs=1e-4)
    line.update(engine.apply(state, DiceThrown((K,) * 6)))
    assert line.best is not None and line.best.action is DiceAction.STOP
    assert line.best.p_win == 1.0


def test_story_advice_for_green_counts_reds_answer() -> None:
    """Green attempts first: its chance with a damage is 1 - red's chance of answering it
    (red's own Story advice once green has cashed it in), with nothing dodged."""
    state = engine.apply(_story_square_1(), DiceThrown((K,) * 5))
    line = AdviceLine()
    line.update(state)
    adv = line.advisor
    assert adv is not None and adv.defender is None
    stop = next(c for c in adv.advise((K,) * 5, 0).choices if c.action is DiceAction.STOP)
    assert stop.option is not None and stop.option.p_land == 1.0 and stop.option.damage == 30
    red = engine.apply(state, ChooseAttack(0, "sum"))
    red_line = AdviceLine()
    red_line.update(engine.apply(red, DiceThrown((K,) * 6)))
    assert red_line.advisor is not None
    sol = red_line.advisor.solution()
    red_chance = float(sol.tables.first_throw @ sol.value_p[0])
    assert stop.p_win == pytest.approx(1.0 - red_chance, abs=1e-12)


@pytest.mark.parametrize("revision", [6, 7])
def test_advice_in_a_tie_s_duel_counts_no_flight(revision: int) -> None:
    """Rules revision 7: nobody flees a tie's duel (B l.359). The advice still took Rozie
    (Solar Flare, 9 endurance left) to flee every attack: no chance of eliminating her."""
    state = tie_s_duel("Kahseral", "Rozie", revision)
    state = engine.apply(state, DiceThrown((Symbol.PUNCH,) * 3 + (Symbol.KICK,)))
    advice = AdviceLine().update(state)
    assert advice is not None and advice.ko_chance is not None
    assert (advice.ko_chance > 0.5) is (revision == 7)


def test_advice_in_a_tie_s_duel_counts_no_counter_attack() -> None:
    """A duel's attacks alternate by themselves (docs/rules.md §11): no counter-attack
    follows one, yet the advice counted Pirina's (and Rozie fleeing it)."""
    state = tie_s_duel("Rozie", "Pirina")
    assert state.combat is not None
    state = engine.apply(state, DiceThrown((Symbol.PUNCH,) * state.combat.pool))
    line = AdviceLine()
    assert line.update(state) is not None
    assert line.advisor is not None and line.advisor.counter is None


@pytest.mark.parametrize(
    ("scenario", "flees"),
    [("ability_solar_flare", True), ("ability_solar_flare_nowhere_to_go", False)],
)
def test_advice_counts_a_flight_only_where_there_is_room(scenario: str, flees: bool) -> None:
    """Rules revision 8: Solar Flare flees to an empty space 3 steps from the fight. With
    every one taken Rozie (8 endurance left) cannot flee, yet the advice took her to flee
    every attack: no chance of eliminating her, no damage."""
    path = SCENARIOS / "game" / f"{scenario}.toml"
    sc = tomllib.loads(path.read_text(encoding="utf-8"))
    state = build(sc, path)
    for raw in sc["step"][0]["events"][:-1]:  # up to the last throw, before the attack
        state = engine.apply(state, event_from_dict(raw))
    advice = AdviceLine().update(state)
    assert advice is not None and advice.ko_chance is not None
    assert (advice.ko_chance == 0.0) is flees
