"""The printed material a game uses, loaded at once: :class:`GameData` and
:func:`load_game_data` (board, warriors, cards and the Story squares of one data directory)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from controller.gamedata.board import BoardLayout, Colour, load_board
from controller.gamedata.cards import CardSet
from controller.gamedata.datadir import check_data_dir
from controller.gamedata.story import Story
from controller.rules.dice import TOURNAMENT_DIE, Die
from controller.rules.warriors import Fighter, Form, Roster, Warrior


@dataclass
class GameData:
    """The printed material a game uses: board, warriors, cards. Shared, never copied."""

    board: BoardLayout
    roster: Roster
    cards: CardSet
    story: Story | None = None  # the Story-mode squares (None: the directory has no story.toml)
    die: Die = TOURNAMENT_DIE  # the dice's faces (warriors.toml's [die]; default: one of each)
    _fighters: dict[tuple[str, str | None], Fighter] = field(default_factory=dict, repr=False)
    _reach: dict[tuple[int, int], dict[int, int]] = field(default_factory=dict, repr=False)
    _warriors: dict[str, Warrior] = field(default_factory=dict, repr=False)
    _within: dict[tuple[int, int], frozenset[int]] = field(default_factory=dict, repr=False)
    story_only: frozenset[str] = field(init=False, repr=False)  # Story-mode cards (Beerus)
    colours: dict[int, Colour] = field(default_factory=dict, repr=False)  # space -> colour
    near: dict[int, frozenset[int]] = field(default_factory=dict, repr=False)  # neighbours

    def __post_init__(self) -> None:
        self.colours = {sid: sp.colour for sid, sp in self.board.spaces.items()}
        self.near = {sid: sp.neighbours for sid, sp in self.board.spaces.items()}
        self.story_only = frozenset(name for name, w in self.roster.items() if w.story_only)

    def warrior(self, name: str) -> Warrior:
        """The warrior called ``name`` (UnknownNameError if none)."""
        hit = self._warriors.get(name)
        if hit is None:
            hit = self._warriors[name] = self.roster[name]
        return hit

    def fighter(self, name: str, form: str | None = None) -> Fighter:
        """``name`` in form ``form`` (None: the base form), cached."""
        key = (name, form)
        hit = self._fighters.get(key)
        if hit is None:
            w = self.roster[name]
            f: Form | None = w.form_named(form) if form is not None else None
            hit = self._fighters[key] = w.fighter(f)
        return hit

    def distances(self, start: int, steps: int) -> dict[int, int]:
        """Board distances from ``start`` up to ``steps`` (cached)."""
        key = (start, steps)
        hit = self._reach.get(key)
        if hit is None:
            hit = self._reach[key] = self.board.distances(start, steps)
        return hit

    def within(self, start: int, steps: int) -> frozenset[int]:
        """The spaces 1 to ``steps`` steps from ``start`` (cached: a move asks it for every
        warrior it could move)."""
        key = (start, steps)
        hit = self._within.get(key)
        if hit is None:
            dist = self.distances(start, steps)
            hit = self._within[key] = frozenset(sp for sp, d in dist.items() if d >= 1)
        return hit


def load_game_data(directory: str | Path | None = None, board: Path | None = None) -> GameData:
    """Board, warriors, cards and Story squares from a data directory (default: the
    bundled demo set), read and checked as ``toptable data check`` does
    (:func:`~controller.gamedata.datadir.check_data_dir`); ``board``: a board layout
    file played in place of the directory's ``board.toml`` (a table's ``[board] layout``).

    Raises:
        DataError: every problem: a missing or malformed file, no warriors, a warrior
            with fields still unknown.
    """
    report = check_data_dir(directory)
    warriors, layout, cards = report.game_files()
    if board is not None and board.resolve() != (report.directory / "board.toml").resolve():
        layout = load_board(board)
    return GameData(layout, warriors.roster, cards, report.story, die=warriors.die)
