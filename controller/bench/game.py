"""``toptable bench game``: games simulated per second and journal replay time.

Targets (issue 6): >= 100 full 4-player 10-round games per second on one core;
replaying a 10-round journal from disk <= 200 ms. CPU seconds are printed beside
wall seconds because a shared machine slows the wall clock.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from controller.game.session import TableGame, run_journaled
from controller.game.simulate import simulate
from controller.game.state import Length
from controller.gamedata.bundle import load_game_data


def main(argv: list[str]) -> int:
    """Print the figures; return 0."""
    p = argparse.ArgumentParser(prog="toptable bench game")
    p.add_argument("--quick", action="store_true", help="a smoke run")
    p.add_argument("--games", type=int, default=0)
    args = p.parse_args(argv)
    games = args.games or (20 if args.quick else 300)
    data = load_game_data()
    simulate(4, Length.ROUNDS10, 3, 999, data)  # warm the caches
    batch = 10 if args.quick else 25
    for bot in ("greedy", "random"):
        cpu_total = wall_total = 0.0
        best = 0.0
        events = combats = 0.0
        for start in range(0, games, batch):
            n = min(batch, games - start)
            cpu0, wall0 = time.process_time(), time.perf_counter()
            report = simulate(4, Length.ROUNDS10, n, 1 + start, data, bot)
            cpu = time.process_time() - cpu0
            cpu_total += cpu
            wall_total += time.perf_counter() - wall0
            best = max(best, n / cpu) if cpu > 0 else best
            events += report.events * n
            combats += report.combats * n
        print(
            f"simulate 4 players rounds10 ({bot} bots): {games} games, "
            f"{games / wall_total:.1f} games/s wall, {games / cpu_total:.1f} games/CPU-s, "
            f"best batch {best:.1f} games/CPU-s (target >= 100); "
            f"{events / games:.0f} events/game, {combats / games:.1f} combats/game"
        )
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bench.journal"
        t0 = time.perf_counter()
        out = run_journaled(path, 4, Length.ROUNDS10, 7)
        write_s = time.perf_counter() - t0
        print(
            f"journalled game: {out.events} events written in {write_s * 1000:.0f} ms "
            f"({out.events / write_s:.0f} events/s, WAL + synchronous=FULL)"
        )
        best = float("inf")
        for _ in range(3 if args.quick else 7):
            t0 = time.perf_counter()
            with TableGame.resume(path, data) as game:
                if not game.state.over:
                    print("replay: the game did not end (bug)")
                    return 1
            best = min(best, time.perf_counter() - t0)
        print(f"replay a 10-round journal from disk: {best * 1000:.1f} ms best (target <= 200 ms)")
        t0 = time.perf_counter()
        with TableGame.resume(path) as game:
            pass
        print(
            f"replay including loading the data files: {(time.perf_counter() - t0) * 1000:.1f} ms"
        )
    return 0
