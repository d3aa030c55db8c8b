"""The journal of a companion game: every action in SQLite before the table acts on it.

A journal of :mod:`controller.storage` like the dice game's, so it keeps the same
habits: one file per game, WAL mode and ``synchronous=FULL`` (a committed row
survives a pulled plug), one transaction per row, rows hash-chained to the previous
one (a changed, removed or reordered row is found on opening), undo that never
deletes (a marker row names the row it cancels), and the game's id and set-up
(``mode``, ``players``, the mode's data overrides) in the ``meta`` table. Resuming
replays the effective actions through the mode's pure rules.

Its events are :class:`ActionTaken` (a row of kind ``action`` holding the action's
JSON form, ``{"do": ...}``: :func:`~controller.companion.base.action_to_json`) and
:class:`ActionRefused` (kind ``refused``: the action, the rule and the reason; kept
for the record, never replayed). Rows decode back to the mode's typed actions. The
SQLite ``application_id`` differs from the dice journal's, so neither journal opens
the other's file by mistake.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.companion.base import CompanionAction, action_to_json, parse_action
from controller.companion.registry import get_mode
from controller.core.checked import name_problem
from controller.core.errors import DataError, UnknownNameError
from controller.core.kinds import GameKind
from controller.core.quoting import short_repr
from controller.storage.journal import EventJournal, JournalCorruptError, JournalVersionError, Row
from controller.storage.origin import PLAYED_BY_KEY, SEED_KEY, Origin, damaged_setup
from controller.storage.sqlite_file import Migration, stamp_application_id

APPLICATION_ID = 0x54744370  # "TtCp"


def _game_id_in_meta(conn: sqlite3.Connection) -> None:
    """Format 1 kept the game id inside the set-up: copy it to its own ``meta`` row."""
    conn.execute(
        "INSERT OR IGNORE INTO meta SELECT 'game_id', json_extract(value, '$.game_id') "
        "FROM meta WHERE key = 'setup' AND json_extract(value, '$.game_id') IS NOT NULL"
    )


def _revision_in_setup(conn: sqlite3.Connection) -> None:
    """Format 3 records the rules revision a game is played by: a game begun before is
    played by revision 1, now written down (and an older toptable, which would replay a
    newer revision's game by its own rules, refuses the file as a newer one's)."""
    conn.execute(
        "UPDATE meta SET value = json_set(value, '$.rules_revision', 1) "
        "WHERE key = 'setup' AND json_type(value, '$.rules_revision') IS NULL"
    )


MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "stamp the file as a companion journal", stamp_application_id(APPLICATION_ID)),
    Migration(2, "the game id in its own meta row, as every journal has it", _game_id_in_meta),
    Migration(
        3, "the rules revision in the set-up (1 for a game begun before)", _revision_in_setup
    ),
)
FORMAT_VERSION = len(MIGRATIONS)
ACTION = "action"
REFUSED = "refused"
REVISION_KEY = "rules_revision"


@dataclass(frozen=True)
class ActionTaken:
    """An action the rules allowed, taken by the table."""

    action: CompanionAction


@dataclass(frozen=True)
class ActionRefused:
    """An action the rules refused: ``rule`` names the rule, ``reason`` says why."""

    action: CompanionAction
    rule: str
    reason: str


CompanionEvent = ActionTaken | ActionRefused


def setup_kind(setup: Mapping[str, Any], path: str | Path) -> GameKind:
    """The companion mode the set-up of the journal at ``path`` names (what a resume
    plays, and what ``toptable config check`` compares with the config).

    Raises:
        JournalCorruptError: the set-up names no companion mode.
    """
    try:
        kind = GameKind(str(setup.get("mode")))
    except ValueError:
        kind = None
    if kind is None or kind.plays_dice:
        raise JournalCorruptError(
            f"{path}: the set-up names no companion mode ({short_repr(setup.get('mode'))})"
        )
    return kind


def setup_players(setup: Mapping[str, Any], path: str | Path) -> tuple[str, ...]:
    """The players the set-up of the journal at ``path`` seats, in seat order.

    Raises:
        JournalCorruptError: they are not a list of names (the message names the journal
            and the field; never read as something else).
    """
    raw = setup.get("players")
    if not isinstance(raw, list) or not all(isinstance(p, str) for p in raw):
        raise damaged_setup(path, "players", f"expected names, got {short_repr(raw)}")
    for i, name in enumerate(raw):  # the table wrote none (its flags and config refuse it)
        if (why := name_problem(name)) is not None:
            raise damaged_setup(path, f"players[{i}]", why)
    return tuple(raw)


def setup_revision(setup: Mapping[str, Any], path: str | Path) -> int:
    """The rules revision the set-up of the journal at ``path`` records (see
    :attr:`CompanionJournal.rules_revision`).

    Raises:
        JournalCorruptError, JournalVersionError: as :attr:`CompanionJournal.rules_revision`.
    """
    kind = setup_kind(setup, path)
    newest = get_mode(kind).rules_revision
    raw = setup.get(REVISION_KEY, 1)
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise damaged_setup(
            path, REVISION_KEY, f"expected a whole number 1 or more, got {short_repr(raw)}"
        )
    if raw > newest:
        raise JournalVersionError(
            f"{path}: the game is played by rules revision {raw} of {kind.value}, "
            f"and this toptable knows revisions 1..{newest}: resume it with the newer toptable "
            "that began it"
        )
    return raw


class CompanionJournal(EventJournal[CompanionEvent]):
    """An open companion journal; :meth:`start` or :meth:`open`, then :meth:`close`."""

    NOUN = "companion journal"
    APPLICATION_ID = APPLICATION_ID
    FORMAT_VERSION = FORMAT_VERSION
    MIGRATIONS = MIGRATIONS
    MAKE_PARENT = True
    RESUME_HINT = "resume it"

    @classmethod
    def _other_kind(cls, kind: GameKind) -> str | None:
        """The dice game's journal (tournament or story), named as one."""
        if not kind.plays_dice:
            return None
        return (
            f"a Tournament of Power game's journal ({kind.value} mode), not a companion "
            "game's: it keeps no companion mode's actions"
        )

    @classmethod
    def start(
        cls,
        path: Any,
        kind: GameKind,
        players: Sequence[str],
        data: Mapping[str, Any] | None = None,
        seed: int | None = None,
        played_by: str | None = None,
    ) -> CompanionJournal:
        """A new journal for a ``kind`` game of ``players`` (``data``: the mode's overrides;
        ``seed``: the game's own randomness, recorded for its resume; ``played_by``: who
        plays it, :mod:`controller.storage.origin`), played by the mode's newest rules
        revision (recorded).

        Raises:
            JournalIOError: the file exists already or cannot be written.
        """
        setup = {
            "mode": kind.value,
            "players": list(players),
            "data": data,
            SEED_KEY: seed,
            REVISION_KEY: get_mode(kind).rules_revision,
            **({PLAYED_BY_KEY: played_by} if played_by is not None else {}),
        }
        return cls.create(path, setup)

    @property
    def kind(self) -> GameKind:
        """The mode the journal's game is played in.

        Raises:
            JournalCorruptError: the set-up names no companion mode.
        """
        return setup_kind(self.setup, self.path)

    @property
    def origin(self) -> Origin:
        """The seed the journal recorded (None: not recorded; a companion game has no data set)."""
        return Origin.from_setup(self.setup, self.path)

    @property
    def rules_revision(self) -> int:
        """The rules revision the game is played by (1 for a journal that records none: the
        revision before any was recorded).

        Raises:
            JournalCorruptError: the set-up names no companion mode, or a revision that is no
                whole number.
            JournalVersionError: a revision this toptable does not have (a newer one wrote it).
        """
        return setup_revision(self.setup, self.path)

    @property
    def players(self) -> tuple[str, ...]:
        """The players, in seat order.

        Raises:
            JournalCorruptError: the set-up's players are not a list of names (the message
                names the journal and the field; never read as something else).
        """
        return setup_players(self.setup, self.path)

    def encode(self, event: CompanionEvent) -> tuple[str, Mapping[str, Any]]:
        """An action as its JSON form; a refused one with its rule and reason."""
        if isinstance(event, ActionTaken):
            return ACTION, action_to_json(event.action)
        return REFUSED, {
            "action": action_to_json(event.action),
            "rule": event.rule,
            "reason": event.reason,
        }

    def decode(self, row: Row) -> CompanionEvent:
        """The mode's typed action a row holds.

        Raises:
            JournalCorruptError: an unknown mode or row kind, or an action that does not parse.
        """
        data = row.data(self.path)
        try:
            mode = get_mode(self.kind)
            if row.kind == ACTION:
                return ActionTaken(self._action(mode.actions, data, row.seq))
            if row.kind == REFUSED:
                action = self._action(mode.actions, data.get("action"), row.seq)
                return ActionRefused(action, str(data.get("rule")), str(data.get("reason")))
        except (DataError, UnknownNameError) as exc:
            raise JournalCorruptError(f"{self.path}: row {row.seq}: {exc}") from None
        raise JournalCorruptError(
            f"{self.path}: row {row.seq} has unknown kind {short_repr(row.kind)}"
        )

    def _action(self, catalog: Mapping[str, type[Any]], raw: Any, seq: int) -> CompanionAction:
        action: CompanionAction = parse_action(
            raw, catalog, self.players, str(self.path), f"row {seq}"
        )
        return action

    def undo(self) -> CompanionAction | None:
        """Cancel the last effective action; return it (None if there is none).

        Raises:
            JournalCorruptError: the row does not decode (nothing is cancelled).
            JournalIOError: the undo marker cannot be written.
        """
        row = self._last_effective(lambda r: r.kind == ACTION)
        if row is None:
            return None
        undone = self.decode(row)
        self._cancel(row)
        return undone.action

    def actions(self) -> list[CompanionAction]:
        """The effective actions in order (undone and refused ones left out)."""
        return [e.action for e in self.events() if isinstance(e, ActionTaken)]
