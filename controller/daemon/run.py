"""``toptable run``: the table daemon an owner runs on the Pi (under systemd).

One thread — the table loop — owns the game and every timer (the clock's
ticks, the retry of missing devices). The camera reader, the board link and
the buttons post typed events into its queue; every game
event is journalled before it acts; the screens, LEDs and buzzer follow. A
device that fails degrades the table (button entry, a fault on the screens)
instead of stopping it. systemd hears READY=1 once the devices are up,
STATUS= with the game's state, WATCHDOG=1 only while the loop turns, and
STOPPING=1 on SIGTERM, when the journal is closed and the screens show the pause.
"""

from __future__ import annotations

import logging
import signal
import time
from dataclasses import replace
from pathlib import Path
from types import FrameType

from controller.board.follow import BoardFollower
from controller.config import DEFAULT_CONFIG_PATH, Config, load_config
from controller.config.devices import check_devices
from controller.core.errors import TopTableError
from controller.daemon.camera_watch import camera_heartbeat
from controller.daemon.events import StopTable
from controller.daemon.hardware import TableDevices, load_layout
from controller.daemon.loop import TableLoop
from controller.daemon.publishing import publish_table
from controller.daemon.wiring import attach_follower, attach_table
from controller.game.prompt import phase_label
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, GameData, GameState, Length
from controller.publish.publisher import Publisher
from controller.rules.variants import Variants
from controller.system.logs import setup_logging
from controller.system.memory import return_large_buffers
from controller.system.sdnotify import Notifier, Watchdog
from controller.table.controller import TableController
from hardware.displays.model import Prompt, PromptKind
from vision.events import CameraLost, CameraRestored

log = logging.getLogger(__name__)

RETRY_EVERY_S = 5.0
TICK_EVERY_S = 0.25
PLAYER_NAMES = ("Player 1", "Player 2", "Player 3", "Player 4", "Player 5", "Player 6")


class StartError(TopTableError, RuntimeError):
    """The daemon cannot start (the message says what to fix); exit code 2."""


def game_data_for(config: Config) -> GameData:
    """The game's printed material, with the board layout (and sensor map) the config names.

    Raises:
        DataError: a malformed data, layout or mapping file.
    """
    data = load_game_data(config.table.data_dir)
    # the board the devices use; the rest as the data directory has it
    return GameData(load_layout(config), data.roster, data.cards, data.story, die=data.die)


def open_game(config: Config, data: GameData) -> TableGame:
    """Resume the journal the config names, or start a new game there.

    Raises:
        JournalError: a journal from a newer version, another game, or corrupted.
        StartError: the journal's folder cannot be created.
    """
    path = config.table.journal
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StartError(
            f"cannot create the journal's folder {path.parent}: {exc.strerror}"
        ) from None
    length = Length(config.table.length.value)
    variants = Variants.from_names(config.table.variants)
    if not path.exists():
        names = PLAYER_NAMES[: config.table.players]
        return TableGame.start(
            path,
            GameConfig(names, length, variants, kind=config.table.mode),
            data,
            config.table.data_dir,
        )
    game = TableGame.resume(path, data)
    kept = game.config
    if kept.kind is not config.table.mode:
        game.close()
        raise StartError(
            f"{path} holds a {kept.kind.value} game, but {config.source or 'the config'} sets "
            f'[table] mode = "{config.table.mode.value}": move the journal away to start a '
            "new game, or set [table] mode to match"
        )
    if (len(kept.players), kept.length, kept.variants) != (config.table.players, length, variants):
        game.close()
        raise StartError(
            f"{path} holds a game of {_setup(len(kept.players), kept.length, kept.variants)}, but "
            f"{config.source or 'the config'} sets up {_setup(config.table.players, length, variants)}: "
            "move the journal away to start a new game, or set [table] to match"
        )
    return game


def _setup(players: int, length: Length, variants: Variants) -> str:
    extra = f", variants {', '.join(variants.enabled())}" if variants.enabled() else ""
    return f"{players} players ({length.value}{extra})"


def status_line(state: GameState) -> str:
    """The STATUS= text systemd shows: round, whose turn, what the game waits for."""
    st = state.story
    rounds = len(st.story.squares) if st is not None else state.config.rounds  # Story: squares
    where = f"round {max(1, state.round)}/{rounds}" if rounds else f"round {max(1, state.round)}"
    return f"{where}, {state.players[state.seat]}: {phase_label(state)}"


def run_table(config_path: Path) -> int:
    """Run the table until SIGTERM/SIGINT; return the exit code.

    Raises:
        DataError: a config or data file with problems (exit 2 via the CLI).
        StartError, JournalError: the daemon cannot start.
    """
    loop = TableLoop(idle_wakeup_s=0.5)
    _stop_on_signals(loop)  # first: a SIGTERM while starting up still stops cleanly
    return_large_buffers()
    config = load_config(config_path)
    setup_logging(config.log.level.value)
    if not config.table.mode.plays_dice:
        return _run_companion(config, loop)
    for problem in check_devices(config):
        log.warning("%s", problem)  # a missing device degrades the table; it is not fatal
    data = game_data_for(config)
    game = open_game(config, data)
    notifier = Notifier()
    devices: TableDevices | None = None
    publisher: Publisher | None = None
    watchdog = Watchdog(notifier)
    try:
        devices = TableDevices.open(
            config,
            loop.events,
            evidence_dir=config.table.journal.with_suffix(".frames"),
            die_faces=data.die.faces,
        )
        table = TableController(
            game, devices.sinks(), seed=int(time.time()), roll_started=devices.new_attack
        )
        attach_table(loop, table)
        attach_follower(loop, BoardFollower(table, data.board))
        _degrade_for_missing(devices, table)
        table.listeners.append(lambda state: _send_status(notifier, state))
        publisher = publish_table(config.events, game, table)
        loop.on(StopTable, lambda e: loop.stop())
        opened = devices
        loop.call_every(RETRY_EVERY_S, lambda: _retry(opened, table))
        loop.tick_every(TICK_EVERY_S)
        loop.set_heartbeat(camera_heartbeat(watchdog.heartbeat, lambda: opened.camera))
        watchdog.start()
        notifier.ready(status_line(table.state))
        log.info("table ready: %s (journal %s)", status_line(table.state), config.table.journal)
        if not loop.stopping:
            loop.run()
        notifier.stopping("stopping: the game is paused")
        game.close()  # first: nothing after this can cost the game
        _show_pause(devices, table)
    finally:
        if publisher is not None:
            publisher.close(flush_s=1.0)
        watchdog.stop()
        if devices is not None:
            devices.close()
        game.close()
        notifier.close()
    return 0


def _run_companion(config: Config, loop: TableLoop) -> int:
    """A companion mode (``[table] mode``): the table keeps a card game's numbers."""
    from controller.daemon.companion import run_companion

    notifier = Notifier()
    watchdog = Watchdog(notifier)
    watchdog.start()
    try:
        return run_companion(
            config.table.mode.value,
            config,
            lambda: loop.stopping,
            ready=notifier.ready,
            heartbeat=watchdog.heartbeat,
        )
    finally:
        watchdog.stop()
        notifier.close()


def _degrade_for_missing(devices: TableDevices, table: TableController) -> None:
    """A camera or board missing from the start: dice and moves go through the buttons."""
    faults = devices.faults()
    table.device_faults = faults
    if devices.camera is None:
        table.on_camera_lost(
            CameraLost("camera", faults.get("camera", "not available"), time.monotonic())
        )
    if "board" in faults:
        table.board_lost(faults["board"])


def _show_pause(devices: TableDevices, table: TableController) -> None:
    """Leave the screens showing the pause (luma blanks a display it closes unless told)."""
    table.entry.chooser = None
    pause = Prompt(
        PromptKind.CHOOSE,
        "the table is paused; the game resumes when it starts again",
        title="paused",
    )
    view = replace(table.render(), prompt=pause, faults=())
    for sink in devices.sinks():
        sink.update(view)
    for display in devices.displays.displays:
        display.device.persist = True


def _send_status(notifier: Notifier, state: GameState) -> None:
    notifier.status(status_line(state))


def _retry(devices: TableDevices, table: TableController) -> None:
    """Every few seconds: reopen what is missing; the faults on screen follow."""
    had_camera = devices.camera is not None
    devices.retry()
    if devices.camera is not None and not had_camera:
        table.on_camera_restored(CameraRestored("camera", time.monotonic()))
    faults = devices.faults()
    if faults != table.device_faults:
        table.device_faults = faults
        table.render()


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
