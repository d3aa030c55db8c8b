"""UNDO after the last warrior drafted (review buttons f03): the table shuffles the decks
by itself once the teams are whole, and UNDO refused those shuffles ("a shuffled is not
undone"): a mispressed last pick could not be taken back."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from controller.core.errors import TableHaltedError
from controller.demo.players import TablePlayers
from controller.game.bots import GreedyBot, RandomBot
from controller.game.events import Draft, Shuffled
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length, Phase
from controller.table.controller import TableController
from tests.table.helpers import DirectHands


def _played_to_the_last_pick(tmp_path: Path) -> tuple[TableGame, TableController]:
    """A two-player game played by bots until the decks are shuffled after the last pick."""
    game = TableGame.start(
        tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), load_game_data()
    )
    table = TableController(game, seed=3)
    players = TablePlayers(table.awaits, DirectHands(table, 3), [GreedyBot(), RandomBot()], 3)
    while not any(isinstance(e, Shuffled) for e in game.events()):
        players.step()
    return game, table


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


class _FullCard:
    """A connection whose writes fail as SQLite's do on a full card."""

    def __init__(self, real: sqlite3.Connection) -> None:
        self.real = real

    def __getattr__(self, name: str) -> Any:
        return getattr(self.real, name)

    def executemany(self, *args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")


@pytest.mark.timeout(60)
def test_an_undo_that_cannot_be_written_writes_nothing_and_stops_the_table(
    tmp_path: Path,
) -> None:
    """Review diff18 f02: the pick and its shuffles were undone a row each; a full card
    between them left the shuffles undone and the pick standing, a journal that did not
    replay once played on. All or none now; and the table stops, as for any row."""
    game, table = _played_to_the_last_pick(tmp_path)
    rows, phase = len(game.journal), table.state.phase
    real = game.journal._conn
    assert real is not None
    game.journal._conn = _FullCard(real)  # type: ignore[assignment]
    with pytest.raises(TableHaltedError, match="disk is full"):
        table.undo()
    game.journal._conn = real
    assert len(game.journal) == rows and table.state.phase is phase
    game.close()
    with TableGame.resume(tmp_path / "j.sqlite") as again:
        assert again.state.phase is phase


class _FillingCard(_FullCard):
    """A connection on a card with room for ``room`` more rows: a write of more fails."""

    def __init__(self, real: sqlite3.Connection, room: int) -> None:
        super().__init__(real)
        self.room = room

    def executemany(self, sql: str, rows: list[Any]) -> None:  # type: ignore[override]
        if len(rows) > self.room:
            raise sqlite3.OperationalError("database or disk is full")
        self.room -= len(rows)
        self.real.executemany(sql, rows)


@pytest.mark.timeout(60)
def test_an_undo_the_card_fills_during_leaves_the_pick_and_its_shuffles_all_standing(
    tmp_path: Path,
) -> None:
    """A card with room for one row more, not for the pick's marker and its shuffles':
    nothing of the undo is written (a pick half undone, its shuffles cancelled and not it,
    is a journal that does not replay), and the table stops."""
    game, table = _played_to_the_last_pick(tmp_path)
    rows, events = len(game.journal), game.events()
    real = game.journal._conn
    assert real is not None
    game.journal._conn = _FillingCard(real, room=1)  # type: ignore[assignment]
    with pytest.raises(TableHaltedError, match="disk is full"):
        table.undo()
    game.journal._conn = real
    assert len(game.journal) == rows and game.events() == events
    game.close()
    with TableGame.resume(tmp_path / "j.sqlite") as again:
        assert again.events() == events
