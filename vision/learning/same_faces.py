"""A labelled set that a toptable command adds photos to holds the same faces in the same
order, or its labels would name the wrong face."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from controller.core.errors import DataError
from vision.learning.dataset import load_dataset


def check_same_faces(folder: Path, names: Sequence[str], hint: str) -> None:
    """Refuse ``folder`` if it holds photos labelled with faces other than ``names`` (in
    class order); a folder without photos passes.

    Raises:
        DataError: the set's ``data.yaml`` names other faces (``hint`` says what to do), or
            the set cannot be read.
    """
    images = folder / "images"
    if not images.is_dir() or not any(images.iterdir()):
        return
    held = load_dataset(folder).names
    if held != tuple(names):
        raise DataError.single(
            str(folder / "data.yaml"),
            "",
            "names",
            f"holds photos of the faces {', '.join(held)}, not {', '.join(names)}: {hint}",
        )
