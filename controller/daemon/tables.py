"""The table a config sets up, opened on the devices and wired to the loop: every game kind.

``toptable run`` and ``toptable demo`` both call :func:`resume_or_start` and then
:func:`open_table`: the game the config's ``[table] mode`` names is resumed from
the journal the config names (or started there) before any device is opened,
then its table is built on the devices' sinks and its handlers registered on the
loop. What comes back is a :class:`RunningTable`: the table (a
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

A journal that holds another game than the config sets up is refused with one
line saying how to go on (:class:`StartError`), and left untouched.
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
from controller.core.errors import TopTableError
from controller.core.events import Event
from controller.core.kinds import GameKind
from controller.daemon.hardware import TableDevices, load_layout
from controller.daemon.loop import TableLoop
from controller.daemon.publishing import publish_companion, publish_table
from controller.daemon.wiring import attach_companion, attach_follower, attach_table
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, GameData, Length
from controller.publish.publisher import Publisher
from controller.publish.settings import EventsSettings
from controller.rules.variants import Variants
from controller.storage.journal import EventJournal
from controller.table.companion import CompanionTable
from controller.table.controller import TableController
from controller.table.game_table import GameTable
from controller.table.settings import PLAYER_NAMES
from hardware.displays.companion import CompanionView
from hardware.displays.model import TableView

RETRY_EVERY_S = 5.0
"""How often missing devices are tried again."""


class StartError(TopTableError, RuntimeError):
    """The table cannot start (the message says what to fix); exit code 2."""


class AnySink(Protocol):
    """A view sink that takes the view of every kind of table (a recorder, the displays)."""

    def update(self, view: TableView | CompanionView) -> Any:
        """Show ``view``."""
        ...


@dataclass(frozen=True)
class TableOptions:
    """How the table is run beyond its config (the demo's choices; the daemon's defaults)."""

    seed: int | None = None
    """Seeds the table's own inputs (the decks' shuffles); None: the clock's time."""
    sinks: Sequence[AnySink] = ()
    """Shown each view besides the devices (the demo's recorder and latency probe)."""
    game_clock: Callable[[], float] = time.time
    """The wall clock of the 45-minute game (the demo's runs fast)."""
    clock_file: Path | None = None
    """Where a first-release demo kept its clock (adopted into the journal)."""
    board_settle_s: float | None = None
    """How long a token must stay put to be a move (None: the follower's default)."""
    companion_journal: Path | None = None
    """Where a companion game is journalled (None: beside the dice game's journal)."""


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


def evidence_dir(config: Config) -> Path:
    """Where each settled throw's frame is kept: beside the game's journal."""
    return config.table.journal.with_suffix(".frames")


def open_devices(
    config: Config, events: queue.Queue[Event], data: GameData | None, **world: Any
) -> TableDevices:
    """The devices of the table ``config`` sets up (a companion mode: no camera, no
    board), posting into ``events``; ``data``: the dice game's material (its die for
    a synthetic camera); ``world``: a simulated world's hooks (``tray``,
    ``board_tokens``: see :class:`~controller.daemon.hardware.TableDevices`).

    Raises:
        DataError: the board layout or sensor map is unreadable.
    """
    return TableDevices.open(
        config,
        events,
        evidence_dir=evidence_dir(config),
        die_faces=data.die.faces if data is not None else (),
        dice=config.table.mode.plays_dice,
        **world,
    )


def game_data_for(config: Config) -> GameData:
    """The game's printed material, with the board layout (and sensor map) the config names.

    Raises:
        DataError: a malformed data, layout or mapping file.
    """
    data = load_game_data(config.table.data_dir)
    # the board the devices use; the rest as the data directory has it
    return GameData(load_layout(config), data.roster, data.cards, data.story, die=data.die)


def _journal_folder(path: Path) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StartError(
            f"cannot create the journal's folder {path.parent}: {exc.strerror}"
        ) from None


def open_game(config: Config, data: GameData) -> TableGame:
    """Resume the dice game in the journal the config names, or start one there.

    Raises:
        JournalError: a journal from a newer version, another game, or corrupted.
        StartError: the journal holds another game than the config sets up, or its
            folder cannot be created.
    """
    path = config.table.journal
    _journal_folder(path)
    t = config.table
    length = Length(t.length.value)
    variants = Variants.from_names(t.variants)
    if not path.exists():
        names = PLAYER_NAMES[: t.players]
        return TableGame.start(
            path, GameConfig(names, length, variants, kind=t.mode), data, t.data_dir
        )
    game = TableGame.resume(path, data)
    kept = game.config
    source = config.source or "the config"
    if kept.kind is not t.mode:
        game.close()
        raise StartError(
            f"{path} holds a {kept.kind.value} game, but {source} sets "
            f'[table] mode = "{t.mode.value}": move the journal away to start a '
            "new game, or set [table] mode to match"
        )
    if (len(kept.players), kept.length, kept.variants) != (t.players, length, variants):
        game.close()
        raise StartError(
            f"{path} holds a game of {_setup(len(kept.players), kept.length, kept.variants)}, but "
            f"{source} sets up {_setup(t.players, length, variants)}: "
            "move the journal away to start a new game, or set [table] to match"
        )
    return game


def _setup(players: int, length: Length, variants: Variants) -> str:
    extra = f", variants {', '.join(variants.enabled())}" if variants.enabled() else ""
    return f"{players} players ({length.value}{extra})"


def companion_journal(config: Config) -> Path:
    """Where a companion game is journalled: beside the dice game's journal."""
    return config.table.journal.with_name(f"companion-{config.table.mode.value}.sqlite")


def open_companion_table(
    kind: GameKind,
    journal: Path,
    players: Sequence[str],
    sinks: Sequence[AnySink] = (),
) -> CompanionTable:
    """Resume the companion game in ``journal``, or start one of ``kind`` for ``players``.

    Raises:
        StartError: the journal holds a game of another mode or other players.
        JournalError: a damaged journal, or one that cannot be written.
        DataError: a number of players the mode does not allow.
    """
    _journal_folder(journal)
    if not journal.exists():
        return CompanionTable.new(kind, players, journal, sinks=sinks)
    table = CompanionTable.resume(journal, sinks)
    if table.kind is not kind or len(table.players) != len(players):
        held = f"{table.kind.value} game of {len(table.players)} players"
        table.close()
        raise StartError(
            f"{journal} holds a {held}, but the config sets up {kind.value} for "
            f"{len(players)}: move the journal away to start a new game, or set [table] to match"
        )
    return table


Held = TableGame | CompanionTable
"""A game opened from its journal, before any device is (what :func:`open_game` and
:func:`open_companion_table` give)."""


def resume_or_start(
    config: Config, data: GameData | None = None, options: TableOptions = TableOptions()
) -> Held:
    """The game ``config`` sets up, from its journal (resumed, or started there): first,
    so that a journal of another game is refused before any device is opened.

    Raises:
        StartError, JournalError: as :func:`open_game` / :func:`open_companion_table`.
        DataError: a malformed data file, or players the mode does not allow.
    """
    t = config.table
    if not t.mode.plays_dice:
        journal = options.companion_journal or companion_journal(config)
        return open_companion_table(t.mode, journal, PLAYER_NAMES[: t.players])
    return open_game(config, data or game_data_for(config))


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
            seed=options.seed if options.seed is not None else int(time.time()),
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
    and tick the clock every ``tick_s`` seconds. Call before the loop runs."""
    devices.report_missing()
    table.set_device_faults(devices.faults())
    loop.call_every(retry_s, lambda: _retry(devices, table))
    loop.tick_every(tick_s)


def _retry(devices: TableDevices, table: GameTable) -> None:
    """Reopen what is missing (a camera that comes back posts its event); the faults on
    screen follow."""
    devices.retry()
    table.set_device_faults(devices.faults())
