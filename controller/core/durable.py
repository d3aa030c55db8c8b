"""Files that survive a pulled plug: synced before their rename, the folder after it.

A file written under a temporary name and renamed over its own appears whole or not
at all (POSIX ``rename``), but not durably: ext4 (``data=ordered``, delayed
allocation) may commit the rename before the file's blocks, and a power cut then
leaves the new name on a 0-byte file. Its ``auto_da_alloc`` heuristic covers a
rename over an existing file only (Linux ``Documentation/admin-guide/ext4.rst``), so
a first sensor map, a first model or a fresh install was lost that way. A Pi is
unplugged at the end of an evening, often within seconds of the last command.
"""

from __future__ import annotations

import errno
import os
from pathlib import Path


def sync_file(path: str | Path) -> None:
    """Flush ``path``'s data to the disk.

    Raises:
        OSError: it cannot be opened or synced.
    """
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_folder(path: str | Path) -> None:
    """Flush ``path``'s entries (names made, renamed or removed in it) to the disk. A file
    system that cannot sync a folder (``EINVAL``: some FUSE and network ones) is let be.

    Raises:
        OSError: it cannot be opened, or the sync failed otherwise.
    """
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    except OSError as exc:
        if exc.errno != errno.EINVAL:
            raise
    finally:
        os.close(fd)


def replace_durably(part: str | Path, path: str | Path) -> None:
    """Rename the complete file ``part`` over ``path``, both on the disk when it returns.

    Raises:
        OSError: a sync or the rename failed (``part`` is left for the caller).
    """
    sync_file(part)
    os.replace(part, path)
    sync_folder(Path(path).parent)


def sync_tree(root: str | Path) -> None:
    """Flush every file and folder under ``root`` (``root`` included) to the disk.

    Raises:
        OSError: one cannot be opened or synced.
    """
    for folder, _, files in os.walk(root):
        for name in files:
            if not os.path.islink(os.path.join(folder, name)):
                sync_file(os.path.join(folder, name))
        sync_folder(folder)
