"""A tie of three or more plays extra rounds past the last: the round the table shows as a
tie's extra round (:func:`controller.core.game_limits.extra_round`) is the engine's own."""

from __future__ import annotations

import pytest

from controller.core.game_limits import MAX_EXTRA_ROUNDS, extra_round
from controller.core.kinds import GameKind
from controller.game import engine
from controller.game.events import GameEvent
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from tests.game.helpers import demo_data, tied_game


def test_the_extra_round_of_a_number_of_rounds() -> None:
    assert [extra_round(r, 5) for r in (1, 5, 6, 7, 8)] == [None, None, 1, 2, 3]
    assert extra_round(11, 10) == 1 and extra_round(10, 10) is None
    assert extra_round(12, None) is None  # the 45-minute game


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    ("length", "extra"),
    [(Length.ROUNDS5, 1), (Length.ROUNDS5, MAX_EXTRA_ROUNDS), (Length.ROUNDS10, 1)],
)
def test_every_state_of_a_tied_game_counts_the_extra_rounds_as_the_engine(
    length: Length, extra: int
) -> None:
    states = tied_game(length, extra).states
    assert states[-1].over and max(s.extra_rounds for s in states) == extra
    for s in states:
        assert extra_round(s.round, s.rounds) == (s.extra_rounds or None), (s.round, s.phase)


@pytest.mark.timeout(60)
def test_neither_the_45_minute_game_nor_story_mode_has_an_extra_round_to_show() -> None:
    timed = tied_game(Length.MINUTES45).states  # its tie plays a round more too, with no last round
    assert max(s.extra_rounds for s in timed) == 1
    data = demo_data()
    config = GameConfig(("Ann", "Bob", "Cid", "Dee"), kind=GameKind.STORY)
    story = [engine.new_game(config, data)]  # its rounds are its squares

    def submit(event: GameEvent) -> GameState:
        story.append(engine.apply(story[-1], event))
        return story[-1]

    play_game(config, data, 4, submit=submit)
    assert story[-1].over and story[-1].round == story[-1].rounds  # its last square
    for s in (*timed, *story):
        assert extra_round(s.round, s.rounds) is None, (s.round, s.rounds)
