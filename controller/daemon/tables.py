"""The table a config sets up, opened on the devices and wired to the loop: every game kind.

``toptable run`` and ``toptable demo`` both open the game from its journal first
(:func:`~controller.daemon.journals.resume_or_start`), then the devices
(:func:`open_devices`), then :func:`open_table`: the game's table is built on the
devices' sinks and its handlers registered on the loop. What comes back is a :class:`RunningTable`: the table (a
:class:`~controller.table.game_table.GameTable`), its journal, who to tell after
each change, its publishing and its closing, the same for every kind.

- The dice game (Tournament or Story): :class:`DiceTable` -- a
  :class:`~controller.game.session.TableGame`, a
  :class:`~controller.table.controller.TableController` on the devices' sinks
  (told when a new roll starts, so the camera counts rerolls), and the board's
  :class:`~controller.board.follow.BoardFollower`.
- A companion mode: :class:`CompanionGame` -- a
  :class:`~controller.table.companion.CompanionTable` on the displays, journalled
  beside the dice game's journal (``companion-MODE.sqlite``).

:func:`start_timers` gives a running table what every one has on the loop: the
devices' faults shown (a camera or board missing from the start posted as lost),
their retry every few seconds, and the clock's ticks.
"""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from controller.board.follow import BoardFollower
from controller.config import Config
from controller.core.events import Event
from controller.daemon.hardware import TableDevices
from controller.daemon.journals import Held, evidence_dir, recorded_seed
from controller.daemon.loop import TableLoop
from controller.daemon.publishing import publish_companion, publish_table
from controller.daemon.wiring import attach_companion, attach_follower, attach_table
from controller.game.session import TableGame
from controller.game.state import GameData
from controller.publish.publisher import Publisher
from controller.publish.settings import EventsSettings
from controller.storage.journal import EventJournal
from controller.table.companion import CompanionTable
from controller.table.controller import TableController
from controller.table.game_table import GameTable
from hardware.displays.companion import CompanionView
from hardware.displays.model import TableView

RETRY_EVERY_S = 5.0
REFRESH_EVERY_S = 15.0
"""How often the next screen in turn is sent its start-up commands and its frame whole
again (each of four every minute): one that lost power for a moment stays dark otherwise
(:meth:`DisplayBoard.refresh`)."""
"""How often missing devices are tried again."""


class AnySink(Protocol):
    """A view sink that takes the view of every kind of table (a recorder, the displays)."""

    def update(self, view: TableView | CompanionView) -> Any:
        """Show ``view``."""
        ...


@dataclass(frozen=True)
class TableOptions:
    """How the table is run beyond its config (the demo's choices; the daemon's defaults)."""

    seed: int | None = None
    """Seeds the table's own inputs (the decks' shuffles) of a game whose journal records
    no seed (an older one); None: the clock's time. A journal's own seed always wins."""
    sinks: Sequence[AnySink] = ()
    """Shown each view besides the devices (the demo's recorder and latency probe)."""
    game_clock: Callable[[], float] = time.time
    """The wall clock of the 45-minute game (the demo's runs fast)."""
    clock_file: Path | None = None
    """Where a first-release demo kept its clock (adopted into the journal)."""
    board_settle_s: float | None = None
    """How long a token must stay put to be a move (None: the follower's default)."""


class RunningTable(Protocol):
    """A game's table on the loop and the devices, whatever its kind."""

    @property
    def table(self) -> GameTable:
        """The table (what the daemon talks to)."""
        ...

    @property
    def journal(self) -> EventJournal[Any]:
        """The game's journal (the publisher's outbox)."""
        ...

    def on_change(self, callback: Callable[[], None]) -> None:
        """Call ``callback`` after every journalled change of the game (on the loop's thread)."""
        ...

    def publish(self, events: EventsSettings | None) -> Publisher | None:
        """Start publishing the game (None: publishing is off or could not start)."""
        ...

    def close(self) -> None:
        """Close the journal (idempotent): nothing after this can cost the game."""
        ...


@dataclass
class DiceTable:
    """The dice game (Tournament or Story) on the camera, the board, the buttons and screens."""

    game: TableGame
    table: TableController
    follower: BoardFollower

    @property
    def journal(self) -> EventJournal[Any]:
        """The game's journal."""
        return self.game.journal

    def on_change(self, callback: Callable[[], None]) -> None:
        """See :meth:`RunningTable.on_change`."""
        self.table.listeners.append(lambda state: callback())

    def publish(self, events: EventsSettings | None) -> Publisher | None:
        """See :meth:`RunningTable.publish`."""
        return publish_table(events, self.game, self.table)

    def close(self) -> None:
        """See :meth:`RunningTable.close`."""
        self.game.close()


@dataclass
class CompanionGame:
    """A companion mode's game on the buttons and screens."""

    table: CompanionTable

    @property
    def journal(self) -> EventJournal[Any]:
        """The game's journal."""
        return self.table.journal

    def on_change(self, callback: Callable[[], None]) -> None:
        """See :meth:`RunningTable.on_change`."""
        self.table.listeners.append(lambda table: callback())

    def publish(self, events: EventsSettings | None) -> Publisher | None:
        """See :meth:`RunningTable.publish`."""
        return publish_companion(events, self.table)

    def close(self) -> None:
        """See :meth:`RunningTable.close`."""
        self.table.close()


def open_devices(
    config: Config,
    events: queue.Queue[Event],
    data: GameData | None,
    game_id: str | None = None,
    **world: Any,
) -> TableDevices:
    """The devices of the table ``config`` sets up (a companion mode: no camera, no
    board), posting into ``events``; ``data``: the dice game's material (its die for
    a synthetic camera); ``game_id``: the game whose throws' photos are kept (in a
    folder of its own); ``world``: a simulated world's hooks (``tray``,
    ``board_tokens``: see :class:`~controller.daemon.hardware.TableDevices`).

    Raises:
        DataError: the board layout or sensor map is unreadable.
    """
    return TableDevices.open(
        config,
        events,
        evidence_dir=evidence_dir(config, game_id),
        die_faces=data.die.faces if data is not None else (),
        dice=config.table.mode.plays_dice,
        **world,
    )


def open_table(
    config: Config,
    loop: TableLoop,
    devices: TableDevices,
    held: Held,
    options: TableOptions = TableOptions(),
) -> DiceTable | CompanionGame:
    """The table of the game ``held`` (:func:`resume_or_start`) on ``devices``, its handlers
    registered on ``loop``. The game is closed if the table cannot be made."""
    try:
        if isinstance(held, CompanionTable):
            held.sinks.extend([devices.displays, *options.sinks])
            attach_companion(loop, held)
            held.render()
            return CompanionGame(held)
        table = TableController(
            held,
            [*devices.sinks(), *options.sinks],
            seed=table_seed(recorded_seed(held), options.seed),
            roll_started=devices.new_attack,
            game_clock=options.game_clock,
            clock_file=options.clock_file,
        )
        attach_table(loop, table)
        settle = {} if options.board_settle_s is None else {"settle_s": options.board_settle_s}
        follower = BoardFollower(table, held.data.board, **settle)
        attach_follower(loop, follower)
        return DiceTable(held, table, follower)
    except BaseException:
        held.close()
        raise


def start_timers(
    loop: TableLoop,
    devices: TableDevices,
    table: GameTable,
    tick_s: float,
    retry_s: float = RETRY_EVERY_S,
) -> None:
    """Show the devices' faults (posting a camera or board missing from the start as
    lost: the buttons stand in), try missing devices again every ``retry_s`` seconds,
    light a screen again every :data:`REFRESH_EVERY_S`, and tick the clock every
    ``tick_s`` seconds. Call before the loop runs."""
    devices.report_missing()
    table.set_device_faults(_faults(devices))
    loop.call_every(retry_s, lambda: _retry(devices, table))
    loop.call_every(REFRESH_EVERY_S, lambda: _refresh(devices, table))
    loop.tick_every(tick_s)


def _retry(devices: TableDevices, table: GameTable) -> None:
    """Reopen what is missing (a camera that comes back posts its event); the faults on
    screen follow."""
    devices.retry()
    table.set_device_faults(_faults(devices))


def _faults(devices: TableDevices) -> dict[str, str]:
    """The devices' faults, a button held down as if stuck among them."""
    stuck = devices.inputs.stuck() if devices.inputs is not None else {}
    return {**devices.faults(), **stuck}


def _refresh(devices: TableDevices, table: GameTable) -> None:
    """Light again a screen that lost power for a moment; one that stopped answering is
    dropped (and shown as a fault)."""
    devices.displays.refresh()
    table.set_device_faults(_faults(devices))


def table_seed(recorded: int | None, given: int | None) -> int:
    """The table's seed: the journal's, else ``given``, else the clock's time."""
    if recorded is not None:
        return recorded
    return given if given is not None else int(time.time())
