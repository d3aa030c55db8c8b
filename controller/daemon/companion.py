"""``toptable run`` with ``[table] mode`` set to a companion mode (issue 15).

The table keeps another card game's numbers: no camera and no board, only the buttons
(:class:`~hardware.controls.inputs.TableInputs` on the configured pins) and the
displays of ``[displays]`` (a ``turn`` or ``team`` screen shows the numbers, a ``combat``
screen the choice being entered; a refusal takes every display until the next press).
The game is journalled beside the dice game's journal (``companion-MODE.sqlite`` in the
same folder) and resumed from it when the daemon starts again. With ``[events]`` the
game is published like a dice game (:func:`~controller.daemon.publishing.publish_companion`).
"""

from __future__ import annotations

import logging
import queue
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from controller.config import Config
from controller.core.errors import TopTableError
from controller.daemon.publishing import publish_companion
from controller.storage.journal import JournalError
from controller.table.companion import CompanionTable
from hardware.controls.inputs import TableInputs
from hardware.displays.companion import CompanionView, pick_screen, render
from hardware.displays.device_config import display_configs
from hardware.displays.display_board import DisplayBoard
from hardware.displays.errors import DisplayUnavailableError

log = logging.getLogger(__name__)

PLAYER_NAMES = ("Player 1", "Player 2", "Player 3", "Player 4", "Player 5", "Player 6")
POLL_S = 0.5


class CompanionStartError(TopTableError, RuntimeError):
    """The companion table cannot start (the message says what to fix)."""


def companion_journal(config: Config, mode: str) -> Path:
    """Where a companion game is journalled: beside the dice game's journal."""
    return config.table.journal.with_name(f"companion-{mode}.sqlite")


def open_companion(mode: str, journal: Path, players: Sequence[str]) -> CompanionTable:
    """Resume the game in ``journal``, or start one of ``mode`` for ``players`` there.

    Raises:
        CompanionStartError: the journal holds a game of another mode or other players.
        CompanionJournalError: a damaged journal, or one that cannot be written.
    """
    if not journal.exists():
        return CompanionTable.new(mode, players, journal)
    table = CompanionTable.resume(journal)
    if table.mode.name != mode or len(table.players) != len(players):
        held = f"{table.mode.name} game of {len(table.players)} players"
        table.close()
        raise CompanionStartError(
            f"{journal} holds a {held}, but the config sets up {mode} for {len(players)}: "
            "move the journal away to start a new game, or set [table] to match"
        )
    return table


class CompanionScreens:
    """Draws a companion view on the table's displays, sending only what changed."""

    def __init__(self, board: DisplayBoard) -> None:
        self.board = board

    def update(self, view: CompanionView) -> None:
        """Draw ``view`` on every display (a display that fails is logged and skipped)."""
        for display in self.board.displays:
            preferred = "choice" if display.config.screen == "combat" else "status"
            image = render(view, pick_screen(view, preferred), display.device.size)
            try:
                display.pusher.push(image)
            except (DisplayUnavailableError, OSError) as exc:
                log.warning("display %s: %s", display.config.name, exc)


def run_companion(
    mode: str,
    config: Config,
    stopping: Callable[[], bool],
    pin_factory: Any = None,
    players: Sequence[str] | None = None,
    ready: Callable[[str], object] | None = None,
    heartbeat: Callable[[], None] | None = None,
) -> int:
    """Run a companion table until ``stopping()`` is true; return the exit code (0).

    ``ready(status)`` is called once the table is up (systemd's READY=1) and
    ``heartbeat()`` at every turn of the loop (the watchdog), at least every 0.5 s.

    Raises:
        CompanionStartError, CompanionJournalError: as :func:`open_companion`.
    """
    names = list(players or PLAYER_NAMES[: config.table.players])
    events: queue.Queue[Any] = queue.Queue()
    table = open_companion(mode, companion_journal(config, mode), names)
    publisher = publish_companion(config.events, table)
    try:
        with (
            TableInputs(config.controls, events, pin_factory=pin_factory) as inputs,
            DisplayBoard.open(display_configs(config.displays)) as board,
        ):
            for problem in [*inputs.failed, *board.failed]:
                log.warning("%s", problem)
            screens = CompanionScreens(board)
            screens.update(table.view())
            status = f"{mode}: {table.mode.step(table.state)}"
            log.info("companion table ready: %s", status)
            if ready is not None:
                ready(status)
            while not stopping():
                if heartbeat is not None:
                    heartbeat()
                try:
                    event = events.get(timeout=POLL_S)
                except queue.Empty:
                    continue
                try:
                    handled = table.handle(event)
                except JournalError as exc:  # nothing changed: the action is not taken
                    log.error("%s", exc)
                    continue
                if handled:
                    screens.update(table.view())
    finally:
        if publisher is not None:
            publisher.close(flush_s=1.0)
        table.close()
    return 0
