"""``toptable bench daemon``: the daemon's figures during the demo.

- peak memory (RSS) of a whole demo game, which runs the daemon's every part;
- settle-to-screen latency: from the frame the camera thread found a throw settled
  in to the screens having drawn it (the demo's own probe, a handler of the loop);
- idle CPU: ``toptable run`` on the simulated table with nothing happening;
- the kill test, for every game kind (:mod:`controller.bench.resume`): ``toptable
  demo --seed S --journal J`` killed with SIGKILL at a chosen event of its game
  (:mod:`controller.bench.kill`) and started again with nothing but ``--journal J
  --resume`` reaches the same end as an uninterrupted run, 20 times per mode.

The demo and ``toptable run`` run as child processes: their memory, CPU and
deaths are what is measured.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from controller.bench.kill import toptable
from controller.bench.resume import JOBS, MODES, print_mode, run_all
from controller.bench.resume import verdict as resume_verdict
from controller.core.quoting import short_repr
from controller.gamedata import DEMO_DIR
from vision.images import write_image

TARGET_RSS_MB = 150
TARGET_IDLE_CPU = 5.0
TARGET_LATENCY_MS = 150
KILLS = 20
QUICK_KILLS = 3
DEMO_TIMEOUT_S = 900.0
LONG_DEMO = ("--players", "4", "--length", "rounds10")  # the second figure


def demo_once(out: Path, seed: int, extra: tuple[str, ...] = ()) -> tuple[dict[str, Any], float]:
    """Run one demo in a child process; return its summary and the child's peak RSS in MB
    (its own, from ``wait4``: not the largest of every child this process has had).

    Raises:
        RuntimeError: the demo failed, printed no JSON object or ran past 15 minutes.
    """
    cmd = toptable("demo", "--fast", "--json", "--seed", str(seed), "--out", str(out), *extra)
    out.mkdir(parents=True, exist_ok=True)
    with (out / "stdout.txt").open("w+") as stdout, (out / "stderr.txt").open("w+") as stderr:
        proc = subprocess.Popen(cmd, stdout=stdout, stderr=stderr, text=True)
        timer = threading.Timer(DEMO_TIMEOUT_S, proc.kill)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(status)
        stdout.seek(0)
        stderr.seek(0)
        lines, errors = stdout.read().strip().splitlines(), stderr.read().strip()
    if proc.returncode != 0:
        raise RuntimeError(f"toptable demo failed ({proc.returncode}): {errors[-500:]}")
    try:
        summary = json.loads(lines[-1]) if lines else None
    except json.JSONDecodeError:
        summary = None
    if not isinstance(summary, dict):
        raise RuntimeError("toptable demo printed no JSON object")
    return summary, usage.ru_maxrss / 1024


def idle_cpu(seconds: float, folder: Path) -> float | None:
    """CPU use (% of one core) of ``toptable run`` with nothing happening: a still tray before
    the camera, the board in its own process (as the Pico is), every other device simulated."""
    link = folder / "board"
    board = subprocess.Popen(
        toptable("board", "sim", "--link", str(link)),
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    proc: subprocess.Popen[bytes] | None = None
    try:
        deadline = time.monotonic() + 30
        while not link.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        if not link.exists():
            return None
        config = folder / "idle.toml"
        demo = DEMO_DIR
        text = (demo / "config.toml").read_text(encoding="utf-8")
        text = text.replace('data_dir = "."', f'data_dir = "{demo}"')
        text = text.replace('layout = "board.toml"', f'layout = "{demo / "board.toml"}"')
        text = text.replace(
            'backend = "simulated"', f'backend = "serial"\nport = "{os.path.realpath(link)}"'
        )
        text = text.replace(
            'journal = "~/.local/state/toptable/demo-journal.sqlite"',
            f'journal = "{folder / "idle.sqlite"}"',
        )
        text = text.replace(
            'source = "synthetic"', f'source = "folder"\npath = "{_empty_tray(folder)}"'
        )
        config.write_text(text, encoding="utf-8")
        proc = subprocess.Popen(
            toptable("run", "--config", str(config)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(8.0)  # start-up: imports, model, devices
        if proc.poll() is not None:
            return None
        start_cpu, start = _cpu_seconds(proc.pid), time.monotonic()
        time.sleep(seconds)
        used = _cpu_seconds(proc.pid) - start_cpu
        return 100.0 * used / (time.monotonic() - start)
    finally:
        for p in (proc, board):
            if p is not None and p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()


def _empty_tray(folder: Path) -> Path:
    """A folder with one picture of the empty tray (a still camera)."""

    from vision.synth.scenes import Renderer

    images = folder / "tray"
    images.mkdir(exist_ok=True)
    write_image(images / "empty.png", Renderer(seed=1).render([]))
    return images


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def _rss_verdict(mb: float) -> str:
    return f"{'meets' if mb <= TARGET_RSS_MB else 'MISSES'} <= {TARGET_RSS_MB} MB"


def _whole(low: int, high: int) -> Any:
    """An argparse type: a whole number from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = low - 1
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(
                f"expected a whole number {low}..{high}, got {short_repr(text)}"
            )
        return value

    return parse


def main(argv: list[str]) -> int:
    """Print the figures; exit 0 (figures are read, not asserted; the kill test's last line
    says PASS or MISS)."""
    parser = argparse.ArgumentParser(prog="toptable bench daemon")
    parser.add_argument(
        "--quick", action="store_true", help=f"{QUICK_KILLS} kill runs per mode instead of {KILLS}"
    )
    parser.add_argument(
        "--kills", type=_whole(1, 1000), default=None, metavar="N", help="kill runs per mode"
    )
    parser.add_argument(
        "--mode",
        action="append",
        choices=[m.name for m in MODES],
        help="a mode to kill and resume (again for more; default: every mode)",
    )
    parser.add_argument(
        "--jobs", type=_whole(1, 16), default=JOBS, metavar="N", help="kill runs at a time"
    )
    parser.add_argument("--seed", type=_whole(0, 2**31 - 1), default=11)
    args = parser.parse_args(argv)
    runs = args.kills if args.kills is not None else (QUICK_KILLS if args.quick else KILLS)
    modes = [m for m in MODES if args.mode is None or m.name in args.mode]
    with tempfile.TemporaryDirectory(prefix="toptable-bench-") as tmp:
        folder = Path(tmp)
        summary, rss = demo_once(folder / "reference", args.seed)
        lat = summary.get("latency_ms", {})
        print(f"demo (seed {args.seed}, 2 players, rounds5, --fast): {summary['seconds']} s, "
              f"{summary['throws_read']} throws read, {summary['silent_misreads']} silent misreads")  # fmt: skip
        print(f"  peak RSS: {rss:.0f} MB  [{_rss_verdict(rss)}]")
        if lat:
            verdict = "meets" if lat["p95"] <= TARGET_LATENCY_MS else "MISSES"
            print(f"  settled throw -> screens drawn: median {lat['median']} ms, p95 {lat['p95']} ms, "
                  f"max {lat['max']} ms  [{verdict} <= {TARGET_LATENCY_MS} ms]")  # fmt: skip
        long, long_rss = demo_once(folder / "long", args.seed, LONG_DEMO)
        print(f"demo (seed {args.seed}, 4 players, rounds10, --fast): {long['seconds']} s, "
              f"peak RSS {long_rss:.0f} MB  [{_rss_verdict(long_rss)}]")  # fmt: skip
        cpu = idle_cpu(10.0, folder)
        if cpu is None:
            print("  idle CPU: toptable run did not start (see toptable run --config)")
        else:
            verdict = "meets" if cpu <= TARGET_IDLE_CPU else "MISSES"
            print(f"  idle CPU of toptable run (still tray, no events): {cpu:.1f}% of one core  "
                  f"[{verdict} <= {TARGET_IDLE_CPU}%]")  # fmt: skip
        print(
            f"kill test (seed {args.seed}, {runs} runs per mode, {args.jobs} at a time):",
            flush=True,
        )
        started = time.monotonic()
        played = {"tournament": summary}  # the same game as the kill test's Tournament
        results = run_all(modes, runs, args.seed, folder / "kills", print_mode, args.jobs, played)
        print(f"{resume_verdict(results)} [{time.monotonic() - started:.0f} s]")
    return 0
