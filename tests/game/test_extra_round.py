"""A tie of three or more plays extra rounds: past the last round of a 5- or 10-round game,
or once a 45-minute game's time ran out. The table shows the engine's own count
(``GameState.extra_rounds``, through :func:`controller.core.game_limits.extra_round`)."""

from __future__ import annotations

import copy

import pytest

from controller.core.game_limits import MAX_EXTRA_ROUNDS, extra_round
from controller.core.kinds import GameKind
from controller.game import engine
from controller.game.engine.turn import count_and_end
from controller.game.events import GameEvent
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length, Phase
from tests.game.helpers import demo_data, tied_game


def test_the_extra_round_shown_is_the_engines_count() -> None:
    assert [extra_round(n) for n in range(MAX_EXTRA_ROUNDS + 1)] == [None, 1, 2, 3]


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
        assert s.rounds is not None
        # the engine: round rounds+k of a game of rounds is its extra round k
        assert s.extra_rounds == max(0, s.round - s.rounds), (s.round, s.phase)
        assert extra_round(s.extra_rounds) == (s.round - s.rounds if s.round > s.rounds else None)


@pytest.mark.timeout(60)
def test_a_45_minute_games_tie_when_time_ran_out_plays_extra_round_1() -> None:
    # the table said only "round 9": its extra round had no last round to count past
    timed = tied_game(Length.MINUTES45).states
    first = next(i for i, s in enumerate(timed) if s.extra_rounds)
    before, tie = timed[first - 1], timed[first]
    assert before.time_up and not before.extra_rounds and extra_round(before.extra_rounds) is None
    # the round being played when time ran out ended in a count of three or more tied
    assert tie.time_up and len(tie.tied) >= 3 and tie.round == before.round + 1
    assert {tie.counts()[q] for q in tie.tied} == {max(tie.counts())}
    assert all(extra_round(s.extra_rounds) is None for s in timed[:first])
    # each round played after it is the next extra round (the first one found needs two)
    assert all(extra_round(s.extra_rounds) == s.round - before.round for s in timed[first:])
    assert timed[-1].over and timed[-1].rounds is None


@pytest.mark.timeout(60)
def test_a_story_game_has_no_extra_round_to_show() -> None:
    data = demo_data()
    config = GameConfig(("Ann", "Bob", "Cid", "Dee"), kind=GameKind.STORY)
    story = [engine.new_game(config, data)]  # its rounds are its squares

    def submit(event: GameEvent) -> GameState:
        story.append(engine.apply(story[-1], event))
        return story[-1]

    play_game(config, data, 4, submit=submit)
    assert story[-1].over and story[-1].round == story[-1].rounds  # its last square
    assert all(extra_round(s.extra_rounds) is None for s in story)


def test_a_tie_of_three_after_the_last_extra_round_is_shared() -> None:
    """B l.359: at most three extra rounds, then the victory is shared; a fourth was one
    ">" away with no game reaching it in the tests (review tests2 e02)."""
    state = engine.arrange(
        GameConfig(("A", "B", "C")),
        demo_data(),
        pieces=[("Auta Magetta", 0, 20), ("Monna", 1, 27), ("Obuni", 2, 40)],
        decks={"event": []},
        round_no=10,
    )
    for played in range(MAX_EXTRA_ROUNDS + 1):
        tied = copy.deepcopy(state)
        tied.extra_rounds = played
        count_and_end(tied)
        if played < MAX_EXTRA_ROUNDS:
            assert tied.phase is not Phase.OVER and tied.extra_rounds == played + 1
        else:
            assert tied.phase is Phase.OVER and tied.winners == (0, 1, 2)
