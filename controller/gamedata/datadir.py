"""A whole data directory: check every file in it (:func:`check_data_dir`), and start an
owner's own set as a self-contained copy of one (:func:`init_data_dir`).

A copied ``warriors.toml`` keeps working: a ``base`` file that lay outside the
copied folder (the demo set's ``../rulebook/warriors.toml``) is copied beside it
and the ``base`` line rewritten to name the copy, so the new directory needs
nothing outside itself.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from controller.core.errors import DataError, DataProblem
from controller.core.tomlfile import read_toml
from controller.gamedata import DEMO_DIR, data_dir
from controller.gamedata.warriors import load_warriors
from controller.rules.warriors import Roster

DATA_FILES = ("warriors.toml", "board.toml", "cards.toml", "story.toml")
NEEDED_FOR = {"board.toml": "a game", "cards.toml": "a game", "story.toml": "Story mode"}
# In a source folder but not game data: the demo's simulated-table config.
NOT_COPIED = frozenset({"config.toml", "__pycache__"})


@dataclass(frozen=True)
class DataCheck:
    """What checking a data directory found: one line per file, and every problem."""

    directory: Path
    lines: tuple[str, ...]  # "ok  name: summary" or "--  name: absent (...)"
    problems: tuple[DataProblem, ...]

    @property
    def ok(self) -> bool:
        """No problem in any file."""
        return not self.problems


_Check = Callable[[Path, "Roster | None"], tuple[str, "Roster | None"]]


def check_data_dir(directory: str | Path | None = None) -> DataCheck:
    """Validate every data file of ``directory`` (default: as :func:`data_dir` chooses).

    ``warriors.toml`` is required; the others are reported absent when missing.

    Raises:
        DataError: the directory does not exist.
    """
    d = data_dir(directory)
    lines: list[str] = []
    problems: list[DataProblem] = []
    roster: Roster | None = None
    for name, check in _checks():
        path = d / name
        if name != "warriors.toml" and not path.exists():
            lines.append(f"--  {name}: absent (needed for {NEEDED_FOR[name]})")
            continue
        if not path.is_file():
            problems.append(
                DataProblem(str(path), "", "", f"missing: a data directory needs {name}")
            )
            continue
        try:
            line, found = check(path, roster)
        except DataError as exc:
            problems.extend(exc.problems)
            continue
        if found is not None:
            roster = found
        lines.append(f"ok  {name}: {line}")
    return DataCheck(d, tuple(lines), tuple(problems))


def _checks() -> list[tuple[str, _Check]]:
    """Each data file's validator: a summary line, and the roster once the warriors load."""
    from controller.gamedata.board import load_board
    from controller.gamedata.cards import load_cards
    from controller.gamedata.story import load_story

    def warriors(path: Path, _: Roster | None) -> tuple[str, Roster | None]:
        wf = load_warriors(path)
        incomplete = [w.name for w in wf.roster.values() if w.unknown]
        line = f"{len(wf.roster)} warriors" + (" (INVENTED demo values)" if wf.invented else "")
        if incomplete:
            line += f"; {len(incomplete)} with fields still unknown (cannot fight yet)"
        return line, wf.roster

    def board(path: Path, _: Roster | None) -> tuple[str, Roster | None]:
        layout = load_board(path)
        return f"{len(layout.spaces)} spaces" + (
            " (EXAMPLE layout)" if layout.example else ""
        ), None

    def cards(path: Path, _: Roster | None) -> tuple[str, Roster | None]:
        deck = load_cards(path)
        return f"{len(deck.cards)} cards" + (" (INVENTED)" if deck.invented else ""), None

    def story(path: Path, roster: Roster | None) -> tuple[str, Roster | None]:
        squares = load_story(path, roster)
        return f"{len(squares.squares)} squares" + (" (INVENTED)" if squares.invented else ""), None

    return [
        ("warriors.toml", warriors),
        ("board.toml", board),
        ("cards.toml", cards),
        ("story.toml", story),
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
    if not (src / "warriors.toml").is_file():
        raise DataError.single(str(src), "", "", "not a data directory: it has no warriors.toml")
    if dest.resolve().is_relative_to(src.resolve()):
        raise DataError.single(str(dest), "", "", f"is inside {src}; name a directory outside it")
    dest.mkdir(parents=True, exist_ok=True)
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
    rebased = _make_bases_local(src, dest, copied)
    return DataInit(src, tuple(copied), tuple(rebased), check_data_dir(dest))


_BASE_LINE = re.compile(r"""^(?P<indent>[ \t]*)base[ \t]*=[ \t]*(?P<q>["']).*?(?P=q)""", re.M)


def _make_bases_local(src: Path, dest: Path, copied: list[Path]) -> list[tuple[Path, str]]:
    """Follow the copied warriors file's ``base`` chain; copy each base outside ``src`` in."""
    src_root = src.resolve()
    rebased: list[tuple[Path, str]] = []
    from_file, to_file = src / "warriors.toml", dest / "warriors.toml"
    seen: set[Path] = set()
    while from_file.resolve() not in seen:
        seen.add(from_file.resolve())
        base = read_toml(from_file).get("base")
        if not isinstance(base, str):
            break  # no base (a malformed one is reported by the check)
        base_from = from_file.parent / base
        if base_from.resolve().is_relative_to(src_root):
            # Copied along with the folder: its relative path still holds.
            from_file = base_from
            to_file = dest / base_from.resolve().relative_to(src_root)
            continue
        if not base_from.is_file():
            break  # the check of the copy names the missing base
        base_to = _free_name(dest, f"{base_from.parent.name}-{base_from.name}")
        shutil.copy2(base_from, base_to)
        copied.append(base_to.relative_to(dest))
        new_base = Path(os.path.relpath(base_to, to_file.parent)).as_posix()
        _rewrite_base(to_file, base, new_base)
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


def _rewrite_base(path: Path, old: str, new: str) -> None:
    """Point ``path``'s ``base`` at ``new``; its comments naming ``old`` follow."""
    text = path.read_text(encoding="utf-8").replace(old, new)
    text, n = _BASE_LINE.subn(lambda m: f'{m["indent"]}base = "{new}"', text, count=1)
    if n != 1:
        raise DataError.single(
            str(path), "", "base", 'cannot rewrite: expected a line base = "..."'
        )
    path.write_text(text, encoding="utf-8")
