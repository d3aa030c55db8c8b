"""``toptable simulate`` and ``toptable game ...``: whole games, journals, exports."""

from __future__ import annotations

import argparse
import json
from typing import Any

from controller.cli.events import add_tables_arguments, cmd_tables
from controller.cli.flag_needs import not_with
from controller.cli.flags import (
    PLAYERS,
    SEED,
    STORY_PLAYERS,
    ExistingDir,
    ExistingFile,
    FlagError,
    JournalFile,
    Text,
    Whole,
)
from controller.game.bots import BOTS
from controller.game.perft import STATES as PERFT_STATES
from controller.game.session import DEFAULT_PLAY
from controller.game.state import MAX_PLAYERS, MAX_STORY_PLAYERS, MIN_PLAYERS, Length
from controller.rules.variants import Variants

GAMES = Whole(1, 1_000_000)
PLAY_PLAYERS, PLAY_LENGTH, PLAY_SEED = DEFAULT_PLAY
DATA_HELP = "data directory (default: $TOPTABLE_DATA or the demo set)"
RESUME_DATA_HELP = (
    "the data the game was played with, where it is now (default: the folder the journal "
    "recorded); checked against the journal's record"
)
RESUME_BOARD_HELP = (
    "the board layout the game was played on, where it is now, when the table's config "
    "named one outside the data folder (default: where the journal recorded it); checked "
    "against the journal's record"
)


def register(sub: Any) -> None:
    """Add ``simulate``, ``game`` and ``story`` subcommands."""
    sim = sub.add_parser("simulate", help="simulate whole games with bot players")
    sim.add_argument(
        "--players", type=PLAYERS, default=4, help=f"{MIN_PLAYERS}..{MAX_PLAYERS} (default 4)"
    )
    sim.add_argument("--length", choices=[x.value for x in Length], default=Length.ROUNDS10.value)
    games = sim.add_argument(
        "--games", type=GAMES, default=100, help="how many games (default 100)"
    )
    sim.add_argument("--seed", type=SEED, default=0, help="seed of game 1 (game i uses seed+i)")
    bot = sim.add_argument(
        "--bot", choices=sorted(BOTS), default="greedy", help="bot for every seat"
    )
    variant = sim.add_argument(
        "--variant", action="append", default=[], type=Text(), help="a variant of docs/rules.md"
    )
    sim.add_argument("--data", type=ExistingDir(), help=DATA_HELP)
    sim.add_argument("--json", action="store_true", help="print JSON")
    story = sim.add_argument(
        "--story", action="store_true", help="Story-mode games (docs/rules.md §12, 2..4 players)"
    )
    tables = add_tables_arguments(sim, standalone=False)
    for option in (games, bot, variant, story):  # each table plays one greedy Tournament game
        not_with(sim, option, tables)
    sim.set_defaults(func=cmd_simulate)

    game = sub.add_parser("game", help="journalled games: play with bots, check, undo, export")
    gsub = game.add_subparsers(dest="game_command", metavar="COMMAND", required=True)
    play = gsub.add_parser("play", help="play (or resume) a bot game journalled to JOURNAL")
    play.add_argument(
        "journal",
        type=JournalFile(),
        help="journal file (SQLite); resumed when it exists, with the set-up, seed and "
        "data set it records (a flag that contradicts them is refused)",
    )
    play.add_argument(
        "--players", type=PLAYERS, default=None, help=f"a new game's (default {PLAY_PLAYERS})"
    )
    play.add_argument(
        "--length",
        choices=[x.value for x in Length],
        default=None,
        help=f"a new game's ({PLAY_LENGTH.value})",
    )
    play.add_argument(
        "--seed", type=SEED, default=None, help=f"a new game's seed (default {PLAY_SEED})"
    )
    play.add_argument("--data", type=ExistingDir(), help=DATA_HELP)
    play.add_argument("--json", action="store_true", help="print the final state as JSON")
    play.add_argument("--story", action="store_true", help="a Story-mode game (2..4 players)")
    play.add_argument(
        "--variant",
        action="append",
        default=[],
        type=Text(),
        help="a new game's variant of docs/rules.md (repeatable)",
    )
    play.set_defaults(func=cmd_play)
    check = gsub.add_parser("check", help="open a journal, verify every row and replay it")
    check.add_argument("journal", type=ExistingFile())
    check.add_argument("--data", type=ExistingDir(), help=RESUME_DATA_HELP)
    check.add_argument("--board", type=ExistingFile(), help=RESUME_BOARD_HELP)
    check.add_argument("--json", action="store_true")
    check.set_defaults(func=cmd_check)
    undo = gsub.add_parser("undo", help="undo the last player action of a journalled game")
    undo.add_argument("journal", type=ExistingFile())
    undo.add_argument("--data", type=ExistingDir(), help=RESUME_DATA_HELP)
    undo.add_argument("--board", type=ExistingFile(), help=RESUME_BOARD_HELP)
    undo.set_defaults(func=cmd_undo)
    export = gsub.add_parser("export", help="a journalled game as a readable log")
    export.add_argument("journal", type=ExistingFile())
    export.add_argument("--data", type=ExistingDir(), help=RESUME_DATA_HELP)
    export.add_argument("--board", type=ExistingFile(), help=RESUME_BOARD_HELP)
    fmt = export.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="JSON (default)")
    fmt.add_argument("--text", action="store_true", help="text, one line per event")
    export.set_defaults(func=cmd_export)
    perft = gsub.add_parser(
        "perft",
        help="count the legal decision sequences from a fixed state (the engine's oracle)",
        description="Count the decision sequences (actions and table inputs) of length "
        "1..DEPTH from one of the fixed states; tests/data/legal_counts/STATE.json holds "
        "the expected counts (regenerate with --json, deliberately).",
    )
    perft.add_argument(
        "state",
        choices=list(PERFT_STATES),
        metavar="STATE",
        help="one of: " + ", ".join(PERFT_STATES),
    )
    perft.add_argument(
        "--depth", type=Whole(1, 4), default=2, help="deepest count, 1..4 (default 2)"
    )
    perft.add_argument(
        "--data", type=ExistingDir(), help="data directory (default: the bundled demo set)"
    )
    perft.add_argument("--json", action="store_true", help="print JSON (the data file's format)")
    perft.set_defaults(func=cmd_perft)

    story = sub.add_parser("story", help="Story mode (docs/rules.md §12)")
    ssub = story.add_subparsers(dest="story_command", metavar="COMMAND", required=True)
    ssim = ssub.add_parser("simulate", help="simulate Story-mode games (as simulate --story)")
    ssim.add_argument(
        "--players", type=STORY_PLAYERS, default=2, help=f"{MIN_PLAYERS}..{MAX_STORY_PLAYERS}"
    )
    ssim.add_argument("--games", type=GAMES, default=100)
    ssim.add_argument("--seed", type=SEED, default=0)
    ssim.add_argument("--bot", choices=sorted(BOTS), default="greedy", help="bot for every seat")
    ssim.add_argument("--data", type=ExistingDir(), help=DATA_HELP)
    ssim.add_argument("--json", action="store_true")
    ssim.set_defaults(func=cmd_story_simulate)


def cmd_simulate(args: argparse.Namespace) -> int:
    """Simulate games and print the figures (or play N tables over MQTT with --tables)."""
    if args.tables:
        return cmd_tables(args)
    from controller.game.simulate import simulate
    from controller.gamedata.bundle import load_game_data

    if args.story and args.players > MAX_STORY_PLAYERS:
        raise FlagError(
            f"--story is for {MIN_PLAYERS}..{MAX_STORY_PLAYERS} players, got --players {args.players}"
        )
    data = load_game_data(args.data)
    variants = Variants.from_names(args.variant)
    report = simulate(
        args.players,
        Length(args.length),
        args.games,
        args.seed,
        data,
        args.bot,
        variants,
        story=args.story,
    )
    out = report.to_json()
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    if args.story:
        print(
            f"{report.games} Story games of {args.players} players ({args.bot} bots, seed {args.seed})"
        )
        print(f"games per CPU-second: {report.games_per_cpu_second:.1f} "
              f"({report.cpu_seconds:.2f} CPU-s; {report.games_per_second:.1f} per wall second)")  # fmt: skip
        print("winners: " + ", ".join(f"{k} {v}" for k, v in sorted(report.winners.items())))
        print("average victory points: "
              + ", ".join(f"{k} {v:.2f}" for k, v in report.victory_points.items()))  # fmt: skip
        return 0
    print(
        f"{report.games} games of {args.players} players ({args.length}, {args.bot} bots, seed {args.seed})"
    )
    print(f"games per second: {report.games_per_second:.1f}")
    print("winners: " + ", ".join(f"{k} {v}" for k, v in sorted(report.winners.items())))
    print(f"average warriors left: {report.warriors_left:.2f}")
    print(f"average combats per game: {report.combats:.2f}")
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    """Play or resume a journalled bot game."""
    from controller.core.kinds import GameKind
    from controller.game.session import run_journaled

    kind = GameKind.STORY if args.story else None
    length = Length(args.length) if args.length is not None else None
    variants = Variants.from_names(args.variant) if args.variant else None
    out = run_journaled(args.journal, args.players, length, args.seed, args.data, kind, variants)
    summary = out.state.summary()
    if args.json:
        print(json.dumps(summary, sort_keys=True))
    else:
        players = out.state.players
        print(
            f"{args.journal}: {out.events} events; winners: {', '.join(players[w] for w in out.winners)}"
        )
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Verify and replay a journal."""
    import time

    from controller.game.session import TableGame

    t0 = time.perf_counter()
    with TableGame.resume(
        args.journal, writable=False, data_dir=args.data, board=args.board
    ) as game:
        ms = (time.perf_counter() - t0) * 1000
        s = game.state
        if args.json:
            print(
                json.dumps(
                    {**s.summary(), "game_id": game.journal.game_id, "replay_ms": round(ms, 1)}
                )
            )
        else:
            print(
                f"{args.journal}: game {game.journal.game_id}, {len(game.journal)} rows, "
                f"replayed in {ms:.1f} ms; phase {s.phase}, round {s.round}, warriors {list(s.counts())}"
            )
    return 0


def cmd_undo(args: argparse.Namespace) -> int:
    """Undo the last player action."""
    from controller.game.session import TableGame

    with TableGame.resume(args.journal, data_dir=args.data, board=args.board) as game:
        rows = len(game.journal)
        event = game.undo()
        print(f"undone: {event.to_dict()}")
        if (shuffles := len(game.journal) - rows - 1) > 0:  # the table's, after it
            print(f"with the {shuffles} deck shuffles that followed it")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    """Print a journalled game's log."""
    from controller.game.export import export_json, export_text
    from controller.game.session import TableGame

    with TableGame.resume(
        args.journal, writable=False, data_dir=args.data, board=args.board
    ) as game:
        log = export_json(game.config, game.data, game.events())
    if args.text:
        print(export_text(log), end="")
    else:
        print(json.dumps(log, indent=1))
    return 0


def cmd_perft(args: argparse.Namespace) -> int:
    """Print the perft counts of a fixed state."""
    from controller.game.perft import counts
    from controller.gamedata import DEMO_DIR

    out = counts(args.state, args.depth, args.data or str(DEMO_DIR))
    if args.json:
        print(json.dumps(out.to_json(), indent=1))
        return 0
    print(f"{out.state}: {out.description} ({out.prefix_events} events in, {out.phase})")
    for depth, n in sorted(out.counts.items()):
        print(f"depth {depth}: {n}")
    return 0


def cmd_story_simulate(args: argparse.Namespace) -> int:
    """Simulate Story-mode games: ``toptable simulate --story`` (the same bots, dice and
    simulator)."""
    args.story, args.length, args.variant, args.tables = True, Length.ROUNDS10.value, [], 0
    return cmd_simulate(args)
