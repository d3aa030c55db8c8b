"""The table flow end to end without hardware: bots play a whole game through the
table's handlers (buttons, board moves, settled throws), journalled to SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.daemon.players import TablePlayers
from controller.daemon.table import TableController
from controller.game.bots import GreedyBot, RandomBot
from controller.game.engine import replay
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length, Phase
from tests.daemon_helpers import DirectHands


def _play(
    tmp_path: Path, seed: int, misread_every: int = 0, length: Length = Length.ROUNDS5
) -> TableController:
    data = load_game_data()
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), length), data)
    table = TableController(game, seed=seed)
    players = TablePlayers(
        table, DirectHands(table, seed, misread_every), [GreedyBot(), RandomBot()], seed=seed
    )
    for _ in range(20_000):
        if players.done():
            break
        players.step()
    assert players.done(), f"stuck in {table.state.phase}"
    return table


@pytest.mark.timeout(60)
def test_bots_play_a_whole_game_through_the_table(tmp_path: Path) -> None:
    table = _play(tmp_path, seed=3)
    state = table.state
    assert state.phase is Phase.OVER
    assert state.winners
    assert table.stats.moves_from_board > 0
    assert table.stats.throws_read > 0
    assert table.stats.button_actions > 0
    # The journal replays to the same final state.
    events = table.game.journal.events()
    again = replay(state.config, state.data, events)
    assert again.winners == state.winners
    assert {n: p for n, p in again.pieces.items()} == dict(state.pieces)
    view = table.render()
    assert view.phase.endswith(("wins", "win"))


@pytest.mark.timeout(60)
def test_cocked_dice_are_fixed_by_a_person_and_the_game_goes_on(tmp_path: Path) -> None:
    table = _play(tmp_path, seed=5, misread_every=3)
    assert table.stats.reads_flagged > 0
    assert table.state.phase is Phase.OVER
