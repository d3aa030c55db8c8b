"""The scoreboard tests share the publishing tests' broker and data fixtures."""

from tests.publish.conftest import broker, game_data

__all__ = ["broker", "game_data"]
