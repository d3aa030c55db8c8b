"""Why ``toptable run`` would refuse the game journalled where a config says (``config
check`` asks it before the service starts): the journal's header and set-up read without
writing to it or beside it, and compared with what the config sets up, then its rows
checked and replayed as a look, in the words and order of the daemon's own open
(:mod:`controller.daemon.journals`). Nothing is raised."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

from controller.companion.journal import (
    CompanionJournal,
    setup_kind,
    setup_players,
    setup_revision,
)
from controller.config import Config
from controller.core.errors import DataError
from controller.core.kinds import GameKind
from controller.daemon.hardware import layout_file
from controller.daemon.journals import DATA_FLAG, companion_journal
from controller.daemon.setups import (
    other_companion_game,
    other_game,
    other_kind,
    other_names,
    player_names,
)
from controller.game.session import TableGame, journalled_config, refuse_other_files
from controller.gamedata import data_dir as resolve_data_dir
from controller.storage.journal import (
    JournalCorruptError,
    JournalError,
    JournalForeignError,
    JournalVersionError,
)
from controller.storage.origin import ContradictionError, Origin
from controller.storage.sqlite_file import read_only, read_stamp


def held_game_problem(config: Config) -> str | None:
    """Why ``toptable run`` would refuse the game journalled where ``config`` says, as the
    rest of a line after ``[table] journal`` naming the journal (the dice game's, or the
    companion mode's beside it: :func:`companion_journal`) and what its set-up holds
    against what ``config`` sets up (:func:`other_game`, :func:`other_companion_game`, or
    a damaged set-up), from the journal's header and set-up read without writing to it or
    beside it; None: no journal there, or the game ``config`` sets up. (A file that is no
    SQLite database is left to the device checks and the daemon's open, which checks
    every row.) Nothing is raised."""
    if not config.table.mode.plays_dice:
        path = companion_journal(config)
        problem = _held_companion_problem(path, config)
        mode = config.table.mode.value
        return None if problem is None else f"keeps the {mode} game in {path}, which {problem}"
    path = config.table.journal
    problem = _held_dice_problem(path, config)
    return None if problem is None else f"names {path}, which {problem}"


def _held_setup(path: Path, stamped: type[CompanionJournal] | None = None) -> dict[str, Any] | None:
    """The set-up of the journal at ``path``, read without writing to it or beside it, and
    checked as opening the journal checks it: first its stamp, when ``stamped`` names the
    journal it must be (None: the dice game's, told by its set-up), then the set-up, a
    JSON object, and its seed and data-set fingerprint. None: no file there, or none
    SQLite reads as a journal.

    Raises:
        JournalForeignError, JournalVersionError: the file is not a ``stamped`` journal
            (another kind's, another program's) or a newer toptable's.
        JournalCorruptError: the set-up is not a JSON object, or its seed or data-set
            fingerprint is of the wrong type.
    """
    try:
        if not path.is_file():  # PermissionError: a folder on the way this user may not search
            return None
        with read_only(path) as conn:
            stamp = read_stamp(conn)
            meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    except (sqlite3.Error, OSError):
        return None
    if stamped is not None:
        stamped.check_stamp(path, stamp)
    try:
        setup = json.loads(meta["setup"])
    except (LookupError, ValueError, TypeError):
        return None
    if not isinstance(setup, dict):
        raise JournalCorruptError(f"{path}: the journal's set-up is not a JSON object")
    Origin.from_setup(setup, path)
    return setup


def _said(path: Path, exc: JournalError) -> str:
    return str(exc).removeprefix(f"{path}: ")


def _held_dice_problem(path: Path, config: Config) -> str | None:
    try:
        setup = _held_setup(path)
        if setup is None:
            return None
        kind = GameKind(str(setup.get("mode")))
        if not kind.plays_dice:  # a companion game's journal
            return other_kind(kind, config)
        kept = journalled_config(path, setup)
        origin = Origin.from_setup(setup, path)
    except JournalCorruptError as exc:
        return f"has a damaged set-up ({_said(path, exc)}): the daemon would refuse it"
    except (LookupError, ValueError, TypeError):  # no mode toptable knows: the open's to say
        return None
    return (
        other_game(kept, config)
        or _other_data(path, origin, config, kept.kind)
        or _not_replayed(path, config)
    )


def _not_replayed(path: Path, config: Config) -> str | None:
    """Why the daemon's open would refuse the journal's rows (a row that fails its check,
    a game that does not replay by this release's rules: a journal of an earlier one), as
    a look that writes nothing; None: it replays."""
    try:
        TableGame.resume(
            path,
            writable=False,
            data_dir=resolve_data_dir(config.table.data_dir),
            board=layout_file(config),
            given_by=DATA_FLAG,
        ).close()
    except JournalError as exc:  # a ContradictionError too (one _other_data does not see)
        return f"the daemon would refuse: {_said(path, exc)}"
    except DataError:  # said by the data's own check
        return None
    return None


def _other_data(path: Path, origin: Origin, config: Config, kind: GameKind) -> str | None:
    """How the data ``config`` names is not the data the journal's ``kind`` game is played
    with, as the daemon's open would say it (None: the same data, or none to compare)."""
    try:
        directory = resolve_data_dir(config.table.data_dir)
        story = kind is GameKind.STORY
        refuse_other_files(path, DATA_FLAG, directory, origin, layout_file(config), story)
    except (ContradictionError, DataError) as exc:
        return f"the daemon would refuse: {str(exc).removeprefix(f'{path}: ')}"
    return None


def _held_companion_problem(path: Path, config: Config) -> str | None:
    """The companion journal's checks in the order its resume makes them (the file's
    stamp; the set-up's seed, mode and players; the game against the one set up)."""
    try:
        setup = _held_setup(path, CompanionJournal)
        if setup is None:
            return None
        kind = setup_kind(setup, path)
        players = setup_players(setup, path)
        setup_revision(setup, path)
    except (JournalForeignError, JournalVersionError) as exc:
        return f"the daemon would refuse: {_said(path, exc)}"
    except JournalCorruptError as exc:
        return f"has a damaged set-up ({_said(path, exc)}): the daemon would refuse it"
    other = other_companion_game(kind, len(players), config.table.mode, len(player_names(config)))
    return other if other is not None else other_names(players, config)
