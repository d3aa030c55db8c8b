"""The kill-and-resume figure of ``toptable bench daemon``: every game kind, 20 kills each.

For each mode (:data:`MODES`: the Tournament, Story and every companion mode) one
uninterrupted ``toptable demo --fast --json --seed S`` is the reference; then each
kill run plays the same game with ``--journal J``, is killed with SIGKILL once the
journal holds a chosen number of rows (:func:`controller.bench.kill.kill_at`; the
rows chosen are spread evenly over the reference game, from past its set-up to its
last row) and is started again with nothing but ``--journal J --resume``. A run
reaches the same end when its summary agrees with the reference's on the mode's
:attr:`KillMode.keys` and its journal holds the reference's rows, row by row
(:func:`controller.bench.kill.journal_differs`). Runs go :data:`JOBS` at a time, each
its own pair of child processes.
"""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Executor, Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.bench.kill import journal_differs, journal_rows, kill_at, run_json, same, toptable

JOBS = 2
"""Kill runs at a time: each is two processes, one after the other (the machine has 2 cores)."""
TIMEOUT_S = 600.0


@dataclass(frozen=True)
class KillMode:
    """One game kind under the kill test: its ``demo`` flags, the summary keys that say
    its end, and the first journal row a kill may land on (past the set-up)."""

    name: str
    flags: tuple[str, ...]
    keys: tuple[str, ...]
    first_row: int


DICE_KEYS = ("winners", "warriors_left", "rounds", "combats", "events", "throws")
STORY_KEYS = ("winners", "victory_points", "points", "squares", "events", "throws")
COMPANION_KEYS = ("players", "winner", "step", "actions", "journal_rows")
MODES: tuple[KillMode, ...] = (
    KillMode("tournament", ("--mode", "tournament"), DICE_KEYS, first_row=10),
    KillMode("story", ("--mode", "story"), STORY_KEYS, first_row=10),
    # players as the companion demo's tests play them: games of 20 to 100 rows
    KillMode("dbs-tournament", ("--mode", "dbs-tournament", "--players", "4"), COMPANION_KEYS, 1),
    KillMode("dbz-tcg", ("--mode", "dbz-tcg", "--players", "2"), COMPANION_KEYS, 1),
    KillMode("challengers", ("--mode", "challengers", "--players", "5"), COMPANION_KEYS, 1),
)
"""Every game kind the table keeps (``toptable demo --mode``; ``topdice`` is another name
for the Tournament)."""


@dataclass(frozen=True)
class ModeResult:
    """One mode's kill runs: how many were killed mid-game and resumed to the reference's
    end, how many ended before their kill (proving nothing), and what went wrong."""

    mode: KillMode
    runs: int
    equal: int
    unkilled: int
    problems: tuple[str, ...]

    @property
    def passed(self) -> bool:
        """Every run was killed mid-game and reached the same end."""
        return self.equal == self.runs


def kill_rows(first: int, rows: int, runs: int) -> list[int]:
    """``runs`` journal rows spread evenly from ``first`` to the reference game's last row
    but one (``rows - 1``: the game still runs), in order."""
    last = max(first, rows - 1)
    if runs == 1:
        return [(first + last) // 2]
    return [first + round(i * (last - first) / (runs - 1)) for i in range(runs)]


def demo_command(mode: KillMode, seed: int, out: Path, *extra: str) -> list[str]:
    """``toptable demo --fast --json`` of ``mode`` with ``seed``, its output in ``out``."""
    return toptable(
        "demo", *mode.flags, "--fast", "--json", "--seed", str(seed), "--out", str(out), *extra
    )


def reference(mode: KillMode, seed: int, folder: Path) -> dict[str, Any]:
    """The uninterrupted game's summary (its journal at ``folder/reference.sqlite``).

    Raises:
        RuntimeError: the demo failed.
        subprocess.TimeoutExpired: it ran longer than :data:`TIMEOUT_S`.
    """
    folder.mkdir(parents=True, exist_ok=True)
    journal = folder / "reference.sqlite"
    cmd = demo_command(mode, seed, folder / "reference", "--journal", str(journal))
    return run_json(cmd, timeout_s=TIMEOUT_S)


def kill_and_resume(
    mode: KillMode, seed: int, folder: Path, ref: dict[str, Any], rows: int
) -> tuple[bool, str | None]:
    """One kill run: the game killed once its journal holds ``rows`` rows, then resumed
    with nothing but the journal. Returns (killed mid-game, the problem or None: the
    same end as ``ref``)."""
    journal = folder / "journal.sqlite"
    kill = kill_at(
        demo_command(mode, seed, folder, "--journal", str(journal)), journal, rows, TIMEOUT_S
    )
    if not kill.mid_game:
        return False, None
    where = f"killed at row {kill.rows}"
    resume = toptable("demo", "--fast", "--json", "--out", str(folder),
                      "--journal", str(journal), "--resume")  # fmt: skip
    try:
        summary = run_json(resume, timeout_s=TIMEOUT_S)  # nothing but the journal
    except (RuntimeError, subprocess.TimeoutExpired) as exc:
        return True, f"{where}: the resume failed: {exc}"
    diff = same(summary, ref, mode.keys)
    if diff:
        got = ", ".join(f"{k} {summary.get(k)!r} (want {ref.get(k)!r})" for k in diff)
        return True, f"{where}: differs in {got}"
    if summary.get("handler_failures"):
        return True, f"{where}: {summary['handler_failures']} handler failure(s)"
    row = journal_differs(journal, Path(str(ref["journal"])))
    if row is not None:
        return True, f"{where}: the journal differs from the uninterrupted game's at row {row}"
    return True, None


def kill_runs(
    mode: KillMode, runs: int, seed: int, folder: Path, ref: dict[str, Any], pool: Executor
) -> list[Future[tuple[bool, str | None]]]:
    """``runs`` kill runs of ``mode`` against the reference game ``ref``, queued on ``pool``."""
    rows = kill_rows(mode.first_row, journal_rows(Path(str(ref["journal"]))), runs)
    return [
        pool.submit(kill_and_resume, mode, seed, folder / f"kill-{i}", ref, r)
        for i, r in enumerate(rows)
    ]


def tally(mode: KillMode, runs: int, jobs: Sequence[Future[tuple[bool, str | None]]]) -> ModeResult:
    """One mode's result, once its kill runs have ended."""
    equal = unkilled = 0
    problems: list[str] = []
    for i, job in enumerate(jobs):
        try:
            killed, problem = job.result()
        except (OSError, sqlite3.Error) as exc:  # never reached its row; a journal unread
            problems.append(f"run {i}: {exc}")
            continue
        if not killed:
            unkilled += 1
        elif problem is not None:
            problems.append(f"run {i} ({problem})")
        else:
            equal += 1
    return ModeResult(mode, runs, equal, unkilled, tuple(problems))


def run_all(
    modes: Sequence[KillMode],
    runs: int,
    seed: int,
    folder: Path,
    report: Callable[[ModeResult], None],
    jobs: int = JOBS,
    known: Mapping[str, dict[str, Any]] | None = None,
) -> list[ModeResult]:
    """Every mode's reference game and kill runs, ``jobs`` processes at a time (the
    references first, each mode's kills as soon as its reference has ended); ``report``
    is told each mode's result, in the order of ``modes``. ``known``: reference summaries
    played already (by mode name; the same seed and flags, with the journal they name)."""
    results: list[ModeResult] = []
    known = known or {}
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        refs = [
            _done(known[m.name])
            if m.name in known
            else pool.submit(reference, m, seed, folder / m.name)
            for m in modes
        ]
        queued: list[list[Future[tuple[bool, str | None]]] | ModeResult] = []
        for mode, ref in zip(modes, refs, strict=True):
            try:
                queued.append(kill_runs(mode, runs, seed, folder / mode.name, ref.result(), pool))
            except (RuntimeError, subprocess.TimeoutExpired) as exc:
                queued.append(ModeResult(mode, runs, 0, 0, (f"the uninterrupted game: {exc}",)))
        for mode, jobs_or_result in zip(modes, queued, strict=True):
            if isinstance(jobs_or_result, ModeResult):
                result = jobs_or_result
            else:
                result = tally(mode, runs, jobs_or_result)
            report(result)
            results.append(result)
    return results


def _done(summary: dict[str, Any]) -> Future[dict[str, Any]]:
    future: Future[dict[str, Any]] = Future()
    future.set_result(summary)
    return future


def print_mode(result: ModeResult) -> None:
    """One mode's figure and its problems."""
    killed = result.runs - result.unkilled
    ended = f" ({result.unkilled} more ended before their kill)" if result.unkilled else ""
    print(
        f"  {result.mode.name}: {result.equal}/{killed} runs killed with SIGKILL at a chosen "
        f"event and resumed with nothing but the journal reach the same end{ended}",
        flush=True,
    )
    for p in result.problems:
        print(f"    {p}", flush=True)


def verdict(results: Sequence[ModeResult]) -> str:
    """The final line: PASS when every mode's every run was killed mid-game and resumed
    to the same end, else MISS naming the modes that did not."""
    total = sum(r.runs for r in results)
    equal = sum(r.equal for r in results)
    missed = [r.mode.name for r in results if not r.passed]
    names = ", ".join(r.mode.name for r in results)
    if not missed:
        return f"kill-and-resume: PASS ({equal}/{total} runs reach the same end: {names})"
    return f"kill-and-resume: MISS ({equal}/{total} runs reach the same end; missed in {', '.join(missed)})"
