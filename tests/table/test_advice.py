"""The advisor's line: only during an attack with a throw on show, and only when enabled."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.symbols import Symbol
from controller.demo.players import TablePlayers
from controller.game import engine
from controller.game.bots import GreedyBot, RandomBot
from controller.game.events import DiceThrown
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length, Phase
from controller.table.advice import AdviceLine
from controller.table.controller import TableController
from tests.game.helpers import build
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
