"""Folders a toptable command writes labelled photos into, told apart from the owner's own.

A command that writes a labelled set (``dice synth``, ``dice capture``, ``dice
table-photos``) marks the first line of its ``data.yaml``; it writes only into a new or
empty folder or one whose ``data.yaml`` carries its own mark, so the owner's photos and
their ``data.yaml`` are never written over.
"""

from __future__ import annotations

from pathlib import Path

from controller.core.errors import DataError


def made_with_line(made_by: str) -> str:
    """The first line of the ``data.yaml`` that the command ``made_by`` writes."""
    return f"# made with {made_by}"


def check_own_folder(folder: Path, first_line: str, made_by: str, hint: str = "") -> None:
    """Refuse ``folder`` unless it is missing, empty, or holds a set whose ``data.yaml``
    starts with ``first_line`` (the mark of the command ``made_by``).

    Raises:
        DataError: the folder holds files the command did not write (``hint`` is added to
            the message).
    """
    try:
        if not folder.is_dir() or not any(folder.iterdir()):
            return
        text = (folder / "data.yaml").read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        text = ""
    if text.partition("\n")[0] != first_line:
        raise DataError.single(
            str(folder),
            "",
            "",
            f"holds files {made_by} did not write (your own photos are never written "
            f"over): give a new or empty folder{hint}",
        )
