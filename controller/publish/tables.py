"""Several simulated tables at once, each publishing its game to one broker.

For load figures and for showing the scoreboard: table ``i`` plays a whole
bot game with seed ``seed + i``, journalled to its own SQLite file (the journal
is the outbox, as on a real table), paced like the demo, and publishes through
its own :class:`Publisher` (its own MQTT connection).
"""

from __future__ import annotations

import logging
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from controller.core.quoting import printable
from controller.game.events import GameEvent
from controller.game.session import TableGame
from controller.game.simulate import load_game_data, play_game
from controller.game.state import GameConfig, GameState, Length
from controller.publish.errors import PublishError
from controller.publish.outbox import MARK_SUFFIX as PUBLISHED_SUFFIX
from controller.publish.progress import PublishStats
from controller.publish.publisher import Publisher
from controller.publish.settings import Connection, check_table_id
from controller.storage.lock import holder_message
from controller.storage.marks import mark_path, marked_here, write_mark
from controller.storage.place import too_long_for_sqlite
from controller.storage.sqlite_file import sidecars

if TYPE_CHECKING:
    from controller.game import GameData

log = logging.getLogger(__name__)

# Seconds between a table's events at demo speed: `toptable demo` journalled 71 events in
# about 35 s (its 17 throws 33 s apart from first to last), so about 2 events a second.
DEMO_PACE_S = 0.5
NAMES = ("Ann", "Bob", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hana", "Ivo", "Jun", "Kai", "Lea",
         "Mo", "Nia", "Oto", "Pia", "Quin", "Rae", "Sol", "Tam", "Uma", "Vic", "Wen", "Xia")  # fmt: skip


@dataclass(frozen=True)
class TablesOptions:
    """What to simulate."""

    tables: int
    players: int = 2
    length: Length = Length.ROUNDS5
    seed: int = 0
    pace_s: float = DEMO_PACE_S
    directory: Path | None = None  # where the journals go (default: a temporary folder)
    data_dir: Path | None = None
    prefix: str = "table"
    flush_s: float = 30.0  # how long each table waits at the end for the broker's acks


@dataclass
class TableRun:
    """How one simulated table's game went."""

    table_id: str
    game_id: str
    journal: Path
    events: int  # journal rows
    seconds: float
    winners: tuple[str, ...]
    delivered: bool  # every row and the final state acknowledged by the broker
    stats: PublishStats = field(default_factory=PublishStats)


def player_names(table: int, players: int) -> tuple[str, ...]:
    """Distinct player names for table ``table`` (0-based)."""
    out = []
    for k in range(players):
        i = table * players + k
        base = NAMES[i % len(NAMES)]
        out.append(base if i < len(NAMES) else f"{base}{i // len(NAMES) + 1}")
    return tuple(out)


def play_table(
    conn: Connection,
    table_id: str,
    journal: Path,
    names: tuple[str, ...],
    options: TablesOptions,
    seed: int,
    data: GameData,
    on_event: Callable[[str, int, GameState], None] | None = None,
) -> TableRun:
    """Play and publish one table's whole game (the calling thread is the game thread)."""
    game = TableGame.start(journal, GameConfig(names, options.length), data, options.data_dir)
    write_mark(journal, SIMULATED_SUFFIX, game.journal.game_id)
    publisher = Publisher(conn, table_id, client_id=f"toptable-sim-{table_id}-{os.getpid()}")
    publisher.start()
    publisher.attach(game.journal.path, game.journal.game_id)
    started = time.monotonic()

    def submit(event: GameEvent) -> GameState:
        state = game.submit(event)
        seq = len(game.journal)
        publisher.notify(state, seq)
        if on_event is not None:
            on_event(table_id, seq, state)
        if options.pace_s > 0:
            time.sleep(options.pace_s)
        return state

    try:
        with game:
            out = play_game(game.config, data, seed, None, submit)
            seconds = time.monotonic() - started
            delivered = publisher.flush(options.flush_s)
            return TableRun(
                table_id, game.journal.game_id, journal, len(game.journal), seconds,
                tuple(names[w] for w in out.winners), delivered, publisher.stats,
            )  # fmt: skip
    finally:
        publisher.close(flush_s=0)


def simulate_tables(
    conn: Connection,
    options: TablesOptions,
    on_event: Callable[[str, int, GameState], None] | None = None,
) -> list[TableRun]:
    """Play ``options.tables`` games at once, one thread each; return how each went.

    Raises:
        TableIdError: a table id built from ``options.prefix`` is not valid.
        DataError: the game data cannot be loaded.
        PublishError: a table's journal would land on a file a simulation did not write
            (a real table's journal: never replaced), or at a path SQLite cannot open.
    """
    data = load_game_data(options.data_dir)
    ids = [check_table_id(f"{options.prefix}-{i + 1}") for i in range(options.tables)]
    directory = options.directory or Path(tempfile.mkdtemp(prefix="toptable-tables-"))
    for table_id in ids:  # before anything is made there
        journal = directory / f"{table_id}.sqlite"
        if (long := too_long_for_sqlite(journal, creating=True)) is not None:
            raise PublishError(f"{printable(str(journal))}: {long} (--journals)")
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise PublishError(
            f"{printable(str(directory))}: cannot be made: {exc.strerror or exc} (--journals)"
        ) from None
    for table_id in ids:
        _make_room(directory / f"{table_id}.sqlite")
    runs: list[TableRun | None] = [None] * options.tables
    errors: list[BaseException] = []

    def one(i: int) -> None:
        journal = directory / f"{ids[i]}.sqlite"
        try:
            runs[i] = play_table(
                conn, ids[i], journal, player_names(i, options.players), options,
                options.seed + i, data, on_event,
            )  # fmt: skip
        except BaseException as exc:  # reported after every table has stopped
            errors.append(exc)

    threads = [
        threading.Thread(target=one, args=(i,), name=f"sim-{ids[i]}", daemon=True)
        for i in range(options.tables)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return [r for r in runs if r is not None]


SIMULATED_SUFFIX = ".simulated"
"""The mark beside a simulated table's journal: the game id it journals, so that the next
simulation into the folder replaces that game only."""


def _make_room(journal: Path) -> None:
    """Clear the place of a simulated table's journal: a game a simulation journalled there
    (its mark names it) goes, with the files beside it (SQLite's log, its publisher's
    progress, the mark); anything else there is refused.

    Raises:
        PublishError: a file is there that no simulation wrote, or a simulation plays there.
    """
    parts = (*sidecars(journal), journal.with_name(journal.name + PUBLISHED_SUFFIX))
    if not any(p.exists() or p.is_symlink() for p in parts):
        return
    if not marked_here(journal, SIMULATED_SUFFIX):
        raise PublishError(
            f"{journal}: a file no simulation wrote is there (a table's journal?), and a "
            "simulated table replaces only its own: move it away, or give --journals "
            "another folder"
        )
    if (held := holder_message(journal)) is not None:  # a simulation plays it: not replaced
        raise PublishError(held)
    for part in (*parts, mark_path(journal, SIMULATED_SUFFIX)):
        part.unlink(missing_ok=True)
