"""The daemon wires the table and the board follower to its loop: the loop's ticks reach
both, the buttons reach the table, the dice reader's warnings reach the screens."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import cv2

from controller.board.follow import BoardFollower
from controller.daemon.events import TokensTidied
from controller.daemon.loop import TableLoop
from controller.daemon.wiring import attach_follower, attach_table
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length
from controller.table.controller import TableController
from controller.table.entry import THROW_NOT_WANTED
from hardware.controls.events import ButtonName, ButtonPressed
from hardware.displays.device_config import DisplayConfig
from hardware.displays.display_board import DisplayBoard
from hardware.displays.screens import render
from vision.learning.defaults import default_model
from vision.reading.reader import DiceReader
from vision.synth.scenes import Renderer


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


def test_a_camera_unlike_the_calibration_is_said_on_the_screen(tmp_path: Path) -> None:
    """The reader (the shipped model, which knows its calibration photos) sees frames of
    another shape: its warning is a fault on a luma dummy display (said under the question
    the table asks, as a fault would be), until a throw is seen as in calibration again."""
    data = load_game_data()
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), data)
    board = DisplayBoard.open([DisplayConfig("turn", driver="dummy", screen="turn")])
    table = TableController(game, [board])
    loop = TableLoop()
    attach_table(loop, table)
    reader = DiceReader(default_model(), loop.events)
    (display,) = board.displays

    def throw(frame: object, t0: float) -> None:
        for k in range(6):  # the dice tumble, then lie still long enough to settle
            reader.feed(frame, t0 + k)  # type: ignore[arg-type]
        loop.drain()

    scene = Renderer(seed=3).scene(count=4).image
    throw(cv2.resize(scene, (1280, 720)), 0.0)  # a camera of another shape
    assert table.view is not None
    # (the throw itself is said too: the game asks no dice before the draft)
    assert [f.message for f in table.view.faults] == [
        "dice camera: photo size not the calibrated one",
        THROW_NOT_WANTED,
    ]
    asked = table.view.prompt
    assert asked is not None  # who drafts first: the question stays on the screen
    assert display.device.image.tobytes() == render(table.view, "prompt").tobytes()
    quiet = dataclasses.replace(table.view, faults=())
    assert render(quiet, "prompt").tobytes() != display.device.image.tobytes()  # the fault
    throw(Renderer(seed=4).scene(count=4).image, 10.0)  # the calibrated camera again
    assert [f.message for f in table.view.faults] == [THROW_NOT_WANTED]
    assert table.view.prompt == asked
    assert display.device.image.tobytes() == render(table.view, "prompt").tobytes()
    assert loop.failures == 0
    board.close()
    game.close()
