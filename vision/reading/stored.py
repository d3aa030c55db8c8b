"""Opening the project's versioned ``.npz`` files (face models, the face-embedding network)
with one set of checks and one wording of their errors."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from numpy.lib.npyio import NpzFile

from controller.core.textfile import EMPTY
from vision.errors import ModelError


@contextmanager
def checked_npz(
    path: Path, kind: str, version: int, damaged: str, advice: str = ""
) -> Iterator[NpzFile]:
    """The open ``.npz`` at ``path`` once its ``format`` is ``version``; whatever the
    ``with`` body fails to read (a missing array, a bad shape) is reported as damage.

    Raises:
        ModelError: ``{path}: no such {kind} file``; ``{path}: empty (0 bytes)...`` (a
            power cut's); ``{path}: {kind} format N, this
            program reads format {version}{advice}``; ``{path}: not {damaged} (...)``;
            or a ModelError of the body as it is.
    """
    if not path.is_file():
        raise ModelError(f"{path}: no such {kind} file")
    if path.stat().st_size == 0:
        raise ModelError(f"{path}: {EMPTY}")
    if not zipfile.is_zipfile(path):  # else numpy takes any other bytes for a pickle
        raise ModelError(f"{path}: not {damaged} (not an .npz archive)")
    try:
        with np.load(path, allow_pickle=False) as data:
            if "format" not in data.files:
                raise ModelError(f"{path}: not {damaged} ({_foreign(path)})")
            found = int(data["format"])
            if found > version:  # a newer toptable's: the program is the one to change
                newer = " (made by a newer toptable: update toptable to read it)"
                raise ModelError(
                    f"{path}: {kind} format {found}, this program reads format {version}{newer}"
                )
            if found != version:
                raise ModelError(
                    f"{path}: {kind} format {found}, this program reads format {version}{advice}"
                )
            yield data
    except ModelError:
        raise
    except (OSError, ValueError, KeyError, TypeError, EOFError, zipfile.BadZipFile) as exc:
        raise ModelError(f"{path}: not {damaged} ({exc})") from None


def _foreign(path: Path) -> str:
    """What a zip archive with no ``format`` array is: a PyTorch file (``torch.save`` writes
    a zip holding ``data.pkl``: an Ultralytics ``.pt``), or another program's archive."""
    with zipfile.ZipFile(path) as archive:
        names = archive.namelist()
    if any(name.endswith("data.pkl") for name in names):
        return (
            "a PyTorch file (.pt: a YOLO or other network's weights), which toptable does not read"
        )
    return "an archive without toptable's 'format' array: not made by toptable"
