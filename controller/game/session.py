"""A game bound to its journal: events are journalled first, then applied.

:meth:`TableGame.submit` checks the event on a copy of the state (pure: nothing
acts on it), appends it to the journal (one committed transaction), and only
then adopts the new state. :meth:`TableGame.resume` replays a journal to the
exact state it recorded; :meth:`TableGame.undo` cancels the last player action.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path
from types import TracebackType

from controller.core.checked import name_problem
from controller.core.errors import DataError, IllegalActionError, InvalidThrowError
from controller.core.kinds import GameKind
from controller.core.pathkind import exists, is_dir
from controller.core.quoting import short_repr
from controller.game import engine
from controller.game.corrections import fold_corrections, open_to_correction
from controller.game.events import (
    CLOCK_KINDS,
    DiceThrown,
    DieCorrected,
    DieRolled,
    GameEvent,
    Shuffled,
    ThrowCorrected,
)
from controller.game.journal import Journal, JournalCorruptError, JournalError, JournalIOError
from controller.game.simulate import GameOutcome, play_game
from controller.game.state import RULES_REVISION, GameConfig, GameState, Length, Phase
from controller.gamedata import data_dir as resolve_data_dir
from controller.gamedata.bundle import GameData, load_game_data
from controller.gamedata.sources import PATH, data_files, played, recorded_board
from controller.rules.variants import DEFAULT_VARIANTS, UnknownVariantError, Variants
from controller.storage.journal import journal_exists
from controller.storage.origin import (
    ContradictionError,
    Origin,
    damaged_setup,
    data_fingerprint,
    listed,
    refuse_changed_files,
    refuse_contradiction,
    refuse_other_data,
    refuse_others_game,
)

log = logging.getLogger(__name__)


def journalled_config(path: str | Path, setup: dict[str, object]) -> GameConfig:
    """The dice game the set-up of the journal at ``path`` records, its fields checked.

    Raises:
        JournalCorruptError: a field of the wrong type or value (the message names the
            journal and the field): a damaged set-up, never read as a default.
    """
    raw = setup.get("config")
    if not isinstance(raw, dict):
        raise damaged_setup(path, "config", f"expected a JSON object, got {short_repr(raw)}")
    players = raw.get("players")
    if not isinstance(players, list) or not players or not all(isinstance(p, str) for p in players):
        raise damaged_setup(
            path, "config.players", f"expected a list of names, got {short_repr(players)}"
        )
    for i, name in enumerate(players):  # the table wrote none (its flags and config refuse it)
        if (why := name_problem(name)) is not None:
            raise damaged_setup(path, f"config.players[{i}]", why)
    lengths = [n.value for n in Length]
    if raw.get("length", Length.ROUNDS10.value) not in lengths:
        raise damaged_setup(
            path,
            "config.length",
            f"expected one of {', '.join(lengths)}, got {short_repr(raw['length'])}",
        )
    variants = raw.get("variants", [])
    if not isinstance(variants, list) or not all(isinstance(v, str) for v in variants):
        raise damaged_setup(
            path, "config.variants", f"expected a list of names, got {short_repr(variants)}"
        )
    colours = raw.get("colours", [])
    if not isinstance(colours, list) or not all(isinstance(c, str) for c in colours):
        raise damaged_setup(
            path, "config.colours", f"expected a list of names, got {short_repr(colours)}"
        )
    revision = raw.get("rules_revision", 1)
    if type(revision) is not int or not 1 <= revision <= RULES_REVISION:
        raise damaged_setup(
            path,
            "config.rules_revision",
            f"expected a rules revision 1..{RULES_REVISION} (a newer toptable's journal is "
            f"played by that toptable), got {short_repr(revision)}",
        )
    if not isinstance(raw.get("game_id", ""), str):
        raise damaged_setup(
            path, "config.game_id", f"expected text, got {short_repr(raw['game_id'])}"
        )
    kept = setup.get("data_dir")
    if kept is not None and not isinstance(kept, str):
        raise damaged_setup(path, "data_dir", f"expected a folder's path, got {short_repr(kept)}")
    try:
        return GameConfig.from_dict(raw)
    except UnknownVariantError as exc:
        raise damaged_setup(path, "config.variants", str(exc)) from None


def _earlier(config: GameConfig) -> str:
    """What to do with a game begun under earlier rules that this release replays
    otherwise (the rules changed before revisions were recorded, or without one)."""
    if config.rules_revision >= RULES_REVISION:
        return ""
    return (
        f" (the game began under an earlier toptable's rules, revision {config.rules_revision};"
        " this one plays them otherwise: finish it with that release, or move the journal "
        "aside to start a new game)"
    )


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
        seed: int | None = None,
        board: Path | None = None,
        played_by: str | None = None,
    ) -> TableGame:
        """Create the journal and a new game; the journal records ``seed`` (the game's own
        randomness: bots, world, shuffles), the data set's folder, its fingerprint and its
        files (``board``: the board layout played in place of the folder's ``board.toml``),
        and who plays it (``played_by``: :data:`TABLE_PLAYER`, the demo...).

        Raises:
            JournalIOError: a journal exists at ``path`` already.
            IllegalActionError: a bad set-up (number of players...).
            DataError: no data directory there.
        """
        config.check()
        directory = resolve_data_dir(data_dir).resolve()
        files = data_files(directory, board, story=config.kind is GameKind.STORY)
        origin = Origin(seed, data_fingerprint(directory), files, played_by)
        setup = {
            "mode": config.kind.value,
            "config": config.to_dict(),
            "data_dir": str(directory),
            **origin.to_setup(),
        }
        journal = Journal.create(path, setup)
        config = replace(config, game_id=journal.game_id)
        journal.setup["config"] = config.to_dict()
        return cls(journal, config, data, engine.new_game(config, data))

    @classmethod
    def resume(
        cls,
        path: str | Path,
        data: GameData | None = None,
        game_id: str | None = None,
        writable: bool = True,
        *,
        data_dir: str | Path | None = None,
        board: Path | None = None,
        given_by: str = "--data",
    ) -> TableGame:
        """Open a journal and replay it to the state it recorded (not ``writable``: a look,
        nothing written to the file: an older journal is not upgraded, nothing appended).

        The game is replayed with ``data``, else with the data in ``data_dir`` (named by
        ``given_by`` in a refusal), else in the folder the journal recorded; ``board``: the
        board layout played in place of that folder's ``board.toml`` (None: the one the
        journal recorded). Unless only ``data`` is given, the data's files are compared
        with the journal's record before anything is replayed.

        Raises:
            JournalError (and subclasses): missing, newer, corrupted or another game's journal.
            ContradictionError: the data is not the data the game was played with.
            DataError: the data the game was played with cannot be loaded.
        """
        journal = Journal.open(path, game_id, writable)
        try:
            kind = journal_kind(journal)
            if kind is None or not kind.plays_dice:
                raise JournalCorruptError(f"{path}: not a tournament- or story-mode journal")
            config = journalled_config(path, journal.setup)
            if config.kind is not kind:
                raise JournalCorruptError(f"{path}: the set-up's mode and config disagree")
            config = replace(config, game_id=journal.game_id)
            if data is None or data_dir is not None:
                data = _checked_data(Path(path), journal.setup, data, data_dir, board, given_by)
            try:
                state = engine.replay(config, data, fold_corrections(journal.events()))
            except (IllegalActionError, InvalidThrowError) as exc:
                raise JournalCorruptError(
                    f"{path}: the journal does not replay: {exc}{_earlier(config)}"
                ) from None
        except BaseException:
            journal.close()
            raise
        return cls(journal, config, data, state)

    @property
    def origin(self) -> Origin:
        """The seed and data-set fingerprint the journal recorded (None: not recorded)."""
        return Origin.from_setup(self.journal.setup)

    @property
    def data_dir(self) -> Path | None:
        """The data directory the journal recorded (None: not recorded)."""
        kept = self.journal.setup.get("data_dir")
        return Path(kept) if isinstance(kept, str) and kept else None

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
        seq = self.journal.append(event)
        self.state = new
        if new.phase is Phase.OVER and event.kind not in CLOCK_KINDS:
            self._record_over(seq)
        return new

    def _record_over(self, seq: int) -> None:
        """Record in the journal that row ``seq`` ended the game; a write that fails is
        said (the game is over all the same; a start after its data changed refuses it)."""
        try:
            self.journal.mark_over(seq)
        except JournalIOError as exc:
            log.warning("%s", exc)

    def undo(self) -> GameEvent:
        """Undo the last player action (journalled as an undo marker), with the decks
        shuffled after it (the table's own input: shuffled again as the game comes back
        there); return it.

        Raises:
            JournalError: nothing to undo, or the last event is a die's result.
        """
        event = self.journal.undo(with_inputs=(Shuffled.kind,))
        self.state = engine.replay(self.config, self.data, self.events())
        return event

    def events(self) -> list[GameEvent]:
        """The effective events so far (undone ones left out, corrections folded in)."""
        return fold_corrections(self.journal.events())

    def correctable(self) -> DiceThrown | DieRolled | None:
        """The throw or die roll a correction would replace now (None: a player action
        came after the last one)."""
        return open_to_correction(self.journal.events())

    def close(self) -> None:
        """Close the journal (idempotent)."""
        self.journal.close()

    def __enter__(self) -> TableGame:
        return self

    def __exit__(
        self, t: type[BaseException] | None, v: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


GAME_PLAY = "game play"
"""Who plays a journal ``toptable game play`` started (bots)."""
DEFAULT_PLAY = (4, Length.ROUNDS10, 0)
"""``toptable game play``'s players, length and seed for a new journal."""


def run_journaled(
    path: str | Path,
    players: int | None = None,
    length: Length | None = None,
    seed: int | None = None,
    data_dir: str | Path | None = None,
    kind: GameKind | None = None,
    variants: Variants | None = None,
) -> GameOutcome:
    """Play (or resume, when ``path`` holds a journal) a greedy-bot game of ``kind`` (the
    Tournament or Story mode) with ``variants`` (docs/rules.md) journalled to ``path``.

    A new game takes what is not given from :data:`DEFAULT_PLAY` (a Tournament game);
    a resumed one takes everything from its journal, and a given value that differs
    from the journal's is refused.

    Raises:
        JournalError: the journal at ``path`` cannot be resumed.
        ContradictionError: a given value contradicts the journal.
        DataError: the data directory is not there, or a file of it does not load.
    """
    path = Path(path)
    if not journal_exists(path):
        d_players, d_length, d_seed = DEFAULT_PLAY
        config = GameConfig(
            tuple(f"P{i + 1}" for i in range(players or d_players)),
            length or d_length,
            kind=kind or GameKind.TOURNAMENT,
            variants=variants or DEFAULT_VARIANTS,
        )
        seed = d_seed if seed is None else seed
        data = load_game_data(data_dir)
        game = TableGame.start(path, config, data, data_dir, seed, played_by=GAME_PLAY)
    else:
        game = _resume_checked(path, players, length, seed, data_dir, kind, variants)
        seed = game.origin.seed if game.origin.seed is not None else seed
        if seed is None:
            game.close()
            raise JournalError(f"{path}: the journal records no seed (an older one): give --seed")
    with game:
        known = game.events()
        try:
            return play_game(game.config, game.data, seed, None, game.submit, known)
        except RuntimeError as exc:  # the journal is not what this seed plays
            raise JournalCorruptError(
                f"{path}: the bots do not replay it: {exc}; a game played at the table or by "
                f"`toptable demo` goes on there (`toptable demo --journal {path} --resume`, or "
                "the table's service)"
            ) from None


def _checked_data(
    path: Path,
    setup: dict[str, object],
    data: GameData | None,
    data_dir: str | Path | None,
    board: Path | None,
    given_by: str,
) -> GameData:
    """``data`` (None: loaded), from ``data_dir`` or else the journal's folder, once its files
    are found to be those the journal at ``path`` recorded (its older fingerprint, else).

    Raises:
        ContradictionError: they are not.
        DataError: the journal's folder is not there any more, or the data does not load.
    """
    kept = setup.get("data_dir") or None
    if data_dir is None and kept is not None and not is_dir(Path(str(kept))):
        raise DataError.single(str(path), "", "data_dir", (
            f"the game was played with the data in {kept}, which is not there any more: "
            "put it back, or name where it is now with --data (game play, check, export, "
            "undo), checked against the journal's"
        ))  # fmt: skip
    origin = Origin.from_setup(setup, path)
    if data_dir is None and kept is None:  # a journal older than the record: as it was
        return data or load_game_data()
    directory = resolve_data_dir(data_dir if data_dir is not None else str(kept))
    flag = given_by if data_dir is not None else "its data directory"
    if origin.data_files is not None:
        board = board or recorded_board(origin.data_files, directory.resolve())
    try:
        story = setup.get("mode") == GameKind.STORY.value
        refuse_other_files(path, flag, directory, origin, board, story)
    except ContradictionError:
        if not _recorded_file_gone(origin, directory):
            load_game_data(directory, board)  # a file that does not read: its own message
        raise
    return data or load_game_data(directory, board)


def refuse_other_files(
    path: Path, flag: str, directory: Path, origin: Origin, board: Path | None, story: bool
) -> None:
    """Refuse the data in ``directory`` (named by ``flag``; ``board``: the board layout in
    place of its ``board.toml``) when it is not the data the journal at ``path`` recorded
    in ``origin`` (file by file, or by its older fingerprint) for a Story game or not.

    Raises:
        ContradictionError: it is not (the message names each file, or the data set).
    """
    if origin.data_files is None:
        refuse_other_data(path, flag, directory, origin.data_fingerprint)
        return
    given = data_files(directory, board, story)
    refuse_changed_files(path, flag, directory, played(origin.data_files, story), given)


def _recorded_file_gone(origin: Origin, directory: Path) -> bool:
    """Whether a file the journal recorded is not where it recorded it (moved or removed:
    the record's refusal says what to name), rather than there but changed or unreadable."""
    for name, entry in (origin.data_files or {}).items():
        if not exists(directory / entry.get(PATH, name)):  # an absolute path stays whole
            return True
    return False


def _resume_checked(
    path: Path,
    players: int | None,
    length: Length | None,
    seed: int | None,
    data_dir: str | Path | None,
    kind: GameKind | None,
    variants: Variants | None = None,
) -> TableGame:
    """The game in ``path``, with each given value checked against the journal's (the data
    before anything is replayed)."""
    game = TableGame.resume(path, data_dir=data_dir)
    try:
        kept = game.config
        origin = game.origin
        refuse_others_game(path, origin, GAME_PLAY)
        refuse_contradiction(path, "--seed", seed, origin.seed)
        refuse_contradiction(path, "--players", players, len(kept.players))
        refuse_contradiction(path, "--length", length and length.value, kept.length.value)
        refuse_contradiction(path, "the mode (--story)", kind and kind.value, kept.kind.value)
        if variants is not None:
            given, held = listed(variants.enabled()), listed(kept.variants.enabled())
            refuse_contradiction(path, "--variant", given, held)
    except BaseException:
        game.close()
        raise
    return game


__all__ = ["JournalError", "TableGame", "journal_kind", "run_journaled"]
