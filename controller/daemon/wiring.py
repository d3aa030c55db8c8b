"""Wiring the tables and the board follower to the loop: which event goes to which handler.

The tables (:mod:`controller.table`) and the board follower
(:mod:`controller.board.follow`) know nothing of the loop; the daemon and the
demo (through :mod:`controller.daemon.tables`) call :func:`attach_table` and
:func:`attach_follower` (the dice game) or :func:`attach_companion` (a companion
mode) to register their handlers, the loop's :class:`~controller.daemon.events.Tick`
included.
"""

from __future__ import annotations

from controller.board.follow import BoardFollower
from controller.daemon.events import Tick, TokensTidied
from controller.daemon.loop import TableLoop
from controller.table.companion import CompanionTable
from controller.table.controller import TableController
from hardware.board.events import (
    BoardResynced,
    LinkLost,
    LinkRestored,
    SensorChanged,
    SensorFlickering,
)
from hardware.controls.events import ButtonPressed, ButtonRepeated, EncoderTurned
from vision.events import BackInDepth, CameraLost, CameraRestored, OutOfDepth, ThrowSettled


def attach_table(loop: TableLoop, table: TableController) -> None:
    """Register the table's handlers: buttons, encoder, camera (its reader's warnings too),
    and the clock's ticks."""
    loop.on(ButtonPressed, table.on_button)
    loop.on(ButtonRepeated, table.on_repeat)
    loop.on(EncoderTurned, table.on_encoder)
    loop.on(ThrowSettled, table.on_throw)
    loop.on(CameraLost, table.on_camera_lost)
    loop.on(CameraRestored, table.on_camera_restored)
    loop.on(OutOfDepth, table.on_out_of_depth)
    loop.on(BackInDepth, table.on_back_in_depth)
    loop.on(Tick, lambda _: table.on_tick())


def attach_follower(loop: TableLoop, follower: BoardFollower) -> None:
    """Register the board's events, the ticks and the players' tidying on the follower."""
    loop.on(SensorChanged, follower.on_sensor)
    loop.on(SensorFlickering, follower.on_flicker)
    loop.on(LinkLost, follower.on_lost)
    loop.on(LinkRestored, follower.on_restored)
    loop.on(BoardResynced, follower.on_resynced)
    loop.on(Tick, lambda e: follower.tick(e.now))
    loop.on(TokensTidied, lambda _: follower.on_tidied())


def attach_companion(loop: TableLoop, table: CompanionTable) -> None:
    """Register a companion table's handlers: the buttons and the encoder."""

    def handle(event: ButtonPressed | ButtonRepeated | EncoderTurned) -> None:
        table.handle(event)

    loop.on(ButtonPressed, handle)
    loop.on(ButtonRepeated, handle)
    loop.on(EncoderTurned, handle)
