"""UNDO after the last warrior drafted (review buttons f03): the table shuffles the decks
by itself once the teams are whole, and UNDO refused those shuffles ("a shuffled is not
undone"): a mispressed last pick could not be taken back."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.demo.players import TablePlayers
from controller.game.bots import GreedyBot, RandomBot
from controller.game.events import Draft, Shuffled
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length, Phase
from controller.table.controller import TableController
from tests.table.helpers import DirectHands


@pytest.mark.timeout(60)
def test_the_last_pick_is_undone_with_the_shuffles_that_followed_it(tmp_path: Path) -> None:
    game = TableGame.start(
        tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), load_game_data()
    )
    table = TableController(game, seed=3)
    players = TablePlayers(table.awaits, DirectHands(table, 3), [GreedyBot(), RandomBot()], 3)
    drafting = False
    for _ in range(500):  # on to the draft, then through it
        drafting = drafting or table.state.phase is Phase.DRAFT
        if drafting and table.state.phase is not Phase.DRAFT:
            break
        players.step()
    events = table.game.events()
    picks = [e for e in events if isinstance(e, Draft)]
    after = events[events.index(picks[-1]) + 1 :]
    assert after and all(isinstance(e, Shuffled) for e in after)  # the table's own
    table.undo()
    assert table.state.phase is Phase.DRAFT and "undo" not in str(table.faults)
    assert [e for e in table.game.events() if isinstance(e, Draft)] == picks[:-1]
    players.step()  # picked again: the decks are shuffled again
    assert table.state.phase is not Phase.DRAFT
    phase = table.state.phase
    game.close()
    with TableGame.resume(tmp_path / "j.sqlite") as again:  # the journal says the same
        assert again.state.phase is phase
