"""``toptable demo`` and ``toptable run``."""

from __future__ import annotations

import argparse
import json
import logging
import sys
from pathlib import Path
from typing import Any

from controller.cli.events import add_demo_arguments, demo_names, demo_settings
from controller.cli.flag_needs import not_with
from controller.cli.flags import (
    CONFIG_FILE,
    PLAYERS,
    SEED,
    ExistingDir,
    FlagError,
    JournalFile,
    OutputDir,
    Text,
)
from controller.core.kinds import GameKind
from controller.core.quoting import printable
from controller.game.state import Length
from controller.storage.origin import ContradictionError, refuse_contradiction
from controller.storage.place import too_long_for_sqlite
from controller.table.settings import TOPDICE

DEMO_MODES = (TOPDICE, *(k.value for k in GameKind))
"""``toptable demo --mode``: a game kind (the dice game's two modes, or a companion mode);
``topdice``, the dice game's first name, is still taken for ``tournament``."""


def register(sub: Any) -> None:
    """Add ``run`` and ``demo``."""
    run = sub.add_parser("run", help="run the table daemon (on the Pi, under systemd)")
    run.add_argument(
        "--config",
        type=CONFIG_FILE,
        help="config file (default: /etc/toptable/config.toml)",
    )
    run.set_defaults(func=cmd_run)

    demo = sub.add_parser("demo", help="play a whole simulated game through every real code path")
    mode = demo.add_argument(
        "--mode",
        default=None,
        choices=DEMO_MODES,
        help="the game: tournament or story (the dice game) or a companion mode "
        "(default tournament, or the --resume'd journal's)",
    )
    demo.add_argument(
        "--seed",
        type=SEED,
        default=None,
        help="the game's seed (same seed, same game; default 1, or the --resume'd journal's)",
    )
    demo.add_argument("--players", type=PLAYERS, default=None, metavar="N",
                      help="2..6 (default 2, or the --resume'd journal's)")  # fmt: skip
    demo.add_argument(
        "--length",
        default=None,
        choices=[x.value for x in Length],
        help="game length (default rounds5, or the --resume'd journal's)",
    )
    demo.add_argument("--fast", action="store_true", help="shorter waits (for CI)")
    story = demo.add_argument(
        "--story",
        action="store_true",
        help="Story mode (docs/rules.md §12): 2..4 players, 13 squares",
    )
    not_with(demo, story, (mode, (GameKind.TOURNAMENT.value, TOPDICE)))  # it played Story
    demo.add_argument(
        "--journal", type=JournalFile(), help="the SQLite journal (default: OUT/journal.sqlite)"
    )
    demo.add_argument(
        "--resume",
        action="store_true",
        help="continue the game in --journal (its set-up, seed and data set are the journal's)",
    )
    demo.add_argument(
        "--out", type=OutputDir(), default=Path("out/demo"), help="where the GIF and log go"
    )
    demo.add_argument(
        "--data", type=ExistingDir(), help="data directory (default: the bundled demo set)"
    )
    demo.add_argument(
        "--variant", action="append", default=[], type=Text(), help="a variant of docs/rules.md"
    )
    demo.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_demo_arguments(demo)
    demo.set_defaults(func=cmd_demo)


def cmd_run(args: argparse.Namespace) -> int:
    """Run the daemon until SIGTERM."""
    from controller.daemon.run import run_command

    return run_command(args.config)


def demo_kind(args: argparse.Namespace) -> GameKind:
    """The game ``--mode`` (and ``--story``, the Story mode's first flag) name; with
    ``--resume``, the journal's game, which they may repeat but not contradict.

    Raises:
        JournalError: (``--resume``) no journal there, or a damaged one.
        ContradictionError: (``--resume``) ``--mode``/``--story`` names another game.
    """
    mode = getattr(args, "mode", None)
    story = getattr(args, "story", False)
    named = None if mode is None else GameKind.TOURNAMENT if mode == TOPDICE else GameKind(mode)
    if story and (named is None or named.plays_dice):
        named = GameKind.STORY
    if not getattr(args, "resume", False):
        return named or GameKind.TOURNAMENT
    from controller.daemon.journals import held_kind

    journal = args.journal or resumed_journal(args.out, named)
    kept = held_kind(journal)
    if story and mode is None and kept is not GameKind.STORY:
        raise ContradictionError(
            f"{journal}: --story contradicts the journal's {kept.value} game "
            "(leave --story out to resume the journal's game, or start a new game at another path)"
        )
    refuse_contradiction(journal, "--mode", named, kept)
    return kept


def resumed_journal(out: Path, kind: GameKind | None) -> Path:
    """The journal ``demo --resume`` continues when ``--journal`` is left out: the one the
    demo keeps in ``out`` for ``kind`` (None: the dice game's)."""
    from controller.demo.scratch import JOURNAL_NAME

    if kind is not None and not kind.plays_dice:
        return out / kind.companion_journal_name
    return out / JOURNAL_NAME


def cmd_demo(args: argparse.Namespace) -> int:
    """Run the demo and print its summary.

    Raises:
        FlagError: the journal the demo keeps in ``--out`` (no ``--journal``) would lie at a
            path SQLite cannot open.
    """
    kind = demo_kind(args)
    if args.journal is None:
        kept = resumed_journal(args.out, kind)
        if (long := too_long_for_sqlite(kept, creating=not kept.is_file())) is not None:
            raise FlagError(f"argument --out: the demo's journal {printable(str(kept))}: {long}")
    if not kind.plays_dice:
        return cmd_companion_demo(args, kind)
    from controller.demo.runner import DemoOptions, run_demo

    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    summary = run_demo(
        DemoOptions(
            seed=args.seed,
            players=len(demo_names(args)) or args.players,
            names=demo_names(args),
            length=Length(args.length) if args.length is not None else None,
            fast=args.fast,
            journal=args.journal,
            resume=args.resume,
            out=args.out,
            data=args.data,
            variants=tuple(args.variant),
            events=demo_settings(args),
            kind=kind,
        )
    )
    if args.json:
        print(json.dumps(summary.to_json()))
        return _delivered(summary.delivery, summary.undelivered, quiet=True)
    s = summary
    print(f"toptable demo (seed {s.seed}): {', '.join(s.players)}, {s.length}, {s.seconds} s")
    if s.victory_points is not None:
        print(f"  story: winner {', '.join(s.winners) or 'none'}; victory points "
              + ", ".join(f"{k} {v}" for k, v in s.victory_points.items())
              + f" (players: {s.points})")  # fmt: skip
    else:
        print(f"  winner: {', '.join(s.winners) or 'none'}; warriors left: "
              + ", ".join(f"{k} {v}" for k, v in s.warriors_left.items()))  # fmt: skip
    print(f"  rounds {s.rounds}, combats {s.combats}, throws read {s.throws_read}, "
          f"moves from the board {s.moves_from_board}, button presses {s.button_presses}")  # fmt: skip
    print(f"  reads that disagreed with the dice thrown: {s.reads_disagreeing} "
          f"({s.reads_flagged} flagged and fixed, {s.silent_misreads} silent)")  # fmt: skip
    for note in s.notes:
        print(f"  note: {note}")
    print(f"  journal {s.journal}\n  log {s.log}\n  screens {s.gif}")
    return _delivered(s.delivery, s.undelivered)


DICE_ONLY = ("--story", "--length", "--variant", "--data")
"""``demo``'s flags that set up the dice game, which a companion mode has none of."""


def cmd_companion_demo(args: argparse.Namespace, kind: GameKind) -> int:
    """Play a companion mode (``kind``) by bots through the table and print the summary.

    Raises:
        FlagError: a flag of the dice game alone (:data:`DICE_ONLY`) is given.
    """
    from controller.demo.companion import run_companion_demo

    for flag in DICE_ONLY:
        if getattr(args, flag.removeprefix("--")):
            raise FlagError(
                f"{flag} sets up the dice game (tournament or story), not {kind.value}: leave it out"
            )

    s = run_companion_demo(
        kind.value,
        seed=args.seed,
        players=len(demo_names(args)) or args.players,
        names=demo_names(args),
        out=args.out,
        fast=args.fast,
        journal=args.journal,
        resume=args.resume,
        events=demo_settings(args),
    )
    if args.json:
        print(json.dumps(s.to_json()))
        return _delivered(s.delivery, s.undelivered, quiet=True)
    print(f"toptable demo --mode {s.mode} (seed {s.seed}): {', '.join(s.players)}, {s.seconds} s")
    print(f"  winner: {s.winner or 'none'}; step {s.step}")
    print(f"  actions {s.actions}, refused {s.refused}, undone {s.undos}, "
          f"button presses {s.button_presses}, screens drawn {s.screens_drawn}")  # fmt: skip
    for note in s.notes:
        print(f"  note: {note}")
    print(f"  journal {s.journal}\n  screens {s.gif or '(none with --fast)'}")
    return _delivered(s.delivery, s.undelivered)


def _delivered(delivery: str | None, undelivered: int | None, quiet: bool = False) -> int:
    """Say how much of the game the broker took (--mqtt); 1 if some still waits in the journal.

    ``quiet`` (--json, whose stdout is the summary): said on stderr, and only when some waits.
    """
    if delivery is None:
        return 0
    if undelivered:
        print(f"toptable demo: {delivery}", file=sys.stderr)
        return 1
    if not quiet:
        print(f"  events: {delivery}")
    return 0
