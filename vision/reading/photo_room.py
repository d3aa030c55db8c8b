"""Room on the card for a throw's photo: the table plays on when the card fills.

Every settled throw's frame is kept (:mod:`vision.reading.evidence`), a folder of
photos per game beside the journal (``JOURNAL.frames/GAME/``); over a season of
evenings they outgrow an SD card, and a full card stops the journal, so the game.
:func:`room_for_photo` keeps :data:`KEEP_FREE` bytes free on the photos' file
system: the earlier games' photos go first, oldest first; a photo that still would
not leave that room is not kept (its throw is played all the same, only not
learned from later).
"""

from __future__ import annotations

import contextlib
import logging
import re
import shutil
from pathlib import Path

log = logging.getLogger(__name__)

KEEP_FREE = 256 * 1024 * 1024
"""Bytes the photos leave free on their file system: the journal, the logs and the
system's own writes need room long after the last photo."""
PHOTO_NAME = re.compile(r"throw_\d{5}(\.jpg|\.boxes\.json)")
"""What a photo (or its dice boxes) is called: only those are ever deleted."""


def room_for_photo(
    folder: Path, size: int, keep_free: int = KEEP_FREE, prune: bool = False
) -> bool:
    """Whether a photo of ``size`` bytes may be kept in ``folder`` (a game's own) and
    leave ``keep_free`` bytes free. When it would not and ``prune`` (the folders beside
    ``folder`` are the table's earlier games', ``JOURNAL.frames/GAME/``), their photos
    are deleted, the oldest game first, until it does; the game's own never are, nor
    anything but photos. Nothing is raised: a card that cannot be read says no."""
    try:
        if _free(folder) - size >= keep_free:
            return True
        if not prune:
            return False
        others = sorted(
            (p for p in folder.parent.iterdir() if p.is_dir() and p != folder),
            key=lambda p: p.stat().st_mtime,
        )
    except OSError:
        return False
    for game in others:
        removed = _delete_photos(game)
        if removed:
            log.warning(
                "the card has less than %d MB free: deleted %d photo files of an earlier "
                "game (%s) to keep the photos of this one",
                keep_free // (1024 * 1024), removed, game,
            )  # fmt: skip
        with contextlib.suppress(OSError):
            if _free(folder) - size >= keep_free:
                return True
    return False


def _free(folder: Path) -> int:
    """Bytes free on ``folder``'s file system (the nearest folder there is)."""
    here = folder
    while not here.exists() and here.parent != here:
        here = here.parent
    return shutil.disk_usage(here).free


def _delete_photos(game: Path) -> int:
    """Delete the photo files in ``game`` (nothing else), and the folder once empty;
    how many files went. A throw whose photo has another name on the card (a ``dice
    table-photos`` folder links it) is kept whole: deleting it would free nothing."""
    removed = 0
    with contextlib.suppress(OSError):
        for f in game.iterdir():
            if PHOTO_NAME.fullmatch(f.name) and f.is_file() and not _linked(f):
                with contextlib.suppress(OSError):
                    f.unlink()
                    removed += 1
        game.rmdir()  # only when empty: anything else put there stays
    return removed


def _linked(photo: Path) -> bool:
    """Whether the throw of ``photo`` (its image or its boxes) has its image under another
    name too (a hard link: its bytes stay when this name goes)."""
    image = photo.with_name(photo.name.split(".", 1)[0] + ".jpg")
    try:
        return image.stat().st_nlink > 1
    except OSError:
        return False
