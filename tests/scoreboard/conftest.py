"""The scoreboard tests share the publishing tests' broker and data fixtures, and a game
played to its end (a module may give its own)."""

from typing import Any

import pytest

from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from tests.publish.conftest import broker, game_data

__all__ = ["broker", "final", "game_data"]


@pytest.fixture(scope="module")
def final(game_data: Any) -> GameState:
    """Ann and Bob's game g1, played to its end."""
    config = GameConfig(("Ann", "Bob"), Length.ROUNDS5, game_id="g1")
    return play_game(config, game_data, 2, None).state
