"""What a path names, asked without raising: Python 3.11's ``Path.exists``, ``is_file`` and
``is_dir`` let through the errors of a name no file can have (too long, a loop of links),
where a data file or a journal's set-up may hold one."""

from __future__ import annotations

from pathlib import Path


def exists(path: Path) -> bool:
    """Whether ``path`` names anything (False too for a name the system refuses)."""
    try:
        return path.exists()
    except OSError:
        return False


def is_file(path: Path) -> bool:
    """Whether ``path`` is a file (False too for a name the system refuses: too long...)."""
    try:
        return path.is_file()
    except OSError:
        return False


def is_dir(path: Path) -> bool:
    """Whether ``path`` is a folder (False too for a name the system refuses)."""
    try:
        return path.is_dir()
    except OSError:
        return False
