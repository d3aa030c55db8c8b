"""``toptable companion MODE replay SCRIPT.json [--json]``.

Registered like the other command modules: :func:`register` adds the subcommand and
sets ``func(args) -> int``; project errors become one line and exit 2 in ``controller.cli``.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from controller.cli.flags import ExistingFile
from controller.companion.registry import MODES
from controller.companion.replay import replay
from controller.core.jsonfile import read_json


def register(sub: Any) -> None:
    """Add ``companion``."""
    comp = sub.add_parser(
        "companion", help="companion modes: the table keeps the numbers of other Dragon Ball games"
    )
    comp.add_argument("mode", choices=sorted(k.value for k in MODES), help="the game")
    what = comp.add_subparsers(dest="companion_command", metavar="COMMAND")
    what.required = True
    rep = what.add_parser("replay", help="play a script of actions and print the final state")
    rep.add_argument("script", type=ExistingFile(text=True), help="the script (JSON)")
    rep.add_argument("--json", action="store_true", help="print the final state as JSON")
    rep.set_defaults(func=cmd_replay)


def read_script(path: Path) -> Any:
    """The script file's JSON; DataError naming the file if it cannot be read or parsed."""
    return read_json(path)


def cmd_replay(args: argparse.Namespace) -> int:
    """Play the script and print the final state."""
    out = replay(args.mode, read_script(args.script), source=str(args.script))
    if args.json:
        print(json.dumps(out, sort_keys=True))
        return 0
    print(f"toptable companion {args.mode}: step {out.get('step')}, turn {out['turn'] or '-'}, "
          f"winner {out['winner'] or '-'}")  # fmt: skip
    for p in out["players"]:
        numbers = ", ".join(f"{k} {v}" for k, v in p.items() if k != "name")
        print(f"  {p['name']}: {numbers}")
    for r in out["refused"]:
        print(f"  refused action {r['index']} ({r['do']}): {r['reason']} [{r['rule']}]")
    return 0
