"""``toptable demo`` (and, as the daemon grows, ``toptable run``)."""

from __future__ import annotations

import argparse
from typing import Any

from controller.gamedata import DEMO_DIR

EXAMPLE_COMBAT = DEMO_DIR / "scenarios" / "kefla-vs-cabba.json"


def register(sub: Any) -> None:
    """Add ``demo``."""
    demo = sub.add_parser("demo", help="run the demo on the bundled example data")
    demo.add_argument("--json", action="store_true", help="print JSON")
    demo.set_defaults(func=cmd_demo)


def cmd_demo(args: argparse.Namespace) -> int:
    """Replay the bundled example combat (the whole simulated game comes with the daemon)."""
    from controller.cli import main

    argv = ["combat", str(EXAMPLE_COMBAT)] + (["--json"] if args.json else [])
    return main(argv)
