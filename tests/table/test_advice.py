"""The advisor's line: only during an attack with a throw on show, and only when enabled."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.demo.players import TablePlayers
from controller.game.bots import GreedyBot, RandomBot
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length, Phase
from controller.table.advice import AdviceLine
from controller.table.controller import TableController
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
