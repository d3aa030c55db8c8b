"""``toptable run``: the table daemon an owner runs on the Pi (under systemd).

One thread — the table loop — owns the game. The camera reader, the board
link, the buttons and the clock post typed events into its queue; every game
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
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from types import FrameType

from controller.board import load_board
from controller.config import Config, load_config
from controller.config_devices import check_devices
from controller.daemon.board_follow import BoardFollower
from controller.daemon.events import StopTable, Tick
from controller.daemon.hardware import TableDevices
from controller.daemon.loop import ClockThread, TableLoop
from controller.daemon.memory import return_large_buffers
from controller.daemon.table import TableController
from controller.daemon.view import phase_label
from controller.errors import TopTableError
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, GameData, GameState, Length
from controller.logs import setup_logging
from controller.mapping import apply_sensor_map, load_sensor_map
from controller.rules.variants import Variants
from controller.sdnotify import Notifier, Watchdog
from hardware.displays.model import Prompt, PromptKind

log = logging.getLogger(__name__)

DEFAULT_CONFIG = Path("/etc/toptable/config.toml")
RETRY_EVERY_S = 5.0
PLAYER_NAMES = ("Player 1", "Player 2", "Player 3", "Player 4", "Player 5", "Player 6")


class StartError(TopTableError, RuntimeError):
    """The daemon cannot start (the message says what to fix); exit code 2."""


def game_data_for(config: Config) -> GameData:
    """The game's printed material, with the board layout (and sensor map) the config names.

    Raises:
        DataError: a malformed data, layout or mapping file.
    """
    data = load_game_data(config.table.data_dir)
    board = load_board(config.board.layout) if config.board.layout is not None else data.board
    if config.board.mapping is not None:
        board = apply_sensor_map(board, load_sensor_map(config.board.mapping, board))
    if board is data.board:
        return data
    return GameData(board, data.roster, data.cards)


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
            path, GameConfig(names, length, variants), data, config.table.data_dir
        )
    game = TableGame.resume(path, data)
    kept = game.config
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
    rounds = state.config.rounds
    where = f"round {max(1, state.round)}/{rounds}" if rounds else f"round {max(1, state.round)}"
    return f"{where}, {state.players[state.seat]}: {phase_label(state)}"


def run_table(config_path: Path) -> int:
    """Run the table until SIGTERM/SIGINT; return the exit code.

    Raises:
        DataError: a config or data file with problems (exit 2 via the CLI).
        StartError, JournalError: the daemon cannot start.
    """
    config = load_config(config_path)
    return_large_buffers()
    setup_logging(config.log.level.value)
    for problem in check_devices(config):
        log.warning("%s", problem)  # a missing device degrades the table; it is not fatal
    data = game_data_for(config)
    game = open_game(config, data)
    notifier = Notifier()
    loop = TableLoop(idle_wakeup_s=0.5)
    devices: TableDevices | None = None
    clock: ClockThread | None = None
    watchdog = Watchdog(notifier)
    try:
        devices = TableDevices.open(
            config, loop.events, evidence_dir=config.table.journal.with_suffix(".frames")
        )
        table = TableController(game, devices.sinks(), seed=int(time.time()))
        table.device_faults = devices.faults()
        table.attach(loop)
        BoardFollower(table, data.board).attach(loop)
        table.roll_started = devices.new_attack
        table.listeners.append(lambda state: _send_status(notifier, state))
        loop.on(StopTable, lambda e: loop.stop())
        loop.on_idle(_every(RETRY_EVERY_S, lambda: _retry(devices, table)))
        loop.set_heartbeat(watchdog.heartbeat)
        _stop_on_signals(loop)
        clock = ClockThread(loop.post, Tick, hz=4).start()
        watchdog.start()
        table.refresh()
        notifier.ready(status_line(table.state))
        log.info("table ready: %s (journal %s)", status_line(table.state), config.table.journal)
        loop.run()
        notifier.stopping("stopping: game paused, journal closed")
        table.chooser = None
        pause = Prompt(
            PromptKind.CHOOSE,
            "the table is paused; the game resumes when it starts again",
            title="paused",
        )
        for sink in devices.sinks():
            sink.update(replace(table.render(), prompt=pause, faults=()))
    finally:
        watchdog.stop()
        if clock is not None:
            clock.stop()
        if devices is not None:
            devices.close()
        game.close()
        notifier.close()
    return 0


def _send_status(notifier: Notifier, state: GameState) -> None:
    notifier.status(status_line(state))


def _retry(devices: TableDevices, table: TableController) -> None:
    devices.retry()
    faults = devices.faults()
    if faults != table.device_faults:
        table.device_faults = faults
        table.render()


def _every(seconds: float, action: Callable[[], None]) -> Callable[[], None]:
    last = [time.monotonic()]

    def maybe() -> None:
        now = time.monotonic()
        if now - last[0] >= seconds:
            last[0] = now
            action()

    return maybe


def _stop_on_signals(loop: TableLoop) -> None:
    def handler(signum: int, frame: FrameType | None) -> None:
        loop.post(StopTable(signal.Signals(signum).name))

    signal.signal(signal.SIGTERM, handler)
    signal.signal(signal.SIGINT, handler)


def run_command(config: str | None) -> int:
    """The ``toptable run`` entry point."""
    return run_table(Path(config) if config else DEFAULT_CONFIG)
