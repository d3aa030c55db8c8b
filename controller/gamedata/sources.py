"""What a game's data is, file by file: each data file a game loads, by a hash of its
content as loaded (:func:`data_files`).

A journal records it for a new game, and a resume compares it with the files it
would load now before anything is replayed
(:func:`controller.storage.origin.refuse_changed_files`). The files are those
:func:`~controller.gamedata.bundle.load_game_data` reads: ``warriors.toml`` and each
``base`` it completes, the board (the folder's ``board.toml``, or the board layout a
table's config names in its place), ``cards.toml``, and ``story.toml`` when there is
one. A file of fixed name is named by it (``cards.toml``); the others by their role
(``board layout``, ``base of warriors.toml``), with their path beside it: relative to
the data folder when inside it (``board.toml``), else whole (``/etc/toptable/board.toml``),
so the same board played from another place is the same board. The hash is of the
content as parsed, in a canonical form: comments, spacing and the order of keys do not
count, nor a warriors file's ``base`` line (the base is an entry of its own, wherever it
lies). Other files in the folder (a ``notes.json``, the demo's scenarios) are no part of
it. A file that does not parse is hashed by its bytes (it differs); a missing one is
left out (it went missing).
"""

from __future__ import annotations

import datetime
import hashlib
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from controller.core.errors import DataError
from controller.core.jsonfile import read_json
from controller.core.pathkind import is_file
from controller.core.tomlfile import read_toml

DataFiles = dict[str, dict[str, str]]
"""Name -> ``{"sha": hash}``, with ``"path"`` for a file named by its role (relative to
the data folder when inside it)."""
HASH = "sha"
PATH = "path"
BOARD_LAYOUT = "board layout"
BASE_OF = "base of "
WARRIORS, BOARD, CARDS = "warriors.toml", "board.toml", "cards.toml"
STORY = "story.toml"
"""A data folder's files by name: the one place they are named."""
OTHERS = (CARDS, STORY)


def data_files(directory: Path, board: Path | None = None, story: bool = True) -> DataFiles:
    """The data files a game played with the data in ``directory`` loads, each by name
    with the hash of its content as loaded (``board``: the board layout in place of the
    folder's ``board.toml``; None: that file; ``story``: whether the game plays the
    Story squares, else ``story.toml`` is no part of it).

    Raises nothing: a file that cannot be read is hashed as such, a missing one left out.
    """
    directory = directory.resolve()
    files: DataFiles = {}
    name, current, seen = WARRIORS, directory / WARRIORS, set[Path]()
    while is_file(current) and current.resolve() not in seen:
        seen.add(current.resolve())
        parsed = _parsed(current)
        base = parsed.pop("base", None) if isinstance(parsed, dict) else None
        files[name] = _entry(current, parsed, directory, name != WARRIORS)
        if not isinstance(base, str) or not base.strip() or "\x00" in base:
            break
        name, current = BASE_OF + name, current.parent / base
    board = directory / BOARD if board is None else board
    if is_file(board):
        files[BOARD_LAYOUT] = _entry(board, _parsed(board), directory, True)
    for other in OTHERS:
        if (story or other != STORY) and is_file(directory / other):
            files[other] = _entry(directory / other, _parsed(directory / other), directory)
    return files


def played(files: Mapping[str, Mapping[str, str]], story: bool) -> DataFiles:
    """A journal's record of ``files`` as :func:`data_files` makes it for a game that
    plays the Story squares or not (``story.toml`` left out of a Tournament game's)."""
    return {n: dict(e) for n, e in files.items() if story or n != STORY}


def recorded_board(files: Mapping[str, Mapping[str, str]], directory: Path) -> Path | None:
    """The board layout ``files`` (a journal's record) names, found from ``directory``
    (None: none recorded; ``directory``'s ``board.toml`` then)."""
    entry = files.get(BOARD_LAYOUT)
    if entry is None or PATH not in entry:
        return None
    return directory / entry[PATH]  # an absolute path stays as it is


def _entry(path: Path, parsed: Any, directory: Path, by_role: bool = False) -> dict[str, str]:
    entry = {HASH: _digest(path, parsed)}
    if by_role:
        resolved = path.resolve()
        inside = resolved.is_relative_to(directory)
        entry[PATH] = resolved.relative_to(directory).as_posix() if inside else str(resolved)
    return entry


_UNREAD = object()


def _parsed(path: Path) -> Any:
    """The file's content as parsed (``_UNREAD``: it does not read)."""
    try:
        return read_json(path) if path.suffix == ".json" else read_toml(path)
    except DataError:
        return _UNREAD


def _digest(path: Path, parsed: Any) -> str:
    h = hashlib.blake2b(digest_size=8)
    if parsed is not _UNREAD:
        try:
            text = json.dumps(parsed, sort_keys=True, ensure_ascii=False, default=_tagged)
        except (RecursionError, ValueError):  # nested past what json writes: by its bytes
            parsed = _UNREAD
        else:
            h.update(text.encode())
    if parsed is _UNREAD:
        try:
            h.update(b"unread\0" + path.read_bytes())
        except OSError as exc:
            h.update(f"unreadable\0{exc.strerror}".encode())
    return h.hexdigest()


def _tagged(value: object) -> object:
    """A TOML date or time in the canonical form: its kind and ISO text."""
    if isinstance(value, datetime.date | datetime.time):
        return {f"${type(value).__name__}": value.isoformat()}
    raise TypeError(f"not a TOML value: {type(value).__name__}")
