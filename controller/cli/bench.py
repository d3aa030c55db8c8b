"""``toptable bench [AREA ...]``: print the project's speed and memory figures.

Every benchmark lives in :mod:`controller.bench`, above everything it measures,
as a ``main(argv) -> int`` function that prints its figures; this module only
dispatches. Benchmarks are never timed unit tests: they print, and a person (or
``make bench``) reads them.
"""

from __future__ import annotations

import argparse
import importlib
from typing import Any

from controller.bench.dice_runs import STRANGER_RUNS
from controller.cli.flag_needs import only_with
from controller.cli.flags import OneOf, Whole
from controller.core.quoting import short_repr

# area -> (module, what it measures)
BENCHMARKS: dict[str, tuple[str, str]] = {
    "rules": ("controller.bench.rules", "throws scored per second"),
    "advisor": ("controller.bench.advisor", "milliseconds per advice"),
    "game": ("controller.bench.game", "games simulated per second, journal replay time"),
    "dice": ("controller.bench.dice", "dice reading speed and accuracy"),
    "camera": (
        "controller.bench.camera",
        "the picamera2 source at 1280x960, 30 fps on simulated Pi cameras",
    ),
    "board": ("controller.bench.board", "link latency and fault-injection figures"),
    "screens": ("controller.bench.screens", "render time and bytes sent to displays"),
    "daemon": ("controller.bench.daemon", "daemon memory, idle CPU and latency"),
    "events": (
        "controller.bench.scoreboard",
        "MQTT: event-to-scoreboard and page latency, memory, publishing CPU, flood, outage",
    ),
}


def register(sub: Any) -> None:
    """Add the ``bench`` subcommand."""
    p = sub.add_parser("bench", help="print speed and memory figures")
    areas = p.add_argument(
        "areas",
        nargs="*",
        metavar="AREA",
        type=OneOf.of(BENCHMARKS),
        help=f"one or more of {', '.join(BENCHMARKS)} (default: all)",
    )
    p.add_argument("--quick", action="store_true", help="smaller runs, for a smoke test")
    flags: tuple[tuple[str, dict[str, Any]], ...] = (
        ("--strangers", {"type": Whole(1, 1000), "metavar": "N", "help": "dice: only the "
         "strangers' figures over N generated dice sets, beside the real sets"}),
        ("--jobs", {"type": Whole(1, 64), "metavar": "J", "help": "dice: strangers calibrated "
         "at a time, one core each (default: the machine's cores)"}),
        ("--phone", {"action": "store_true", "help": "dice: only the 12-megapixel stranger's "
         "costs (calibration and reading on one core, model size, memory)"}),
        ("--two-tables", {"action": "store_true", "help": "dice: only pi-tray's and "
         "catan-webcam's photos as one owner's set"}),
        ("--cut-edges", {"action": "store_true", "help": "dice: only pi-tray's and "
         "catan-webcam's photos cut so that some dice lie out of view"}),
        *((f"--{name}", {"type": Whole(1, 1000), "metavar": "N", "help": f"dice: only {what}"})
          for name, what in STRANGER_RUNS.items()),
    )  # fmt: skip
    dice_only = [p.add_argument(flag, **kw) for flag, kw in flags]
    for option in dice_only:  # the other areas never read them
        only_with(p, option, (areas, ("dice",)))
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Run the chosen benchmarks in order; return the worst exit code."""
    areas = args.areas or list(BENCHMARKS)
    unknown = [a for a in areas if a not in BENCHMARKS]
    if unknown:
        print(
            f"toptable bench: unknown area {short_repr(unknown[0])}: "
            f"expected one of {', '.join(BENCHMARKS)}"
        )
        return 2
    worst = 0
    for area in areas:
        module_name, what = BENCHMARKS[area]
        print(f"== {area}: {what}", flush=True)
        module = importlib.import_module(module_name)
        argv = ["--quick"] if args.quick else []
        if area == "dice" and args.strangers is not None:
            argv += ["--strangers", str(args.strangers)]
        if area == "dice" and args.jobs is not None:
            argv += ["--jobs", str(args.jobs)]
        if area == "dice" and args.phone:
            argv += ["--phone"]
        if area == "dice" and args.two_tables:
            argv += ["--two-tables"]
        if area == "dice" and args.cut_edges:
            argv += ["--cut-edges"]
        for name in STRANGER_RUNS:
            if area == "dice" and getattr(args, name) is not None:
                argv += [f"--{name}", str(getattr(args, name))]
        worst = max(worst, int(module.main(argv)))
    return worst
