"""The demo's table: the daemon's devices and table, opened from a config, on a loop thread.

:func:`demo_table` does what ``toptable run`` does (:mod:`controller.daemon.run`)
with a config of simulated devices (``controller/data/demo/config.toml``: the
synthetic camera, the firmware behind a pseudo-terminal, dummy displays, mock
buttons): :class:`~controller.daemon.hardware.TableDevices` opens them, the
config's game is opened on them (:func:`~controller.daemon.tables.open_table`),
the same timers are set (:func:`~controller.daemon.tables.start_timers`), and
the loop runs on its own thread while the bots act in the world. The world's
tray stands in for the synthetic camera and a resumed game's tokens are on the
simulated board before it starts; nothing else differs from the daemon.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from controller.config import Config, load_config
from controller.core.events import Event
from controller.daemon.hardware import TableDevices
from controller.daemon.journals import held_game_id, resume_or_start
from controller.daemon.loop import TableLoop
from controller.daemon.publishing import require_link
from controller.daemon.tables import (
    AnySink,
    CompanionGame,
    DiceTable,
    TableOptions,
    open_devices,
    open_table,
    start_timers,
)
from controller.demo.tray import Tray
from controller.game.state import GameData
from controller.gamedata import DEMO_DIR
from controller.publish.errors import LinkError
from controller.publish.publisher import Publisher
from controller.publish.settings import EventsSettings
from controller.table.settings import TableConfig

DEMO_CONFIG = DEMO_DIR / "config.toml"
"""The dice table on simulated devices (``toptable run --config`` takes it too)."""
DEMO_PLAYER = "demo"
"""Who plays a journal the demo started (its bots): recorded in it."""
TICK_EVERY_S = 0.1
FLUSH_S = 5.0  # at the end, how long the demo waits for the broker to take every row


def demo_config(path: Path, table: TableConfig, layout_from_data: bool = False) -> Config:
    """The config at ``path`` with the demo's ``[table]`` (its game, players, journal).

    The bots press the mock buttons without bounce (mock pins do not bounce: a
    debounce window would only drop quick presses); ``layout_from_data`` takes the
    board from the game's data folder (``--data DIR``) instead of the config's.

    Raises:
        DataError: the config has problems.
    """
    config = load_config(path)
    board = replace(config.board, layout=None) if layout_from_data else config.board
    controls = replace(config.controls, bounce_ms=0)
    return replace(config, table=table, board=board, controls=controls)


@dataclass
class DemoTable:
    """The table: its loop (run on its own thread by :meth:`start`), devices and game."""

    loop: TableLoop
    devices: TableDevices
    running: DiceTable | CompanionGame
    publisher: Publisher | None = None  # with ``events``: its end is the caller's to say
    thread: threading.Thread = field(init=False)

    def __post_init__(self) -> None:
        self.thread = threading.Thread(target=self.loop.run, name="table-loop", daemon=True)

    def start(self) -> None:
        """Run the loop on its thread (register the watchers' handlers first)."""
        self.thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the loop and wait for its thread (idempotent): from here on the table is
        the caller's to read."""
        self.loop.stop()
        if self.thread.is_alive():
            self.thread.join(timeout_s)


@contextmanager
def demo_table(
    config: Config,
    options: TableOptions,
    *,
    data: GameData | None = None,
    tray: Tray | None = None,
    board_tokens: Collection[int] = (),
    events: EventsSettings | None = None,
    sinks: Callable[[TableDevices], Sequence[AnySink]] | None = None,
    companion_at: Path | None = None,
    events_queue: queue.Queue[Event] | None = None,
    names: Sequence[str] = (),
) -> Iterator[DemoTable]:
    """The table ``config`` sets up, its loop ready to :meth:`~DemoTable.start`; stopped,
    closed and its devices released when the block ends.

    ``data``: the dice game's material (loaded from the config when left out);
    ``tray``: the world's tray in place of the synthetic camera; ``board_tokens``:
    sensors holding a token when the simulated board starts; ``events``: publish
    the game (flushed for up to :data:`FLUSH_S` at the end); ``sinks``: more view
    sinks, made once the devices are open (a recorder of the displays);
    ``companion_at``: where a companion game is journalled (None: beside the dice
    game's journal); ``events_queue``: the loop's queue (a probe's); ``names``: a new
    game's players.

    Raises:
        StartError, JournalError, DataError: as
            :func:`~controller.daemon.journals.resume_or_start`.
        LinkError: (``events``) the publisher could not start, or its broker refused
            it or could not be reached: before any move.
    """
    loop = TableLoop(events_queue, idle_wakeup_s=0.2)
    with ExitStack() as stack:
        held = resume_or_start(config, data, companion_at, names, options.seed, player=DEMO_PLAYER)
        stack.callback(held.close)
        devices = stack.enter_context(
            open_devices(
                config, loop.events, data, held_game_id(held), tray=tray, board_tokens=board_tokens
            )
        )
        if sinks is not None:
            options = replace(options, sinks=[*options.sinks, *sinks(devices)])
        running = open_table(config, loop, devices, held, options)
        publisher = running.publish(events)
        if publisher is not None:
            stack.callback(publisher.close, FLUSH_S)
        elif events is not None:  # why is logged
            raise LinkError(f"events: cannot publish to {events.connection.broker.url}")
        require_link(publisher)  # a demo that cannot publish says so before it plays
        start_timers(loop, devices, running.table, TICK_EVERY_S)
        demo = DemoTable(loop, devices, running, publisher)
        stack.callback(demo.stop)
        if tray is not None:
            stack.callback(tray.close)  # first: the camera thread is not kept waiting
        yield demo


def faults_text(faults: Mapping[str, str]) -> str:
    """The devices' faults as one line: ``board: ...; camera: ...`` (their source first)."""
    return "; ".join(f"{source}: {why}" for source, why in sorted(faults.items())) or "none said"
