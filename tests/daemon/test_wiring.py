"""The daemon wires the table and the board follower to its loop: the loop's ticks reach
both, the buttons reach the table."""

from __future__ import annotations

from pathlib import Path

from controller.board.follow import BoardFollower
from controller.daemon.events import TokensTidied
from controller.daemon.loop import TableLoop
from controller.daemon.wiring import attach_follower, attach_table
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length
from controller.table.controller import TableController
from hardware.controls.events import ButtonName, ButtonPressed


class Clock:
    def __init__(self) -> None:
        self.now = 10.0

    def __call__(self) -> float:
        return self.now


def test_ticks_and_buttons_reach_the_table_and_the_follower(tmp_path: Path) -> None:
    data = load_game_data()
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), data)
    table = TableController(game)
    follower = BoardFollower(table, data.board)
    clock = Clock()
    loop = TableLoop(clock=clock)
    attach_table(loop, table)
    attach_follower(loop, follower)
    ticks: list[float] = []
    follower.tick = ticks.append  # type: ignore[method-assign,assignment]
    loop.tick_every(0.25)
    clock.now += 0.5
    loop.run_timers()
    assert ticks == [10.5]  # one tick, stamped with the loop clock; the missed one is skipped
    loop.post(ButtonPressed(ButtonName.NEXT))
    loop.post(TokensTidied())
    loop.drain()
    assert table.entry.chooser is not None and table.entry.chooser.selected == 1
    assert loop.failures == 0
    game.close()
