"""What each ``toptable`` flag takes, declared once: every option's ``type=`` is one of these.

argparse calls an option's ``type`` with the text given. Each kind here checks
that text and returns the value, or raises :class:`argparse.ArgumentTypeError`
saying what was expected; the parser prints that as one line naming the flag
and exits 2::

    toptable screens: error: argument --scale: expected a whole number 0..16, got '-3'

Numbers have both bounds (no flag takes "any" number: a huge one is as wrong as
a negative one); paths are checked for what the command does with them (read a
file, read a folder, write one); free text must be one non-empty line. What
spans several flags stays in the command, which raises :class:`FlagError`. The text
given is quoted in part when long (:func:`~controller.core.quoting.short_repr`), and a
path shown as a name (:func:`~controller.core.quoting.printable`: a newline escaped, past
1000 characters cut short), so the message stays one short line.

``tests/cli/test_flag_walk.py`` walks every command of the parser and tries each
kind's bad values, so a new option is covered once it names its kind here.
"""

from __future__ import annotations

import argparse
import functools
import math
import os
import socket
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeVar

from controller.config import MISSING_CONFIG
from controller.core.errors import TopTableError
from controller.core.quoting import printable, short_repr
from controller.core.symbols import MAX_POOL, MIN_POOL
from controller.game.state import MAX_PLAYERS, MAX_STORY_PLAYERS, MIN_PLAYERS
from controller.gamedata.story import SQUARES
from controller.gamedata.warrior_entries import MAX_ENDURANCE, MAX_TECHNIQUE
from controller.gamedata.warrior_fields import MAX_COMBO_DAMAGE, MAX_SYMBOL_VALUE
from controller.storage.place import too_long_for_sqlite
from vision.images import MAX_IMAGE_PIXELS

T = TypeVar("T")

__all__ = [
    "CONFIG_FILE",
    "DAMAGE",
    "PLAYERS",
    "POOL",
    "PORT",
    "REROLLS",
    "SEED",
    "SQUARE",
    "STORY_PLAYERS",
    "SUPPORT",
    "THROW_DAMAGE",
    "Checked",
    "ExistingDir",
    "ExistingFile",
    "FlagError",
    "Host",
    "ImageFile",
    "JournalFile",
    "Number",
    "OneOf",
    "OutputDir",
    "OutputFile",
    "OutputPath",
    "Text",
    "Whole",
]


class FlagError(TopTableError, ValueError):
    """Flags that do not fit together (``--tables`` without ``--mqtt``...): one line, exit 2."""


def _bad(message: str) -> argparse.ArgumentTypeError:
    return argparse.ArgumentTypeError(message)


# ---------------------------------------------------------------- numbers
@dataclass(frozen=True)
class Whole:
    """A whole number ``lo..hi`` (``what`` names it in the message: "a port")."""

    lo: int
    hi: int
    what: str = "a whole number"

    def __call__(self, raw: str) -> int:
        expected = f"expected {self.what} {self.lo}..{self.hi}, got {short_repr(raw)}"
        try:
            value = int(raw.strip(), 10)
        except ValueError:
            raise _bad(expected) from None
        if not self.lo <= value <= self.hi:
            raise _bad(expected)
        return value


@dataclass(frozen=True)
class Number:
    """A finite number from ``lo`` to ``hi`` (``lo`` excluded when ``above``, ``hi`` when
    ``below``)."""

    lo: float
    hi: float
    above: bool = False
    below: bool = False

    def describe(self) -> str:
        """The range in words: "0..3600", or "above 0, at most 10000"."""
        if not (self.above or self.below):
            return f"{self.lo:g}..{self.hi:g}"
        low = f"above {self.lo:g}" if self.above else f"at least {self.lo:g}"
        high = f"below {self.hi:g}" if self.below else f"at most {self.hi:g}"
        return f"{low}, {high}"

    def __call__(self, raw: str) -> float:
        expected = f"expected a number {self.describe()}, got {short_repr(raw)}"
        try:
            value = float(raw.strip())
        except ValueError:
            raise _bad(expected) from None
        low_ok = value > self.lo if self.above else value >= self.lo
        high_ok = value < self.hi if self.below else value <= self.hi
        if not (math.isfinite(value) and low_ok and high_ok):
            raise _bad(expected)
        return value


SEED = Whole(0, 2**32 - 1)
"""A random seed: numpy's generators take 0..2**32-1 (``RandomState``), Python's any."""

PORT = Whole(0, 65535, "a TCP port")
"""A TCP port (0: any free one, for a server)."""

# The game's own numbers, for every command that takes them.
PLAYERS = Whole(MIN_PLAYERS, MAX_PLAYERS)
STORY_PLAYERS = Whole(MIN_PLAYERS, MAX_STORY_PLAYERS)
POOL = Whole(MIN_POOL, MAX_POOL)
"""Dice in one throw."""
SUPPORT = Whole(0, MAX_POOL)
"""Support dice: more than a pool holds cannot count."""
REROLLS = Whole(0, MAX_TECHNIQUE + 1)
"""Rerolls in one attempt: the technique, and one more reroll for some warriors."""
DAMAGE = Whole(0, MAX_ENDURANCE)
"""Damage a warrior has taken: less than its endurance."""
THROW_DAMAGE = Whole(0, max(MAX_COMBO_DAMAGE, 2 * MAX_POOL * MAX_SYMBOL_VALUE))
"""Damage one attempt inflicts: a combo's, or a symbol sum doubled (the command checks what
the warrior's own throw can make)."""
SQUARE = Whole(1, SQUARES, "a Story square")
"""A Story square's number."""


# ---------------------------------------------------------------- words
@dataclass(frozen=True)
class Text:
    """One non-empty line of text (a name, a symbol list, a URL)."""

    what: str = "text"

    def __call__(self, raw: str) -> str:
        if not raw.strip():
            raise _bad(f"expected {self.what}, got nothing")
        if any(c in raw for c in "\n\r\0"):
            raise _bad(f"expected {self.what} on one line, got {short_repr(raw)}")
        return raw


@dataclass(frozen=True)
class Checked:
    """Text a library function accepts (``check`` raises a :class:`TopTableError` saying
    what is wrong): a broker URL, a table id. The text itself is the value."""

    check: Callable[[str], object]

    def __call__(self, raw: str) -> str:
        Text()(raw)
        try:
            self.check(raw)
        except TopTableError as exc:
            raise _bad(str(exc)) from None
        return raw


@dataclass(frozen=True)
class Parsed(Generic[T]):
    """Text a library function turns into a value (``parse`` raises a :class:`TopTableError`
    saying what is wrong): the players of ``--names``."""

    parse: Callable[[str], T]

    def __call__(self, raw: str) -> T:
        Text()(raw)
        try:
            return self.parse(raw)
        except TopTableError as exc:
            raise _bad(str(exc)) from None


@dataclass(frozen=True)
class OneOf:
    """One of a fixed set of names (for a list argument, where argparse's ``choices``
    cannot hold an empty default)."""

    names: tuple[str, ...]

    @classmethod
    def of(cls, names: Iterable[str]) -> OneOf:
        """The kind for ``names``."""
        return cls(tuple(names))

    def __call__(self, raw: str) -> str:
        if raw not in self.names:
            raise _bad(f"expected one of {', '.join(self.names)}, got {short_repr(raw)}")
        return raw


@dataclass(frozen=True)
class Host:
    """A host name or address this machine can resolve (a server's address to listen on)."""

    def __call__(self, raw: str) -> str:
        name = raw.strip()
        if not name:
            raise _bad("expected a host name or address, got nothing")
        try:
            socket.getaddrinfo(name, None)
        except (socket.gaierror, UnicodeError) as exc:
            reason = exc.strerror if isinstance(exc, socket.gaierror) else str(exc)
            raise _bad(f"unknown host {short_repr(raw)} ({reason})") from None
        return name


# ---------------------------------------------------------------- paths
def _looked_at(check: Callable[[Any, str], Path]) -> Callable[[Any, str], Path]:
    """``check`` with an error of the disk's (a folder above the path this user cannot
    search: ``Path.exists`` raises PermissionError there) told as the flag's one line."""

    @functools.wraps(check)
    def looked(self: Any, raw: str) -> Path:
        try:
            return check(self, raw)
        except OSError as exc:
            raise _bad(
                f"{printable(raw)}: cannot look there ({exc.strerror or exc}): "
                "this user needs to be able to open every folder above it"
            ) from None

    return looked


def _nearest_existing(path: Path) -> Path:
    here = path.absolute()
    while not here.exists() and here != here.parent:
        here = here.parent
    return here


def _writable_place(path: Path, raw: str) -> None:
    """``path`` can be created: its nearest existing ancestor is a folder we may write in."""
    above = _nearest_existing(path.parent)
    if not above.is_dir():
        raise _bad(f"{printable(raw)}: {printable(str(above))} is not a folder")
    if not os.access(above, os.W_OK | os.X_OK):
        raise _bad(
            f"{printable(raw)}: cannot create anything in {printable(str(above))} "
            "(permission denied)"
        )


@dataclass(frozen=True)
class ExistingFile:
    """A file to read. ``text``: it must be UTF-8 text (a JSON, TOML, PEM or password file);
    ``missing`` replaces "no such file" (a hint saying where one comes from)."""

    text: bool = False
    missing: str = "no such file"

    @_looked_at
    def __call__(self, raw: str) -> Path:
        path = Path(raw)
        if not raw:
            raise _bad("expected a file, got nothing")
        if path.is_dir():
            raise _bad(f"{printable(raw)} is a folder; expected a file")
        if not path.exists():
            raise _bad(f"{printable(raw)}: {self.missing}")
        if not path.is_file():  # a FIFO or a device: reading it would wait, or never end
            raise _bad(f"{printable(raw)} is not a regular file; expected a file")
        try:
            with path.open("rb") as f:
                data = f.read() if self.text else b""
        except OSError as exc:
            raise _bad(f"{printable(raw)}: cannot read: {exc.strerror or exc}") from None
        if self.text:
            try:
                data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise _bad(f"{printable(raw)}: not UTF-8 text (byte {exc.start})") from None
        return path


@dataclass(frozen=True)
class ImageFile:
    """A photo to read, refused before decoding when its header says it is too large.

    Pillow's ``Image.open`` is lazy: it reads the header (the size) and decodes no
    pixel until asked (PIL/Image.py ``open``, 13.0); the size is checked there, against
    :data:`vision.images.MAX_IMAGE_PIXELS`, the limit every photo read is held to.
    """

    max_pixels: int = MAX_IMAGE_PIXELS

    @_looked_at
    def __call__(self, raw: str) -> Path:
        from PIL import Image, UnidentifiedImageError

        path = ExistingFile()(raw)
        try:
            with Image.open(path) as image:
                width, height = image.size
        except UnidentifiedImageError:
            raise _bad(f"{printable(raw)}: not an image (JPEG, PNG, BMP...)") from None
        except Image.DecompressionBombError:
            limit = 2 * (Image.MAX_IMAGE_PIXELS or 0) / 1e6
            raise _bad(
                f"{printable(raw)}: over {limit:.0f} megapixels; "
                f"at most {self.max_pixels / 1e6:.0f} are read"
            ) from None
        except OSError as exc:
            raise _bad(f"{printable(raw)}: cannot read: {exc.strerror or exc}") from None
        if width * height > self.max_pixels:
            raise _bad(
                f"{printable(raw)}: {width}x{height} is {width * height / 1e6:.0f} megapixels; "
                f"at most {self.max_pixels / 1e6:.0f} are read (a camera photo is about 12)"
            )
        return path


@dataclass(frozen=True)
class ExistingDir:
    """A folder to read (a data set, a dataset of photos, an image folder); ``files``: or a
    file ending in one of these suffixes (a dataset's yaml)."""

    files: tuple[str, ...] = ()

    @_looked_at
    def __call__(self, raw: str) -> Path:
        path = Path(raw)
        if not raw:
            raise _bad("expected a folder, got nothing")
        if path.is_file() and path.suffix in self.files:
            return path
        if path.exists() and not path.is_dir():
            also = f" (or a {' or '.join(self.files)} file)" if self.files else ""
            raise _bad(f"{printable(raw)} is a file; expected a folder{also}")
        if not path.is_dir():
            raise _bad(f"{printable(raw)}: no such folder")
        return path


@dataclass(frozen=True)
class OutputFile:
    """A file to write (or to resume, if it exists): not a folder, in a place we may write;
    nor a FIFO or a device (opening one waits, or writes nowhere), unless ``link``: a
    symlink is made there, and a link left at it may lead to an old device."""

    link: bool = False

    @_looked_at
    def __call__(self, raw: str) -> Path:
        path = Path(raw)
        if not raw:
            raise _bad("expected a file, got nothing")
        if path.is_dir():
            raise _bad(f"{printable(raw)} is a folder; expected a file")
        if not self.link and path.exists() and not path.is_file():
            raise _bad(f"{printable(raw)} is not a regular file; expected a file")
        _writable_place(path, raw)
        return path


@dataclass(frozen=True)
class NewFile:
    """A file to write that is not there yet, as :class:`OutputFile`: nothing already
    there is written over (a photo of the owner's set, the board's layout...)."""

    @_looked_at
    def __call__(self, raw: str) -> Path:
        path = OutputFile()(raw)
        if path.exists() or path.is_symlink():
            raise _bad(f"{printable(raw)}: a file is there already; name a new file")
        return path


@dataclass(frozen=True)
class JournalFile:
    """A journal to start (or to resume, if it exists), as :class:`OutputFile`, at a path
    SQLite can open (:func:`controller.storage.place.too_long_for_sqlite`)."""

    @_looked_at
    def __call__(self, raw: str) -> Path:
        path = OutputFile()(raw)
        if (long := too_long_for_sqlite(path, creating=not path.is_file())) is not None:
            raise _bad(f"{printable(raw)}: {long}")
        return path


@dataclass(frozen=True)
class OutputDir:
    """A folder to write into (made if missing): not a file, in a place we may write."""

    @_looked_at
    def __call__(self, raw: str) -> Path:
        path = Path(raw)
        if not raw:
            raise _bad("expected a folder, got nothing")
        if path.exists() and not path.is_dir():
            raise _bad(f"{printable(raw)} is a file; expected a folder")
        _writable_place(path, raw)
        return path


@dataclass(frozen=True)
class OutputPath:
    """A file or a folder to write, as another flag decides (``screens play --out``)."""

    @_looked_at
    def __call__(self, raw: str) -> Path:
        path = Path(raw)
        if not raw:
            raise _bad("expected a path, got nothing")
        _writable_place(path, raw)
        return path


CONFIG_FILE = ExistingFile(text=True, missing=MISSING_CONFIG)
"""The daemon's config file (``run --config``, ``config check``)."""
