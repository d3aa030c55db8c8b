"""A game bound to its journal: events are journalled first, then applied.

:meth:`TableGame.submit` checks the event on a copy of the state (pure: nothing
acts on it), appends it to the journal (one committed transaction), and only
then adopts the new state. :meth:`TableGame.resume` replays a journal to the
exact state it recorded; :meth:`TableGame.undo` cancels the last player action.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from types import TracebackType

from controller.core.errors import IllegalActionError
from controller.core.kinds import GameKind
from controller.game import engine
from controller.game.events import DieCorrected, GameEvent, ThrowCorrected, fold_corrections
from controller.game.journal import Journal, JournalCorruptError, JournalError
from controller.game.simulate import GameOutcome, play_game
from controller.game.state import GameConfig, GameState, Length
from controller.gamedata.bundle import GameData, load_game_data


def journal_kind(journal: Journal) -> GameKind | None:
    """The kind of game a journal's set-up says it holds (None: none toptable knows)."""
    try:
        return GameKind(str(journal.setup.get("mode")))
    except ValueError:
        return None


class TableGame:
    """A Tournament-of-Power (or Story-mode) game and its journal."""

    def __init__(
        self, journal: Journal, config: GameConfig, data: GameData, state: GameState
    ) -> None:
        self.journal = journal
        self.config = config
        self.data = data
        self.state = state

    @classmethod
    def start(
        cls,
        path: str | Path,
        config: GameConfig,
        data: GameData,
        data_dir: str | Path | None = None,
    ) -> TableGame:
        """Create the journal and a new game.

        Raises:
            JournalIOError: a journal exists at ``path`` already.
            IllegalActionError: a bad set-up (number of players...).
        """
        config.check()
        setup = {
            "mode": config.kind.value,
            "config": config.to_dict(),
            "data_dir": str(data_dir or ""),
        }
        journal = Journal.create(path, setup)
        config = replace(config, game_id=journal.game_id)
        journal.setup["config"] = config.to_dict()
        return cls(journal, config, data, engine.new_game(config, data))

    @classmethod
    def resume(
        cls, path: str | Path, data: GameData | None = None, game_id: str | None = None
    ) -> TableGame:
        """Open a journal and replay it to the state it recorded.

        Raises:
            JournalError (and subclasses): missing, newer, corrupted or another game's journal.
            DataError: the data the game was played with cannot be loaded.
        """
        journal = Journal.open(path, game_id)
        try:
            kind = journal_kind(journal)
            if kind is None or not kind.plays_dice:
                raise JournalCorruptError(f"{path}: not a tournament- or story-mode journal")
            config = GameConfig.from_dict(dict(journal.setup["config"]))
            if config.kind is not kind:
                raise JournalCorruptError(f"{path}: the set-up's mode and config disagree")
            config = replace(config, game_id=journal.game_id)
            if data is None:
                data = load_game_data(journal.setup.get("data_dir") or None)
            try:
                state = engine.replay(config, data, fold_corrections(journal.events()))
            except IllegalActionError as exc:
                raise JournalCorruptError(f"{path}: the journal does not replay: {exc}") from None
        except BaseException:
            journal.close()
            raise
        return cls(journal, config, data, state)

    def submit(self, event: GameEvent) -> GameState:
        """Check ``event``, journal it, then apply it; return the new state.

        Raises:
            IllegalActionError, InvalidThrowError: the event is not allowed (nothing journalled).
            JournalIOError: the journal could not be written (the state is unchanged).
        """
        if isinstance(event, ThrowCorrected | DieCorrected):  # may correct a finished attempt
            new = engine.replay(
                self.config, self.data, fold_corrections([*self.journal.events(), event])
            )
        else:
            new = engine.apply(self.state, event)
        self.journal.append(event)
        self.state = new
        return new

    def undo(self) -> GameEvent:
        """Undo the last player action (journalled as an undo marker); return it.

        Raises:
            JournalError: nothing to undo, or the last event is a die's result.
        """
        event = self.journal.undo()
        self.state = engine.replay(self.config, self.data, self.events())
        return event

    def events(self) -> list[GameEvent]:
        """The effective events so far (undone ones left out, corrections folded in)."""
        return fold_corrections(self.journal.events())

    def close(self) -> None:
        """Close the journal (idempotent)."""
        self.journal.close()

    def __enter__(self) -> TableGame:
        return self

    def __exit__(
        self, t: type[BaseException] | None, v: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def run_journaled(
    path: str | Path,
    players: int,
    length: Length,
    seed: int,
    data_dir: str | Path | None = None,
    kind: GameKind = GameKind.TOURNAMENT,
) -> GameOutcome:
    """Play (or resume, when ``path`` holds a journal) a greedy-bot game of ``kind`` (the
    Tournament or Story mode) journalled to ``path``.

    Raises:
        JournalError: the journal at ``path`` cannot be resumed.
    """
    data = load_game_data(data_dir)
    config = GameConfig(tuple(f"P{i + 1}" for i in range(players)), length, kind=kind)
    if Path(path).exists():
        game = TableGame.resume(path, data)
    else:
        game = TableGame.start(path, config, data, data_dir)
    with game:
        known = game.events()
        return play_game(game.config, data, seed, None, game.submit, known)


__all__ = ["JournalError", "TableGame", "journal_kind", "run_journaled"]
