"""The game a table keeps, from its journal: resumed where it was left, or started there.

Both ``toptable run`` and ``toptable demo`` open the game first
(:func:`resume_or_start`), before any device: the dice game's journal (the
config's ``[table] journal``) or a companion mode's (``companion-MODE.sqlite``
beside it), checked against what the config sets up. A journal that holds
another game is refused with one line saying how to go on (:class:`StartError`),
and left untouched.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from controller.companion.journal import (
    CompanionJournal,
)
from controller.config import Config
from controller.core.errors import TopTableError
from controller.core.kinds import GameKind
from controller.core.quoting import short_repr
from controller.daemon.finished import set_aside, unpublished
from controller.daemon.hardware import layout_file, load_layout
from controller.daemon.setups import (
    other_companion_game,
    other_game,
    other_names,
    player_names,
)
from controller.game.journal import Journal
from controller.game.session import (
    TableGame,
    journal_kind,
    journalled_config,
)
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, GameData, Length, Phase
from controller.gamedata import data_dir as resolve_data_dir
from controller.rules.variants import Variants
from controller.storage.journal import (
    JournalCorruptError,
    JournalError,
    JournalForeignError,
    JournalInUseError,
    journal_exists,
)
from controller.storage.origin import (
    TABLE_PLAYER,
    ContradictionError,
    Origin,
    refuse_contradiction,
    refuse_others_game,
)
from controller.storage.sqlite_file import header_application_id
from controller.system.private_tmp import emptied_when_stopped
from controller.system.sandbox import read_only_here
from controller.table.companion import CompanionTable

log = logging.getLogger(__name__)


class StartError(TopTableError, RuntimeError):
    """The table cannot start (the message says what to fix); exit code 2."""


def evidence_dir(config: Config, game_id: str | None = None) -> Path:
    """Where each settled throw's frame is kept: beside the game's journal, in a folder of
    the game's own (``game_id``; None: the folder of every game)."""
    frames = config.table.journal.with_suffix(".frames")
    return frames / game_id if game_id is not None else frames


def game_data_for(config: Config) -> GameData:
    """The game's printed material, with the board layout (and sensor map) the config names.

    Raises:
        DataError: a malformed data, layout or mapping file.
    """
    data = load_game_data(config.table.data_dir)
    # the board the devices use; the rest as the data directory has it
    return GameData(load_layout(config), data.roster, data.cards, data.story, die=data.die)


def _journal_folder(path: Path) -> None:
    """Make the journal's folder.

    Raises:
        StartError: it cannot be made, the service's sandbox makes it read-only, or the
            service's stop would empty it.
    """
    if (lost := emptied_when_stopped(path)) is not None:
        raise StartError(f"the journal {path} {lost}")
    if (sandboxed := read_only_here(path.parent)) is not None:
        raise StartError(f"the journal {path} cannot be written: {sandboxed}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StartError(
            f"cannot create the journal's folder {path.parent}: {exc.strerror}"
        ) from None


def new_seed(seed: int | None) -> int:
    """The seed a new game records: ``seed``, else the clock's time."""
    return seed if seed is not None else int(time.time())


def open_game(
    config: Config,
    data: GameData,
    names: Sequence[str] = (),
    seed: int | None = None,
    player: str = TABLE_PLAYER,
    next_after_over: bool = False,
) -> TableGame:
    """Resume the dice game in the journal the config names, or start one there (its
    players called ``names``, else :func:`player_names`; recording ``seed``, else the
    clock's time, and the data it is played with: the data directory's files and the
    board layout the config names). ``next_after_over``: a game there that is over is
    set aside (:mod:`controller.daemon.finished`) and the next one starts, even when the
    data changed since it was played (:func:`ended_as_played`).

    The data ``config`` names is compared with the journal's before anything is replayed.

    Raises:
        JournalError: a journal from a newer version, another game, or corrupted.
        ContradictionError: ``seed`` or the config's data is not the journal's.
        StartError: the journal holds another game than the config sets up, or its
            folder cannot be created.
        SetAsideError: a finished game's journal cannot be moved aside.
    """
    path = config.table.journal
    _journal_folder(path)
    t = config.table
    length = Length(t.length.value)
    variants = Variants.from_names(t.variants)
    board = layout_file(config)

    def start(seed: int | None) -> TableGame:
        players = GameConfig(tuple(names) or player_names(config), length, variants, kind=t.mode)
        return TableGame.start(path, players, data, t.data_dir, new_seed(seed), board, player)

    if not journal_exists(path):
        return start(seed)
    try:
        game = TableGame.resume(
            path, data, data_dir=resolve_data_dir(t.data_dir), board=board, given_by=DATA_FLAG
        )
    except ContradictionError:
        # the data changed since the game was played: a game over gives way to the next
        ended = ended_as_played(path) if next_after_over else None
        if ended is None:
            raise
        log.info("the data changed since the game in %s was played; it is over", path)
        _refuse_another(path, ended.origin, ended.config, True, player, seed, config)
        _next_after(path, ended.game_id, published=config.events is not None)
        return start(None)
    try:
        over = next_after_over and game.state.phase is Phase.OVER
        _refuse_another(path, game.origin, game.config, over, player, seed, config)
    except BaseException:
        game.close()
        raise
    if not over:
        return game
    game.close()
    _next_after(path, game.journal.game_id, published=config.events is not None)
    return start(None)


def _refuse_another(
    path: Path,
    origin: Origin,
    kept: GameConfig,
    over: bool,
    player: str,
    seed: int | None,
    config: Config,
) -> None:
    """Refuse the game journalled at ``path`` (its ``origin`` and set-up ``kept``; ``over``:
    it is over and the next may start) unless ``player`` may go on there as ``config``
    sets up.

    Raises:
        JournalError: another player's game.
        ContradictionError: ``seed`` is not the journal's.
        StartError: another set-up than the config's, for a game not the table's own over.
    """
    refuse_others_game(path, origin, player)
    refuse_contradiction(path, "--seed", seed, origin.seed)
    # the table's own game over: the next is the one the config sets up now; another
    # program's journal (`game play`) is set aside only as the table's game
    own = over and origin.played_by == TABLE_PLAYER
    other = None if own else other_game(kept, config)
    if other is not None:
        raise StartError(f"{path} {other}")


@dataclass(frozen=True)
class Ended:
    """A game over as it was played, as its journal records it."""

    game_id: str
    origin: Origin
    config: GameConfig


def ended_as_played(path: Path) -> Ended | None:
    """The game in ``path`` when its journal records that it ended as it was played
    (:meth:`Journal.over_as_played`), read without replaying it; None: it records no
    such end (a game under way, one undone or corrected since, a journal from before
    the record), or it cannot be read.

    A game whose cards, board or warriors changed since cannot be replayed; one that is
    over needs no replay, only setting aside. Its end is the journal's record: on other
    data a game under way can end early, and a finished one not replay at all.
    """
    try:
        with Journal.open(path, writable=False) as journal:
            if not journal.over_as_played():
                return None
            setup = journal.setup
            return Ended(
                journal.game_id, Origin.from_setup(setup, path), journalled_config(path, setup)
            )
    except JournalError:
        return None


def _next_after(path: Path, game_id: str, published: bool) -> None:
    """Set the finished game ``game_id`` in ``path`` aside, saying where it went and what
    of it the broker never had (``published``: events are on).

    Raises:
        SetAsideError: it cannot be moved aside.
    """
    unsent = unpublished(path, game_id, published)
    aside = set_aside(path, game_id)
    log.info("the game in %s is over: kept as %s; the next game starts", path, aside.name)
    if unsent:
        log.warning("the scoreboard never had the last %d events of that game (the broker "
                    "did not acknowledge them): its end is in %s only", unsent, aside.name)  # fmt: skip


DATA_FLAG = "[table] data_dir"
"""How the daemon's refusals name the data the config gives."""
IN_USE_POLL_S = 0.25
"""How often a start waiting for a journal another toptable holds looks again."""


def companion_journal(config: Config) -> Path:
    """Where a companion game is journalled: beside the dice game's journal."""
    return config.table.game_journal


def open_companion_table(
    kind: GameKind,
    journal: Path,
    players: Sequence[str],
    seed: int | None = None,
    player: str = TABLE_PLAYER,
    config: Config | None = None,
    next_after_over: bool = False,
) -> CompanionTable:
    """Resume the companion game in ``journal``, or start one of ``kind`` for ``players``
    (recording ``seed``, else the clock's time). ``next_after_over``: the table's own
    game there that is won is set aside (:mod:`controller.daemon.finished`) and the next
    one, the one set up now, starts.

    Raises:
        StartError: the journal holds a game of another mode or other players.
        ContradictionError: ``seed`` is not the journal's.
        JournalError: a damaged journal, or one that cannot be written.
        DataError: a number of players the mode does not allow.
        SetAsideError: a finished game's journal cannot be moved aside.
    """
    _journal_folder(journal)

    def start(seed: int | None) -> CompanionTable:
        return CompanionTable.new(kind, players, journal, seed=new_seed(seed), played_by=player)

    if not journal_exists(journal):
        return start(seed)
    table = CompanionTable.resume(journal)
    try:
        origin = table.journal.origin
        refuse_others_game(journal, origin, player)
        refuse_contradiction(journal, "--seed", seed, origin.seed)
        over = next_after_over and table.winner is not None
        own = over and origin.played_by == TABLE_PLAYER  # as open_game's
        other = None if own else other_companion_game(table.kind, len(table.players), kind,
                                                      len(players))  # fmt: skip
        if other is None and config is not None and not own:
            other = other_names(table.players, config)
        if other is not None:
            raise StartError(f"{journal} {other}")
    except BaseException:
        table.close()
        raise
    if not over:
        return table
    table.close()
    _next_after(journal, table.journal.game_id, config is not None and config.events is not None)
    return start(None)


Held = TableGame | CompanionTable
"""A game opened from its journal, before any device is (what :func:`open_game` and
:func:`open_companion_table` give)."""


def resume_or_start(
    config: Config,
    data: GameData | None = None,
    companion_at: Path | None = None,
    names: Sequence[str] = (),
    seed: int | None = None,
    wait_in_use_s: float = 0.0,
    player: str = TABLE_PLAYER,
    next_after_over: bool = False,
) -> Held:
    """The game ``config`` sets up, from its journal (resumed, or started there): first,
    so that a journal of another game is refused before any device is opened.
    ``next_after_over``: the table's game there that is over is set aside, the next
    started.
    ``companion_at``: where a companion game is journalled (None: beside the dice
    game's journal); ``names``: a new game's players (default :func:`player_names`);
    ``seed``: a new game's seed (None: the clock's time), which a resumed game's
    journal must not contradict. ``wait_in_use_s``: how long to wait for another
    toptable that holds the journal (a ``game undo`` run as the service starts) before
    giving up.

    Raises:
        StartError, JournalError: as :func:`open_game` / :func:`open_companion_table`;
            JournalInUseError once another still holds the journal after the wait.
        DataError: a malformed data file, or players the mode does not allow.
    """
    give_up = time.monotonic() + wait_in_use_s
    while True:
        try:
            return _resume_or_start(
                config, data, companion_at, names, seed, player, next_after_over
            )
        except JournalInUseError:
            if time.monotonic() >= give_up:
                raise
            time.sleep(IN_USE_POLL_S)


def _resume_or_start(
    config: Config,
    data: GameData | None,
    companion_at: Path | None,
    names: Sequence[str],
    seed: int | None,
    player: str,
    next_after_over: bool = False,
) -> Held:
    t = config.table
    if not t.mode.plays_dice:
        journal = companion_at or companion_journal(config)
        names = tuple(names) or player_names(config)
        return open_companion_table(t.mode, journal, names, seed, player, config, next_after_over)
    data = data or game_data_for(config)
    return open_game(config, data, names, seed, player, next_after_over)


def held_kind(path: Path) -> GameKind:
    """The kind of game the journal at ``path`` holds, as its set-up records it (a
    companion journal and the dice game's are told apart by their file stamp).

    Raises:
        JournalError: no journal there, another program's file, or a damaged one.
    """
    try:
        with CompanionJournal.open(path) as companion:
            return companion.kind
    except JournalForeignError:
        pass  # not a companion journal: the dice game's, or nobody's (said below)
    except JournalCorruptError:
        if header_application_id(path) == CompanionJournal.APPLICATION_ID:
            raise  # a damaged companion journal
        # no SQLite file, or a damaged dice game's journal: said as the dice game's below
    with Journal.open(path) as dice:
        kind = journal_kind(dice)
    if kind is None or not kind.plays_dice:
        raise JournalCorruptError(
            f"{path}: the set-up names no game ({short_repr(dice.setup.get('mode'))})"
        )
    return kind


def held_game_id(held: Held) -> str:
    """The id of the game ``held`` (its journal's)."""
    return held.journal.game_id


def recorded_seed(held: Held) -> int | None:
    """The seed ``held``'s journal recorded (None: an older journal records none)."""
    if isinstance(held, CompanionTable):
        return held.journal.origin.seed
    return held.origin.seed
