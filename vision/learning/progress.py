"""Progress callbacks: ``progress(done, total, what)`` for long jobs (calibration, evaluation)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Progress = Callable[[int, int, str], None]


def quiet(done: int, total: int, what: str) -> None:
    """A progress callback that says nothing."""


def progress_bar(stream: Any = None, width: int = 30) -> Progress:
    """A progress callback drawing ``[#####-----]  12/40  what`` on one line of
    ``stream`` (default: stderr), ending the line when done."""
    import sys

    out = stream if stream is not None else sys.stderr

    def show(done: int, total: int, what: str) -> None:
        filled = round(width * done / total) if total else width
        bar = "#" * filled + "-" * (width - filled)
        out.write(f"\r[{bar}] {done:>3}/{total} {what[:40]:<40}")
        if done >= total:
            out.write("\n")
        out.flush()

    return show
