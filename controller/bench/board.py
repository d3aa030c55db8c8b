"""``toptable bench board``: the board link's figures (a shorter stress run with --quick)."""

from __future__ import annotations

import argparse
import json
import logging

from hardware.board.stress import StressConfig, format_report, run_stress


def main(argv: list[str]) -> int:
    """Run the stress test (quick: 1,000 events, faults more often); print the figures."""
    p = argparse.ArgumentParser(prog="toptable bench board")
    p.add_argument(
        "--quick", action="store_true", help="1,000 events, unplug every 3 s, reset every 7 s"
    )
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    logging.getLogger("hardware.board").setLevel(logging.ERROR)  # the faults are on purpose
    cfg = StressConfig()
    if args.quick:
        cfg = StressConfig(events=1000, unplug_every=3.0, reset_every=7.0, latency_events=200)
    report = run_stress(cfg)
    print(json.dumps(report.as_dict()) if args.json else format_report(cfg, report))
    return 0 if report.passed() else 1
