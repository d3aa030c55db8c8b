"""``toptable data check``, ``toptable roll`` and ``toptable combat``."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from controller.core.errors import DataError, InvalidThrowError, TopTableError
from controller.core.symbols import parse_symbols, speed_after_rerolls
from controller.gamedata import data_dir, data_file
from controller.gamedata.cards import parse_card_specs
from controller.gamedata.scenario import ScenarioError, load_scenario_file, parse_scenario
from controller.gamedata.warriors import load_warriors
from controller.rules.combat import resolve_combat
from controller.rules.combat_types import CombatResult
from controller.rules.pools import attack_pool, attack_rerolls
from controller.rules.scoring import ThrowScorer
from controller.rules.speed import allowed_defences
from controller.rules.variants import Variants
from controller.rules.warriors import AbilityKind, Roster


def register(sub: Any) -> None:
    """Add ``data``, ``roll`` and ``combat``."""
    data = sub.add_parser("data", help="game data files")
    data_sub = data.add_subparsers(dest="data_command", metavar="ACTION", required=True)
    check = data_sub.add_parser("check", help="validate a data directory (all problems at once)")
    check.add_argument("dir", nargs="?", help="data directory (default: the bundled demo set)")
    check.set_defaults(func=cmd_data_check)

    roll = sub.add_parser("roll", help="score one final throw")
    roll.add_argument("--warrior", required=True, help="warrior (or form) name")
    roll.add_argument("--form", help="the form fighting (default: the one --warrior names)")
    roll.add_argument("--dice", required=True, help="comma-separated symbols, e.g. kick,punch,star")
    roll.add_argument("--rerolls", type=int, default=0, help="rerolls made before this throw")
    roll.add_argument("--support", type=int, default=0, help="support dice in the pool")
    roll.add_argument("--card", action="append", default=[], metavar="NAME:SYM+SYM:DAMAGE",
                      help="a card combo in hand (repeatable)")  # fmt: skip
    _common(roll)
    roll.set_defaults(func=cmd_roll)

    combat = sub.add_parser("combat", help="replay one combat from a scenario file")
    combat.add_argument("scenario", help="scenario JSON (format: controller/combat_scenario.py)")
    _common(combat)
    combat.set_defaults(func=cmd_combat)


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data", help="data directory (default: $TOPTABLE_DATA or the bundled demo set)"
    )
    p.add_argument("--variant", action="append", default=[], help="switch a RULES.md variant on")
    p.add_argument("--json", action="store_true", help="print JSON")


def load_roster(arg: str | None) -> Roster:
    """The roster of the data directory ``arg`` (default: bundled demo).

    Raises:
        DataError: the directory or its warriors file is missing or malformed.
    """
    return load_warriors(data_file(data_dir(arg), "warriors.toml")).roster


def cmd_data_check(args: argparse.Namespace) -> int:
    """Validate every data file in a directory; print what was checked and every problem."""
    directory = data_dir(args.dir)
    problems: list[str] = []
    roster: Roster | None = None
    for name, check in _checks():
        path = directory / name
        if name != "warriors.toml" and not path.exists():
            print(f"--  {name}: absent (needed for {_NEEDED_FOR[name]})")
            continue
        try:
            line, found = check(data_file(directory, name), roster)
        except DataError as exc:
            problems.extend(str(p) for p in exc.problems)
            continue
        if found is not None:
            roster = found
        print(f"ok  {name}: {line}")
    if problems:
        for p in problems:
            print(f"bad {p}")
        print(f"{len(problems)} problem(s) in {directory}")
        return 2
    print(f"{directory}: all data valid")
    return 0


_NEEDED_FOR = {"board.toml": "a game", "cards.toml": "a game", "story.toml": "Story mode"}

Check = Callable[[Path, "Roster | None"], tuple[str, "Roster | None"]]


def _checks() -> list[tuple[str, Check]]:
    """Each data file's validator: a summary line, and the roster once the warriors load."""
    from controller.gamedata.board import load_board
    from controller.gamedata.cards import load_cards
    from controller.gamedata.story import load_story

    def warriors(path: Path, _: Roster | None) -> tuple[str, Roster | None]:
        wf = load_warriors(path)
        incomplete = [w.name for w in wf.roster.values() if w.unknown]
        line = f"{len(wf.roster)} warriors" + (" (INVENTED demo values)" if wf.invented else "")
        if incomplete:
            line += f"; {len(incomplete)} with fields still unknown (cannot fight yet)"
        return line, wf.roster

    def board(path: Path, _: Roster | None) -> tuple[str, Roster | None]:
        layout = load_board(path)
        return f"{len(layout.spaces)} spaces" + (
            " (EXAMPLE layout)" if layout.example else ""
        ), None

    def cards(path: Path, _: Roster | None) -> tuple[str, Roster | None]:
        deck = load_cards(path)
        return f"{len(deck.cards)} cards" + (" (INVENTED)" if deck.invented else ""), None

    def story(path: Path, roster: Roster | None) -> tuple[str, Roster | None]:
        squares = load_story(path, roster)
        return f"{len(squares.squares)} squares" + (" (INVENTED)" if squares.invented else ""), None

    return [
        ("warriors.toml", warriors),
        ("board.toml", board),
        ("cards.toml", cards),
        ("story.toml", story),
    ]


def cmd_roll(args: argparse.Namespace) -> int:
    """Score one final throw."""
    roster = load_roster(args.data)
    variants = Variants.from_names(args.variant)
    fighter = roster.fighter(args.warrior, args.form)
    dice = parse_symbols(args.dice)
    if args.rerolls < 0 or args.support < 0:
        raise InvalidThrowError("--rerolls and --support must be >= 0")
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
