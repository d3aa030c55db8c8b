"""The books' worked examples that need a whole game (docs/rules.md §13); the others are
cases of tests/data/scenarios/rules/*.json."""

from __future__ import annotations

from controller.game.simulate import play_game
from controller.game.state import GameConfig, Length
from tests.game.helpers import demo_data


def test_three_players_and_ten_rounds_turn_thirty_event_cards() -> None:
    """B l.371: "if you are doing the tournament with 10 rounds and 3 players, 30 event
    cards will be drawn" — one at the start of every turn (B l.369, A l.312), the turns
    of a player with no warrior left on the board included."""
    config = GameConfig(("Ann", "Bob", "Cid"), Length.ROUNDS10)
    for seed in range(20):  # a game with no tie (no extra round) where a player lost all
        end = play_game(config, demo_data(), seed).state
        if end.round == 10 and len(end.winners) == 1 and min(end.counts()) == 0:
            break
    else:
        raise AssertionError("no seed plays such a game")
    assert end.over and end.event_cards_turned == 30
