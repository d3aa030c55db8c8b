"""A whole data directory: read and check every file in it, the one way every command does
(:func:`check_data_dir`), and start an owner's own set as a self-contained copy of one
(:func:`init_data_dir`).

:func:`check_data_dir` is the validation itself: ``toptable data check`` prints
what it found, and :func:`~controller.gamedata.bundle.load_game_data` (``run``,
``demo``, ``simulate``...) raises its problems, so a set the check passes is a
set a game can be played with. Besides each file's own checks it asks what a
game needs of the set as a whole: warriors at all, and none with a field still
``"unknown"`` (a draft may pick any of them).

A copied ``warriors.toml`` keeps working: a ``base`` file that lay outside the
copied folder (the demo set's ``base = "../rulebook/warriors.toml"``) is copied beside it
and the ``base`` line rewritten to name the copy, so the new directory needs
nothing outside itself. The copy is made in a hidden folder beside the new one
and renamed into place at the end: a copy that fails leaves nothing behind.
"""

from __future__ import annotations

import errno
import os
import re
import shutil
import tempfile
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from controller.core.durable import sync_folder, sync_tree
from controller.core.errors import DataError, DataProblem
from controller.core.quoting import printable
from controller.core.tomlfile import read_toml
from controller.gamedata import DEMO_DIR, data_dir
from controller.gamedata.board import BoardLayout, load_board
from controller.gamedata.cards import CardSet, Timing, load_cards
from controller.gamedata.sources import BOARD, CARDS, STORY, WARRIORS
from controller.gamedata.story import Story, load_story
from controller.gamedata.warriors import WarriorFile, load_warriors
from controller.rules.scoring import NO_COMBO_OPTION, SUM_OPTION

NEEDED_FOR = {BOARD: "a game", CARDS: "a game", STORY: "Story mode"}
# In a source folder but not game data: the demo's simulated-table config.
NOT_COPIED = frozenset({"config.toml", "__pycache__"})
R = TypeVar("R")
UNKNOWN_FIELDS = (
    'still "unknown": a game may draft any warrior, so enter the card\'s values '
    "(controller/data/README.md) or leave the warrior out"
)


@dataclass(frozen=True)
class DataCheck:
    """What reading a data directory found: one line per file, every problem, and what
    was read (None where a file is absent or has problems)."""

    directory: Path
    lines: tuple[str, ...]  # "ok  name: summary", "!!  name: ..." or "--  name: absent (...)"
    problems: tuple[DataProblem, ...]
    warriors: WarriorFile | None = None
    board: BoardLayout | None = None
    cards: CardSet | None = None
    story: Story | None = None

    @property
    def ok(self) -> bool:
        """No problem in any file."""
        return not self.problems

    def for_a_game(self) -> tuple[DataProblem, ...]:
        """The problems, and one for each file a game needs that is absent."""
        absent = [
            DataProblem(str(self.directory / name), "", "", f"missing: a game needs {name}")
            for name, what in NEEDED_FOR.items()
            if what == "a game"
            and not (self.directory / name).exists()
            and broken_link(self.directory / name) is None  # said as a link already
        ]
        return (*self.problems, *absent)

    def game_files(self) -> tuple[WarriorFile, BoardLayout, CardSet]:
        """The warriors, board and cards a game is played with.

        Raises:
            DataError: every problem of :meth:`for_a_game`.
        """
        problems = self.for_a_game()
        if problems or self.warriors is None or self.board is None or self.cards is None:
            raise DataError(problems)
        return self.warriors, self.board, self.cards


def check_data_dir(directory: str | Path | None = None) -> DataCheck:
    """Read and validate every data file of ``directory`` (default: as :func:`data_dir`
    chooses), and what a game needs of the set as a whole.

    ``warriors.toml`` is required; the others are reported absent when missing.

    Raises:
        DataError: the directory does not exist.
    """
    d = data_dir(directory)
    reader = _Reader(d)
    warriors = reader.read(WARRIORS, load_warriors)
    if warriors is not None:
        reader.note(WARRIORS, _warriors_summary(warriors), _roster_problems(d / WARRIORS, warriors))
    board = reader.read(BOARD, load_board)
    if board is not None:
        reader.note(BOARD, f"{len(board.spaces)} spaces" + _marked(board.example, "EXAMPLE layout"))
    roster = warriors.roster if warriors is not None else None
    cards = reader.read(CARDS, load_cards)
    if cards is not None:
        clashes = _card_name_problems(d / CARDS, cards)
        reader.note(CARDS, f"{len(cards.cards)} cards" + _marked(cards.invented), clashes)
    story = reader.read(STORY, lambda path: load_story(path, roster))
    if story is not None:
        reader.note(STORY, f"{len(story.squares)} squares" + _marked(story.invented))
    return DataCheck(d, tuple(reader.lines), tuple(reader.problems), warriors, board, cards, story)


def broken_link(path: Path) -> str | None:
    """What is wrong with ``path`` when it is a symbolic link that leads to no file (it
    would read as absent); None otherwise."""
    if not path.is_symlink() or path.exists():
        return None
    try:
        path.stat()
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link that loops back on itself: point it at the file, or remove it"
    return (
        f"a symbolic link to {printable(os.readlink(path))}, which does not exist: point it "
        "at the file, or remove it"
    )


class _Reader:
    """Reads a data directory's files one by one, collecting lines and problems."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.lines: list[str] = []
        self.problems: list[DataProblem] = []

    def read(self, name: str, load: Callable[[Path], R]) -> R | None:
        """The file ``name`` loaded, or None when it is absent or has problems (noted)."""
        path = self.directory / name
        if (broken := broken_link(path)) is not None:
            self.problems.append(DataProblem(str(path), "", "", broken))
            return None
        if name != WARRIORS and not path.exists():
            self.lines.append(f"--  {name}: absent (needed for {NEEDED_FOR[name]})")
            return None
        if not path.is_file():
            why = "is not a file" if path.exists() else "missing"  # a folder of that name
            self.problems.append(
                DataProblem(str(path), "", "", f"{why}: a data directory needs {name}")
            )
            return None
        try:
            return load(path)
        except DataError as exc:
            self.problems.extend(exc.problems)
            return None

    def note(self, name: str, summary: str, problems: Sequence[DataProblem] = ()) -> None:
        """The line of a file that loaded, and the problems of the set found in it."""
        self.problems.extend(problems)
        self.lines.append(f"{'!!' if problems else 'ok'}  {name}: {summary}")


def _marked(flag: bool, what: str = "INVENTED") -> str:
    return f" ({what})" if flag else ""


def _warriors_summary(wf: WarriorFile) -> str:
    incomplete = sum(1 for w in wf.roster.values() if w.unknown)
    return (
        f"{len(wf.roster)} warriors"
        + _marked(wf.invented, "INVENTED demo values")
        + (f"; {incomplete} with fields still unknown" if incomplete else "")
    )


def _card_name_problems(path: Path, cards: CardSet) -> list[DataProblem]:
    """A card played at attack time is an option a player names: it may not be named as
    the symbol sum or as no combo (choosing the sum scored the card). A card named as a
    warrior's combo is left to the set: a real deck may print one so."""
    taken = {SUM_OPTION: "the symbol sum", NO_COMBO_OPTION: "no combo"}
    return [
        DataProblem(str(path), f"card {card.name!r}", "name",
                    f"{taken[key]} is named so too: a player naming it would score the other")
        for card in cards.cards.values()
        if card.timing is Timing.ATTACK and (key := card.name.strip().casefold()) in taken
    ]  # fmt: skip


def _roster_problems(path: Path, wf: WarriorFile) -> list[DataProblem]:
    """What a game needs of the warriors as a whole: some, and every one complete."""
    if not wf.roster:
        return [
            DataProblem(
                str(path),
                "",
                "warrior",
                "no warriors: a data set needs [[warrior]] tables (controller/data/README.md)",
            )
        ]
    return [
        DataProblem(str(path), f"warrior {w.name!r}", ", ".join(sorted(w.unknown)), UNKNOWN_FIELDS)
        for w in wf.roster.values()
        if w.unknown
    ]


@dataclass(frozen=True)
class DataInit:
    """What :func:`init_data_dir` did: the files written and the check of the copy."""

    source: Path
    copied: tuple[Path, ...]  # every file written, relative to the new directory
    rebased: tuple[tuple[Path, str], ...]  # (file, its new base) for each rewritten base line
    check: DataCheck


def init_data_dir(dest: str | Path, source: str | Path | None = None) -> DataInit:
    """Copy the data directory ``source`` (default: the bundled demo set) to a new ``dest``.

    The copy is self-contained: a warriors ``base`` file outside ``source`` is
    copied beside the file naming it and that file's ``base`` rewritten. Every
    file of the copy is then checked (:attr:`DataInit.check`); ``config.toml``
    (a table's config, not game data) is not copied.

    Raises:
        DataError: ``dest`` exists and is not an empty directory; ``source`` is
            not a data directory (no ``warriors.toml``); a base file is unreadable.
    """
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise DataError.single(
            str(dest), "", "", "already exists and is not empty; name a new directory"
        )
    src = data_dir(source if source is not None else DEMO_DIR)
    if not (src / WARRIORS).is_file():
        raise DataError.single(str(src), "", "", "not a data directory: it has no warriors.toml")
    if dest.resolve().is_relative_to(src.resolve()):
        raise DataError.single(str(dest), "", "", f"is inside {src}; name a directory outside it")
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{dest.name}-", dir=dest.parent))
        os.chmod(staging, 0o777 & ~_umask())  # as mkdir makes it: mkdtemp's 0700 kept the
        # service's own user out of a folder made by root (toptable data init /etc/...)
    except OSError as exc:
        raise DataError.single(
            str(dest), "", "", f"cannot be made: {exc.strerror or exc}"
        ) from None
    try:
        copied, rebased = _copy_set(src, staging)
        sync_tree(staging)  # a pulled plug leaves no empty file in the new folder
        staging.replace(dest)  # an empty dest is replaced whole
        sync_folder(dest.parent)
    except (shutil.Error, OSError) as exc:  # a link that loops, a file it may not read
        shutil.rmtree(staging, ignore_errors=True)
        raise DataError.single(str(src), "", "", f"cannot copy: {_first_copy_error(exc)}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return DataInit(src, tuple(copied), tuple(rebased), check_data_dir(dest))


def _first_copy_error(exc: shutil.Error | OSError) -> str:
    """One line for a failed copy: ``shutil.copytree`` gathers its errors in a list of
    (source, destination, reason) (``shutil.Error``, CPython 3.11's ``shutil.py``)."""
    if isinstance(exc, shutil.Error) and exc.args and isinstance(exc.args[0], list):
        source, _, reason = exc.args[0][0]
        return f"{source}: {' '.join(str(reason).split())}"
    return " ".join(str(exc).split())


def _copy_set(src: Path, dest: Path) -> tuple[list[Path], list[tuple[Path, str]]]:
    """Copy the data files of ``src`` into the empty ``dest`` and make its bases local.

    Raises:
        DataError: a link in ``src`` leads back to a folder holding it (its copy would
            never end).
    """
    for folder, subfolders, _ in os.walk(src):
        for name in subfolders:
            link = Path(folder) / name
            if link.is_symlink() and Path(folder).resolve().is_relative_to(link.resolve()):
                raise DataError.single(
                    str(link), "", "", f"a link back to {link.resolve()}, which holds it: "
                    "its copy would never end (remove the link)"
                )  # fmt: skip
    copied: list[Path] = []
    for entry in sorted(src.iterdir()):
        if entry.name in NOT_COPIED or entry.name.startswith("."):
            continue
        if entry.is_dir():
            shutil.copytree(entry, dest / entry.name, ignore=shutil.ignore_patterns(*NOT_COPIED))
            copied.extend(
                p.relative_to(dest) for p in sorted((dest / entry.name).rglob("*")) if p.is_file()
            )
        elif entry.is_file():
            shutil.copy2(entry, dest / entry.name)
            copied.append(Path(entry.name))
    return copied, _make_bases_local(src, dest, copied)


_BASE_LINE = re.compile(r"""^(?P<indent>[ \t]*)base[ \t]*=[ \t]*(?P<q>["']).*?(?P=q)""", re.M)


def _make_bases_local(src: Path, dest: Path, copied: list[Path]) -> list[tuple[Path, str]]:
    """Follow the copied warriors file's ``base`` chain; copy each base outside ``src`` in."""
    src_root = src.resolve()
    rebased: list[tuple[Path, str]] = []
    from_file, to_file = src / WARRIORS, dest / WARRIORS
    seen: set[Path] = set()
    while from_file.resolve() not in seen:
        seen.add(from_file.resolve())
        base = read_toml(from_file).get("base")
        if not isinstance(base, str) or not base or "\x00" in base:
            break  # no base (a malformed one is reported by the check)
        base_from = from_file.parent / base
        if not base_from.is_file():
            break  # the check of the copy names the missing base, and the field
        if base_from.resolve().is_relative_to(src_root):
            # Copied along with the folder: its relative path still holds.
            from_file = base_from
            to_file = dest / base_from.resolve().relative_to(src_root)
            continue
        base_to = _free_name(dest, f"{base_from.parent.name}-{base_from.name}")
        shutil.copy2(base_from, base_to)
        copied.append(base_to.relative_to(dest))
        new_base = Path(os.path.relpath(base_to, to_file.parent)).as_posix()
        _rewrite_base(to_file, base, new_base, from_file)
        rebased.append((to_file.relative_to(dest), new_base))
        from_file, to_file = base_from, base_to
    return rebased


def _free_name(directory: Path, name: str) -> Path:
    """``directory/name``, or ``stem-2.toml``... when that is taken."""
    path = directory / name
    n = 2
    while path.exists():
        path = directory / f"{Path(name).stem}-{n}{Path(name).suffix}"
        n += 1
    return path


def _rewrite_base(path: Path, old: str, new: str, shown: Path) -> None:
    """Point ``path``'s ``base`` at ``new``; its comments naming ``old`` follow. ``shown``:
    the file the copy ``path`` was made from (named in the message: the copy is dropped).

    Raises:
        DataError: no single line ``base = "..."`` to rewrite.
    """
    text = path.read_text(encoding="utf-8").replace(old, new)
    text, n = _BASE_LINE.subn(lambda m: f'{m["indent"]}base = "{new}"', text, count=1)
    try:  # read back as the check reads it: a triple-quoted base is no one quoted pair
        rewritten = n == 1 and tomllib.loads(text).get("base") == new
    except tomllib.TOMLDecodeError:
        rewritten = False
    if not rewritten:
        raise DataError.single(
            str(shown), "", "base", 'cannot rewrite: expected a line base = "..." (one quoted path)'
        )
    path.write_text(text, encoding="utf-8")


def _umask() -> int:
    """The process's umask (read by setting it: there is no other way; set back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask
