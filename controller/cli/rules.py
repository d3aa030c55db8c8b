"""``toptable data check/init``, ``toptable roll`` and ``toptable combat``."""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from typing import Any

from controller.cli.flags import REROLLS, SUPPORT, ExistingDir, ExistingFile, OutputDir, Text
from controller.core.errors import InvalidThrowError, TopTableError
from controller.core.symbols import parse_symbols, speed_after_rerolls
from controller.gamedata import data_dir, data_file
from controller.gamedata.cards import parse_card_specs
from controller.gamedata.datadir import DataCheck, check_data_dir, init_data_dir
from controller.gamedata.scenario import ScenarioError, load_scenario_file, parse_scenario
from controller.gamedata.warriors import WarriorFile, load_warriors
from controller.rules.combat import resolve_combat
from controller.rules.combat_types import CombatResult
from controller.rules.pools import attack_pool, attack_rerolls
from controller.rules.scoring import ThrowScorer
from controller.rules.speed import allowed_defences
from controller.rules.variants import Variants
from controller.rules.warriors import AbilityKind, Roster


def register(sub: Any) -> None:
    """Add ``data`` (check, init), ``roll`` and ``combat``."""
    data = sub.add_parser("data", help="game data files")
    data_sub = data.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    check = data_sub.add_parser("check", help="validate a data directory (all problems at once)")
    check.add_argument(
        "dir", nargs="?", type=ExistingDir(), help="data directory (default: the bundled demo set)"
    )
    check.set_defaults(func=cmd_data_check)
    init = data_sub.add_parser(
        "init", help="start your own data set: a self-contained copy of one, checked"
    )
    init.add_argument(
        "dir", type=OutputDir(), help="the new directory (must not exist, or be empty)"
    )
    init.add_argument(
        "--from",
        dest="source",
        type=ExistingDir(),
        help="the data directory to copy (default: the bundled demo set)",
    )
    init.set_defaults(func=cmd_data_init)

    roll = sub.add_parser("roll", help="score one final throw")
    roll.add_argument("--warrior", required=True, type=Text(), help="warrior (or form) name")
    roll.add_argument(
        "--form", type=Text(), help="the form fighting (default: the one --warrior names)"
    )
    roll.add_argument("--dice", required=True, type=Text(),
                      help="comma-separated symbols, e.g. kick,punch,star")  # fmt: skip
    roll.add_argument("--rerolls", type=REROLLS, default=0, help="rerolls made before this throw")
    roll.add_argument("--support", type=SUPPORT, default=0, help="support dice in the pool")
    roll.add_argument("--card", action="append", default=[], type=Text(),
                      metavar="NAME:SYM+SYM:DAMAGE", help="a card combo in hand (repeatable)")  # fmt: skip
    _common(roll)
    roll.set_defaults(func=cmd_roll)

    combat = sub.add_parser("combat", help="replay one combat from a scenario file")
    combat.add_argument(
        "scenario",
        type=ExistingFile(text=True),
        help="scenario JSON (format: controller/gamedata/scenario.py)",
    )
    _common(combat)
    combat.set_defaults(func=cmd_combat)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data",
        type=ExistingDir(),
        help="data directory (default: $TOPTABLE_DATA or the bundled demo set)",
    )
    p.add_argument(
        "--variant", action="append", default=[], type=Text(), help="a variant of docs/rules.md"
    )
    p.add_argument("--json", action="store_true", help="print JSON")


def load_roster(arg: str | None) -> Roster:
    """The roster of the data directory ``arg`` (default: bundled demo).

    Raises:
        DataError: the directory or its warriors file is missing or malformed.
    """
    return load_warrior_file(arg).roster


def load_warrior_file(arg: str | None) -> WarriorFile:
    """The warriors file of the data directory ``arg``: its roster and its die's faces.

    Raises:
        DataError: the directory or its warriors file is missing or malformed.
    """
    return load_warriors(data_file(data_dir(arg), "warriors.toml"))


def cmd_data_check(args: argparse.Namespace) -> int:
    """Validate every data file in a directory; print what was checked and every problem."""
    return _print_check(check_data_dir(args.dir))


def _print_check(report: DataCheck) -> int:
    for line in report.lines:
        print(line)
    if not report.ok:
        for p in report.problems:
            print(f"bad {p}")
        print(f"{len(report.problems)} problem(s) in {report.directory}")
        return 2
    print(f"{report.directory}: all data valid")
    return 0


def cmd_data_init(args: argparse.Namespace) -> int:
    """Copy a data directory (default: the demo set) to a new one, self-contained, and check it."""
    done = init_data_dir(args.dir, args.source)
    print(f"{args.dir}: copied {len(done.copied)} file(s) from {done.source}")
    for file, base in done.rebased:
        print(f'    {file}: base = "{base}" (copied beside it)')
    code = _print_check(done.check)
    if code == 0:
        print(
            f"next: replace the invented values with your cards' (set invented = false), "
            f"run `toptable data check {args.dir}`, and play with --data {args.dir}"
        )
    return code


def cmd_roll(args: argparse.Namespace) -> int:
    """Score one final throw."""
    wf = load_warrior_file(args.data)
    variants = Variants.from_names(args.variant)
    fighter = wf.roster.fighter(args.warrior, args.form)
    dice = parse_symbols(args.dice)
    wf.die.check_faces(dice, "--dice")
    pool = attack_pool(fighter, args.support)
    if len(dice) != pool:
        raise InvalidThrowError(
            f"{fighter.name} throws {pool} dice (power {fighter.power} + support {args.support}"
            + (" + 1 extra attack die" if fighter.has(AbilityKind.EXTRA_ATTACK_DIE) else "")
            + f"), got {len(dice)}"
        )
    most = attack_rerolls(fighter)
    if args.rerolls > most:
        raise InvalidThrowError(
            f"{fighter.name} may reroll at most {most} times, got --rerolls {args.rerolls}"
        )
    cards = list(parse_card_specs(args.card))
    score = ThrowScorer(fighter, cards, variants).score(dice)
    speed = speed_after_rerolls(args.rerolls)
    defence = allowed_defences(
        speed, variants, attacker_denies_dice=fighter.has(AbilityKind.NO_DEFENCE_DICE)
    )
    out = {
        "warrior": fighter.name,
        "dice": [str(d) for d in dice],
        "rerolls": args.rerolls,
        "speed": str(speed),
        "defence": [str(d) for d in defence],
        "options": [o.to_json() for o in score.options],
        "best": score.best.to_json(),
    }
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"{fighter.name}: {' '.join(out['dice'])}  ({speed} attack, {args.rerolls} reroll(s))")
    for opt in score.options:
        mark = "*" if opt is score.best else " "
        extra = " (doubled)" if opt.doubled else ""
        print(f" {mark} {opt.kind:<5} {opt.name:<24} {opt.damage:>3}{extra}")
    print(f"defender may: {', '.join(out['defence'])}")
    return 0


def cmd_combat(args: argparse.Namespace) -> int:
    """Replay one combat from a scenario file."""
    data = load_scenario_file(args.scenario)
    roster = load_roster(args.data)
    try:
        combat = parse_scenario(data, roster)
        if args.variant:
            merged = set(combat.variants.enabled()) | set(args.variant)
            combat = replace(combat, variants=Variants.from_names(merged))
        result = resolve_combat(combat)
    except TopTableError as exc:
        raise ScenarioError(f"{args.scenario}: {exc}") from exc
    if args.json:
        print(json.dumps(result.to_json()))
    else:
        print(describe(result))
    return 0


def describe(result: CombatResult) -> str:
    """A few readable lines about a combat."""
    a = result.attack
    lines = [
        f"{a.attacker} attacks {a.defender}: {a.pool} dice, {a.rerolls} reroll(s), {a.speed} attack",
        f"attack: {a.option.name} ({a.option.kind}) for {a.option.damage}; "
        f"defender may: {', '.join(str(d) for d in a.defence)}",
        *result.notes,
    ]
    for role, side in (("attacker", result.attacker), ("defender", result.defender)):
        form = f" as {side.form}" if side.form else ""
        state = "ELIMINATED" if side.eliminated else f"{side.endurance_left} endurance left"
        lines.append(f"{role} {side.warrior}{form}: {side.damage_taken} damage, {state}")
    if result.counter_attack and result.counter is None:
        lines.append(f"{a.defender} may counter-attack")
    return "\n".join(lines)
