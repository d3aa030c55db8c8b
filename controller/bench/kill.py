"""Kill a game's process at a chosen event of its journal, then resume it: the one harness.

A journalled game (``toptable demo``, ``toptable game play``...) is started as a
child process and killed with SIGKILL once its journal holds a chosen number of
rows (read through SQLite, read-only, as often as :data:`POLL_S`): the kill
lands at an event, not after a sleep. :func:`kill_at` says whether it did
(:attr:`Kill.mid_game`: the child was still playing, and the journal held the
rows asked for), so a caller asserts the kill happened mid-game. A child is
always killed and reaped when the harness leaves it (a hung child included):
:class:`Child` is a context manager, and every wait has a deadline.

:func:`journal_differs` then says whether the resumed game's journal holds the
uninterrupted game's events, row by row.

Used by ``toptable bench daemon`` (the kill-and-resume figures, :mod:`.resume`) and
by the tests of the demo and of the journal.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

POLL_S = 0.002
"""How often the journal's rows are counted while waiting for the kill."""


def toptable(*args: str) -> list[str]:
    """The command line of ``toptable ARGS`` run by this interpreter."""
    return [sys.executable, "-m", "controller.cli.main", *args]


def journal_rows(path: Path) -> int:
    """How many rows the journal at ``path`` holds now (0: none yet, or not readable yet)."""
    if not path.is_file():
        return 0
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=0.1)
        try:
            return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0  # being created (renamed into place once complete) or locked: not yet


class Child:
    """A child process that is always killed and reaped when the block ends (idempotent)."""

    def __init__(
        self, cmd: Sequence[str], env: Mapping[str, str] | None = None, output: bool = False
    ) -> None:
        pipe = subprocess.PIPE if output else subprocess.DEVNULL
        self.proc = subprocess.Popen(
            list(cmd), env=dict(env) if env is not None else None, stdout=pipe, stderr=pipe
        )

    @property
    def running(self) -> bool:
        """Whether the child has not ended yet."""
        return self.proc.poll() is None

    def kill(self) -> None:
        """SIGKILL the child (if it runs) and reap it."""
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()

    def __enter__(self) -> Child:
        return self

    def __exit__(
        self, t: type[BaseException] | None, v: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.kill()


@dataclass(frozen=True)
class Kill:
    """How a :func:`kill_at` went: the rows wanted, the rows the journal held after the
    kill, and whether the child was killed while playing (else it ended first)."""

    wanted: int
    rows: int
    killed: bool

    @property
    def mid_game(self) -> bool:
        """The kill landed during the game, at or after the event wanted."""
        return self.killed and self.rows >= self.wanted


def kill_at(
    cmd: Sequence[str],
    journal: Path,
    rows: int,
    timeout_s: float = 120.0,
    env: Mapping[str, str] | None = None,
) -> Kill:
    """Run ``cmd`` and SIGKILL it as soon as ``journal`` holds ``rows`` rows.

    A child that ends on its own first is not killed (``killed`` False); one that
    does not reach the rows within ``timeout_s`` seconds is killed and reported.

    Raises:
        TimeoutError: the child neither reached the rows nor ended in time (it is killed).
    """
    with Child(cmd, env) as child:
        deadline = time.monotonic() + timeout_s
        while child.running and journal_rows(journal) < rows:
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"{' '.join(cmd[2:])}: {journal} held {journal_rows(journal)} of {rows} "
                    f"rows after {timeout_s} s"
                )
            time.sleep(POLL_S)
        killed = child.running
        child.kill()
    return Kill(rows, journal_rows(journal), killed)


def run_json(
    cmd: Sequence[str], timeout_s: float = 600.0, env: Mapping[str, str] | None = None
) -> dict[str, Any]:
    """Run ``cmd`` to its end and read the JSON object on its last line of output.

    Raises:
        RuntimeError: it failed (its exit code and the end of its error output).
        subprocess.TimeoutExpired: it ran longer than ``timeout_s`` (it is killed).
    """
    done = subprocess.run(
        list(cmd),
        capture_output=True,
        text=True,
        timeout=timeout_s,
        check=False,
        env=dict(env) if env is not None else None,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"{' '.join(cmd[2:])} failed ({done.returncode}): {done.stderr.strip()[-500:]}"
        )
    value = json.loads(done.stdout.strip().splitlines()[-1])
    if not isinstance(value, dict):
        raise RuntimeError(f"{' '.join(cmd[2:])} printed no JSON object")
    return value


def same(got: Mapping[str, Any], want: Mapping[str, Any], keys: Sequence[str]) -> list[str]:
    """The ``keys`` whose values differ between ``got`` and ``want``."""
    return [k for k in keys if got.get(k) != want.get(k)]


PLACE_KEYS = frozenset({"evidence"})
"""Payload keys naming where a game keeps its files (a throw's photo lies in its game's
own folder), not what happened: left out when two games' journals are compared."""
UNORDERED_KEYS = frozenset({"dice"})
"""Payload keys whose list is compared in any order: a throw's dice are listed as they lie
in the tray, and a game resumed in the middle of an attack has its players lay the dice
out again by hand (elsewhere) before they reroll."""


def journal_differs(a: Path, b: Path) -> int | None:
    """The first row at which the journals at ``a`` and ``b`` hold different events
    (kind, payload but for :data:`PLACE_KEYS` and the order of :data:`UNORDERED_KEYS`,
    the row an undo marker cancels); None when they hold the same rows.

    Raises:
        sqlite3.Error: a journal cannot be read.
    """
    ours, theirs = _events(a), _events(b)
    for seq, (x, y) in enumerate(zip(ours, theirs, strict=False), start=1):
        if x != y:
            return seq
    return None if len(ours) == len(theirs) else min(len(ours), len(theirs)) + 1


def _events(path: Path) -> list[tuple[str, dict[str, Any], int | None]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT kind, payload, undoes FROM events ORDER BY seq").fetchall()
    finally:
        conn.close()
    out = []
    for kind, payload, undoes in rows:
        data = json.loads(payload)
        if isinstance(data, dict):
            data = {
                k: sorted(map(str, v)) if k in UNORDERED_KEYS and isinstance(v, list) else v
                for k, v in data.items()
                if k not in PLACE_KEYS
            }
        out.append((str(kind), data, undoes))
    return out
