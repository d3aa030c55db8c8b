"""A journal that cannot be appended to stops the table with one line; the screens say so."""

from __future__ import annotations

from pathlib import Path

import pytest

from controller.core.errors import TableHaltedError
from controller.demo.players import TablePlayers
from controller.game.bots import GreedyBot, RandomBot
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length
from controller.table.controller import TableController
from controller.table.entry import HALTED_FAULT, FaultSource
from hardware.displays.font import SMALL
from hardware.displays.model import TableView
from hardware.displays.screens import render
from tests.hardware.displays.helpers import shows
from tests.table.helpers import DirectHands


class Screen:
    def __init__(self) -> None:
        self.views: list[TableView] = []

    def update(self, view: TableView) -> None:
        self.views.append(view)


@pytest.mark.timeout(60)
def test_a_full_journal_stops_the_table_and_the_screens_say_so(tmp_path: Path) -> None:
    path = tmp_path / "j.sqlite"
    game = TableGame.start(path, GameConfig(("Ann", "Bob"), Length.ROUNDS5), load_game_data())
    conn = game.journal.conn
    pages = int(conn.execute("PRAGMA page_count").fetchone()[0])
    # SQLite's own limit on the file's size: a write past it fails with SQLITE_FULL,
    # "database or disk is full", as when the disk itself is full (sqlite3.c, pager).
    conn.execute(f"PRAGMA max_page_count = {pages + 1}")
    screen = Screen()
    table = TableController(game, [screen], seed=2)
    players = TablePlayers(table.awaits, DirectHands(table, 2), [GreedyBot(), RandomBot()], 2)
    with pytest.raises(TableHaltedError) as caught:
        for _ in range(5000):
            players.step()
    message = str(caught.value)
    assert "\n" not in message
    assert f"{path}: the disk is full: free space on it" in message
    assert "the table stops" in message
    assert table.faults[FaultSource.JOURNAL] == HALTED_FAULT
    assert ("journal", HALTED_FAULT) in [(f.source, f.message) for f in screen.views[-1].faults]
    # paused as the daemon leaves it, the screens keep the reason and what to do; they
    # said "the game resumes when it starts again", and the service does not (review
    # "growth" f04)
    view = table.pause()
    assert view.prompt is not None and view.prompt.title == "stopped"
    assert view.prompt.text == (  # the journal's fault line says it cannot be written
        "the disk is full: free space on it for the journal: fix it, then start the table again"
    )
    assert ("journal", HALTED_FAULT) in [(f.source, f.message) for f in view.faults]
    image = render(view, "prompt", (128, 64))
    assert shows(image, "THE DISK IS FULL: FREE", SMALL)
    small = render(view, "prompt", (128, 32))  # the cause first
    assert shows(small, "THE DISK IS FULL: FREE", SMALL)
    applied = table.state.events_applied
    game.close()
    with TableGame.resume(path) as again:  # every row whole; the state is what was journalled
        assert again.state.events_applied == applied
