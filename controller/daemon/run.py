"""``toptable run``: the table daemon an owner runs on the Pi (under systemd), every game kind.

One thread — the table loop — owns the game and every timer (the clock's
ticks, the retry of missing devices). The camera reader, the board link and
the buttons post typed events into its queue; every game event is journalled
before it acts; the screens, LEDs and buzzer follow. The dice game and a
companion mode run the same way (:func:`~controller.daemon.tables.open_table`
picks the table ``[table] mode`` names; a companion mode opens no camera and no
board). A device that fails degrades the table (button entry, a fault on the
screens) instead of stopping it. systemd hears READY=1 once the devices are up,
STATUS= with the game's state, WATCHDOG=1 only while the loop turns, and
STOPPING=1 on SIGTERM, when the journal is closed and the screens show the pause.
"""

from __future__ import annotations

import logging
import signal
from contextlib import ExitStack
from pathlib import Path
from types import FrameType

from controller.config import DEFAULT_CONFIG_PATH, Config, load_config
from controller.config.devices import check_devices
from controller.core.errors import DataProblem, TableHaltedError
from controller.daemon.camera_watch import camera_heartbeat
from controller.daemon.events import StopTable
from controller.daemon.journals import StartError, game_data_for, held_game_id, resume_or_start
from controller.daemon.loop import TableLoop
from controller.daemon.tables import RunningTable, open_devices, open_table, start_timers
from controller.system.logs import setup_logging
from controller.system.memory import return_large_buffers
from controller.system.sdnotify import Notifier, Watchdog

log = logging.getLogger(__name__)

TICK_EVERY_S = 0.25
JOURNAL_IN_USE_WAIT_S = 10.0
"""How long the service's start waits for a journal another toptable holds (a ``game
undo`` takes a moment; a ``game play`` left running is refused after it, exit 2)."""
DICE_SECTIONS = frozenset({"camera", "board"})
"""The config sections of the devices only the dice game uses."""

__all__ = ["StartError", "run_command", "run_table"]


def uses(config: Config, problem: DataProblem) -> bool:
    """Whether ``problem`` is about a device the game ``config`` sets up uses."""
    return config.table.mode.plays_dice or problem.entry not in DICE_SECTIONS


def run_table(config_path: Path) -> int:
    """Run the table until SIGTERM/SIGINT; return the exit code.

    Raises:
        DataError: a config or data file with problems (exit 2 via the CLI).
        StartError, JournalError: the daemon cannot start.
        TableHaltedError: the game's journal could not be written (the table stopped).
    """
    loop = TableLoop(idle_wakeup_s=0.5)
    _stop_on_signals(loop)  # first: a SIGTERM while starting up still stops cleanly
    return_large_buffers()
    config = load_config(config_path)
    setup_logging(config.log.level.value)
    for problem in check_devices(config):
        if uses(config, problem):
            log.warning("%s", problem)  # a missing device degrades the table; it is not fatal
    data = game_data_for(config) if config.table.mode.plays_dice else None
    notifier = Notifier()
    watchdog = Watchdog(notifier)
    with ExitStack() as stack:
        stack.callback(notifier.close)
        stack.callback(watchdog.stop)
        # another game's journal: refused, untouched; one another toptable holds (a
        # `game undo` as the service starts): waited for a moment, then refused
        held = resume_or_start(
            config, data, wait_in_use_s=JOURNAL_IN_USE_WAIT_S, next_after_over=True
        )
        stack.callback(held.close)
        devices = stack.enter_context(open_devices(config, loop.events, data, held_game_id(held)))
        running: RunningTable = open_table(config, loop, devices, held)  # either kind, alike
        table = running.table
        publisher = running.publish(config.events)
        if publisher is not None:
            stack.callback(publisher.close, 1.0)
        start_timers(loop, devices, table, TICK_EVERY_S)

        def tell_systemd() -> None:
            notifier.status(table.status_line())

        running.on_change(tell_systemd)
        loop.on(StopTable, lambda e: loop.stop())
        # held CONFIRM at game over: stopped, then started again (systemd), the next game
        table.on_next_game = lambda: loop.post(StopTable("the next game"))
        loop.set_heartbeat(camera_heartbeat(watchdog.heartbeat, lambda: devices.camera))
        watchdog.start()
        notifier.ready(table.status_line())
        log.info("table ready: %s (journal %s)", table.status_line(), running.journal.path)
        if not loop.stopping:
            loop.run()
        notifier.stopping(loop.halted or "stopping: the game is paused")
        running.close()  # first: nothing after this can cost the game
        table.pause()
        devices.keep_screens()
    if loop.halted is not None:
        raise TableHaltedError(loop.halted)
    return 0


def _stop_on_signals(loop: TableLoop) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        # Only set the loop's stop flag: a signal lands on the loop's own thread, which may
        # hold the queue's (non-reentrant) lock at that moment.
        log.info("%s: stopping", signal.Signals(signum).name)
        loop.stop()

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def run_command(config: str | None) -> int:
    """The ``toptable run`` entry point."""
    return run_table(Path(config) if config else DEFAULT_CONFIG_PATH)
