"""Where a journal lives: one line naming what is wrong with its place and what is needed.

A journal is a file and, while open, its ``-wal`` and ``-shm`` files beside it (SQLite's
write-ahead log): so its folder must exist and be writable by the user toptable runs
as, even to read it. SQLite reports a place it cannot use as ``SQLITE_CANTOPEN``,
``SQLITE_READONLY``, ``SQLITE_FULL``, ``SQLITE_IOERR`` (never as a damaged file):
:func:`is_storage_error` tells those from ``SQLITE_NOTADB`` and ``SQLITE_CORRUPT``,
which are the file's own fault, and :func:`place_problem` says why.
"""

from __future__ import annotations

import os
import pwd
import sqlite3
from pathlib import Path

from controller.core.quoting import printable
from controller.storage.sqlite_file import SQLITE_PATH_MAX, full_path_size, sidecars

CREATING_SUFFIX = ".creating"
"""A new journal is built under its name and this, then renamed once complete."""

STORAGE_ERRORS = ("SQLITE_CANTOPEN", "SQLITE_READONLY", "SQLITE_FULL", "SQLITE_IOERR",
                  "SQLITE_PERM", "SQLITE_AUTH", "SQLITE_BUSY", "SQLITE_LOCKED")  # fmt: skip
"""SQLite's result codes (and their extended forms) for a place it cannot use."""


def is_storage_error(exc: sqlite3.Error) -> bool:
    """Whether SQLite's ``exc`` is about the file's place (folder, disk, rights), not its
    content (``sqlite_errorname``: Python 3.11's name of SQLite's result code)."""
    name = getattr(exc, "sqlite_errorname", None) or ""
    return name.startswith(STORAGE_ERRORS)


def too_long_for_sqlite(path: Path, creating: bool) -> str | None:
    """Why SQLite cannot open a journal at ``path`` (``creating``: nor build a new one
    there, under its name and :data:`CREATING_SUFFIX`) as the rest of a line after the
    path, or None: its full path's size (absolute, links followed) and the limit."""
    size = full_path_size(path)
    limit = SQLITE_PATH_MAX - (len(CREATING_SUFFIX) if creating else 0)
    if size <= limit:
        return None
    said = f"a path of {size} bytes in full (absolute, links followed)"
    if not creating:
        return (
            f"{said}; SQLite opens a database at a path of at most {SQLITE_PATH_MAX} bytes: "
            "choose a shorter path"
        )
    return (
        f"{said}; a new journal's path takes at most {limit} bytes (SQLite opens a database "
        f"at a path of at most {SQLITE_PATH_MAX}, and toptable builds a new journal as "
        f"{printable(path.name)}{CREATING_SUFFIX} first): choose a shorter path"
    )


def new_journal_problem(path: Path, resume_hint: str) -> str | None:
    """Why no new journal can be made at ``path``, in one line: one is there already
    (``resume_hint``: how to go on with it), SQLite could not open it there, or a dead
    game's write-ahead log lies there; None when nothing stops it."""
    _, wal, shm = sidecars(path)
    try:
        there, stale = path.exists(), wal.exists() and wal.stat().st_size > 0
        link = None if there or not path.is_symlink() else os.readlink(path)
    except OSError as exc:
        return place_problem(path, exc)
    if there:
        return f"{path}: a journal already exists there; {resume_hint}"
    if link is not None:  # the new journal would be renamed over the link, not made at its end
        return (
            f"{path}: a symbolic link to {printable(link)}, where no journal is (nothing "
            "there, or a loop of links): give the path the journal is to be made at"
        )
    if (long := too_long_for_sqlite(path, creating=True)) is not None:
        return f"cannot create the journal: {printable(str(path))}: {long}"
    if stale:  # SQLite would replay a dead game's write-ahead log into the new file
        return (
            f"{wal}: the write-ahead log of a journal no longer at {path} (it may hold "
            f"that game's last rows): put its journal back, or move {wal.name} and "
            f"{shm.name} away to start a new game there"
        )
    return None


def _user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return f"uid {uid}"


def _why_not_writable(folder: Path) -> str:
    try:
        if os.statvfs(folder).f_flag & os.ST_RDONLY:
            return "it is on a read-only file system"
        owner = folder.stat().st_uid
    except OSError as exc:
        return exc.strerror or str(exc)
    if owner != os.geteuid():
        return f"it is owned by {_user(owner)}"
    return "it is read-only"


def rights_problem(path: Path) -> str | None:
    """Why this user cannot write the existing journal at ``path`` or SQLite's files beside
    it (said before SQLite opens it: opened, it would make its -wal and -shm files with
    the journal's mode, which then stand in the way once the journal's mode is mended);
    None when it can."""
    if not path.exists():  # a new journal: whatever lies beside it is cleared at creation
        return None
    if any(p.exists() and not os.access(p, os.R_OK | os.W_OK) for p in sidecars(path)):
        return place_problem(path)
    return None


def place_problem(path: Path, exc: BaseException | None = None) -> str:
    """One line (starting with the path at fault) saying why a journal cannot be kept at
    ``path`` and what is needed; ``exc``: what failed, when nothing else explains it."""
    me = _user(os.geteuid())
    try:
        return _problem(path, exc, me)
    except OSError as err:  # a folder above it cannot even be searched
        return (
            f"{path}: {me} cannot reach it ({err.strerror}): every folder above the journal "
            f"must be searchable by {me}, or choose another path"
        )


def append_problem(path: Path, exc: sqlite3.Error, seq: int) -> str:
    """Why rows from ``seq`` on could not be appended to the journal at ``path`` (``exc``):
    a row of that number there already is another program's writing."""
    if getattr(exc, "sqlite_errorname", "") == "SQLITE_CONSTRAINT_PRIMARYKEY":  # not ours
        return (
            f"{path}: another program wrote to the journal since it was opened (its row "
            f"{seq} is there already); nothing was written: stop the other program, then "
            "open the journal again"
        )
    return place_problem(path, exc)


FULL_BELOW_BYTES = 256 * 1024
"""Free space under which an I/O error is taken for a full disk: the -shm file grows by
32 KiB at a time, the -wal by pages of 4 KiB."""


def _nearly_full(folder: Path) -> bool:
    """Whether the file system holding ``folder`` has (almost) no room left for this user."""
    try:
        stats = os.statvfs(folder)
    except OSError:
        return False
    return stats.f_bavail * stats.f_frsize < FULL_BELOW_BYTES


def _problem(path: Path, exc: BaseException | None, me: str) -> str:
    folder = path.parent
    if path.is_dir():
        return f"{path}: a folder, not a journal file: name a file (e.g. {path / 'game.sqlite'})"
    if not folder.exists():
        return f"{folder}: no such folder for the journal: create it, or choose another path"
    if not folder.is_dir():
        return f"{folder}: not a folder, so no journal can be kept in it: choose another path"
    if not os.access(folder, os.W_OK | os.X_OK):
        return (
            f"{folder}: {me} cannot write in the journal's folder ({_why_not_writable(folder)}); "
            f"toptable keeps {path.name} and its -wal and -shm files there: make the folder "
            f"writable for {me}, or choose another path"
        )
    if path.exists() and not os.access(path, os.R_OK | os.W_OK):
        owner = _user(path.stat().st_uid)
        return (
            f"{path}: {me} cannot read and write the journal (owned by {owner}, mode "
            f"{path.stat().st_mode & 0o777:o}): make it readable and writable for {me}"
        )
    for side in sidecars(path)[1:]:  # SQLite's files beside it
        if side.exists() and not os.access(side, os.R_OK | os.W_OK):
            return (
                f"{side}: {me} cannot read and write this file of the journal's (owned by "
                f"{_user(side.stat().st_uid)}, mode {side.stat().st_mode & 0o777:o}): make it "
                f"readable and writable for {me}, as {path.name} is"
            )
    name = getattr(exc, "sqlite_errorname", "") or ""
    full = name.startswith("SQLITE_FULL") or getattr(exc, "errno", None) == 28  # ENOSPC
    # a full disk met growing the -shm file reads as an I/O error (SQLITE_IOERR_SHMSIZE)
    if full or (name.startswith("SQLITE_IOERR") and _nearly_full(folder)):
        return f"{path}: the disk is full: free space on it for the journal"
    if name.startswith("SQLITE_IOERR"):
        return f"{path}: the disk failed to read or write ({exc}): check the disk or card"
    return f"{path}: cannot use the journal: {exc}"
