"""``toptable advise`` in a Story attempt (docs/rules.md §12): the flags that give the
stakes, and the :class:`~controller.game.story.StoryStakes` built from them.

The stakes are built as the engine builds them at the table (``engine.story_stakes``):
each side's dice and rerolls by ``engine.attempt_dice``, the cards both sides may cash in
by ``engine.square_cards`` (the square's combo), the symbol sum by
``engine.story_sum_allowed``. ``--square N`` reads the square from the data directory's
story.toml (its fight: both warriors in their forms; its combo), so that only the
striker, its side when it could be either, and green's damage (red's turn) are typed.
Input that does not fit a Story attempt is refused, one line naming the flag.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from controller.advisor.story import best_damage
from controller.cli.flags import SQUARE, THROW_DAMAGE, FlagError, Parsed, Text
from controller.game.engine import attempt_dice, square_cards, story_sum_allowed
from controller.game.story import StorySide, StoryStakes
from controller.gamedata.cards import SYNTAX, parse_card_spec
from controller.gamedata.story import STORY_FILE, Square, load_story
from controller.rules.dice import Die
from controller.rules.scoring import CardCombo
from controller.rules.variants import Variants
from controller.rules.warriors import Fighter, Roster

SIDES = (StorySide.GREEN, StorySide.RED)  # a square's fight is [green, red]
_STORY_FLAGS = (
    ("--story", "story"),
    ("--square", "square"),
    ("--opponent", "opponent"),
    ("--opponent-form", "opponent_form"),
    ("--opponent-damage", "opponent_damage"),
    ("--square-combo", "square_combo"),
)  # each None when not given


def add_story_flags(p: argparse.ArgumentParser) -> None:
    """The Story flags of ``advise`` (added after its Tournament flags, whose defaults are
    kept: a Story attempt refuses any of them set otherwise)."""
    p.set_defaults(tournament_defaults={d: p.get_default(d) for _, d, _ in _TOURNAMENT_FLAGS})
    g = p.add_argument_group(
        "Story attempt (docs/rules.md §12)",
        "play for the square: the chance of taking it (P(win)), no defender; green attempts "
        "first and takes the square only by more damage, a tie goes to red. Each side throws "
        "its power in dice with its technique in rerolls (no support die).",
    )
    g.add_argument("--story", choices=[str(s) for s in StorySide], metavar="green|red",
                   help="a Story attempt: the striker's (--warrior's) side (with --square: "
                        "read from the square when the striker is on one side only)")  # fmt: skip
    g.add_argument("--square", type=SQUARE, metavar="N",
                   help="the Story square (1..13) from the data directory's story.toml: its "
                        "fight gives both warriors' forms and the other side, its combo the "
                        "cards of both sides")  # fmt: skip
    g.add_argument("--opponent", type=Text(), metavar="NAME",
                   help="the other side's warrior (a warrior or form name; with --square: "
                        "which of the square's fights, if several)")  # fmt: skip
    g.add_argument("--opponent-form", type=Text(), metavar="FORM",
                   help="the other side's form (default: the one --opponent names)")  # fmt: skip
    g.add_argument("--opponent-damage", type=THROW_DAMAGE, metavar="D",
                   help="the damage green's attempt inflicted (the striker is red: needed)")  # fmt: skip
    g.add_argument("--square-combo", type=Parsed(parse_card_spec), metavar="CARD",
                   help=f"the square's combo without --square ({SYNTAX})")  # fmt: skip


@dataclass(frozen=True)
class StoryAttempt:
    """What ``Advisor(..., story=...)`` needs, as the table gives it."""

    striker: Fighter
    stakes: StoryStakes
    pool: int
    rerolls: int
    cards: tuple[CardCombo, ...]
    sum_allowed: bool
    square: int | None

    def to_json(self) -> dict[str, object]:
        """The stakes as ``advise --json`` prints them."""
        s = self.stakes
        return {
            "side": str(s.side),
            "square": self.square,
            "opponent": s.other.name,
            "opponent_pool": s.other_pool,
            "opponent_rerolls": s.other_rerolls,
            "opponent_damage": s.other_damage,
            "cards": [c.name for c in s.other_cards],
            "sum_allowed": self.sum_allowed,
        }

    def describe(self) -> str:
        """The stakes in words, for the head line."""
        s = self.stakes
        where = f"square {self.square}, " if self.square is not None else ""
        other = f"{s.other.name} ({s.other_pool} dice, {s.other_rerolls} rerolls)"
        if s.other_damage is not None:
            return f"Story {where}red v {other}: green made {s.other_damage}"
        return f"Story {where}green v {other}: red answers after"


def story_given(args: argparse.Namespace) -> bool:
    """Whether any Story flag is on the command line."""
    return any(getattr(args, dest) is not None for _, dest in _STORY_FLAGS)


def story_attempt(
    args: argparse.Namespace, roster: Roster, data: Path, variants: Variants, die: Die
) -> StoryAttempt | None:
    """The Story attempt the flags describe (None: no Story flag).

    Raises:
        FlagError: a flag that does not fit a Story attempt, or the others given.
        UnknownNameError: an unknown warrior or form.
    """
    if not story_given(args):
        return None
    if args.story is None and args.square is None:
        raise FlagError(
            f"argument {_first_story_flag(args)}: a Story attempt needs --story or --square"
        )
    _refuse_tournament_flags(args)
    if args.opponent_form is not None and args.opponent is None:
        raise FlagError("argument --opponent-form: name the other side's warrior with --opponent")
    if args.square is not None:
        side, striker, other, cards = _from_square(args, roster, data)
    else:
        side = StorySide(args.story)
        striker = roster.fighter(args.warrior, args.form)
        if args.opponent is None:
            raise FlagError(
                "argument --opponent: a Story attempt without --square needs the other side's "
                "warrior"
            )
        other = roster.fighter(args.opponent, args.opponent_form)
        if other.warrior.name == striker.warrior.name:
            raise FlagError(f"argument --opponent: {striker.warrior.name} cannot fight himself")
        cards = (args.square_combo,) if args.square_combo is not None else ()
    sum_ok = story_sum_allowed(variants)
    other_pool, other_rerolls = attempt_dice(other)
    damage = args.opponent_damage
    if side is StorySide.GREEN and damage is not None:
        raise FlagError(
            "argument --opponent-damage: green attempts first, red has no damage yet "
            "(red's turn: --story red)"
        )
    if side is StorySide.RED:
        top = int(best_damage(other, cards, other_pool, variants, die, sum_ok).max())
        if damage is None:
            raise FlagError(
                f"argument --opponent-damage: red attempts second: give the damage green's "
                f"{other.name} inflicted (0..{top})"
            )
        if damage > top:
            raise FlagError(
                f"argument --opponent-damage: {damage}, but {other.name}'s best throw makes "
                f"{top}; expected 0..{top}"
            )
    pool, rerolls = attempt_dice(striker)
    stakes = StoryStakes(side, other, other_pool, other_rerolls, cards, damage)
    return StoryAttempt(striker, stakes, pool, rerolls, cards, sum_ok, args.square)


_TOURNAMENT_FLAGS: tuple[tuple[str, str, str], ...] = (  # flag, dest, why refused
    ("--defender", "defender", "has no defender"),
    ("--defender-form", "defender_form", "has no defender"),
    ("--defender-damage", "defender_damage", "has no defender"),
    ("--defender-support", "defender_support", "has no defender"),
    ("--card-defence", "card_defence", "has no defence"),
    ("--objective", "objective", "plays for the square (objective story)"),
    ("--support", "support", "throws no support die (power dice only)"),
    ("--attacker-damage", "attacker_damage", "counts no damage taken (nothing comes back)"),
    ("--cards", "cards", "plays no hand card (the square's combo: --square)"),
    ("--card", "card", "plays no hand card (the square's combo: --square)"),
    ("--no-risk", "no_risk", "has nothing coming back to count"),
)


def _refuse_tournament_flags(args: argparse.Namespace) -> None:
    for flag, dest, why in _TOURNAMENT_FLAGS:
        if getattr(args, dest) != args.tournament_defaults[dest]:
            raise FlagError(f"argument {flag}: a Story attempt {why}")
    if args.square is not None and args.square_combo is not None:
        raise FlagError("argument --square-combo: --square gives the square's combo")


def _first_story_flag(args: argparse.Namespace) -> str:
    return next((flag for flag, dest in _STORY_FLAGS if getattr(args, dest) is not None), "--story")


def _load_square(data: Path, number: int, roster: Roster) -> Square:
    path = data / STORY_FILE
    if not path.is_file():
        raise FlagError(f"argument --square: {data} has no {STORY_FILE} (no Story squares)")
    return load_story(path, roster).squares[number - 1]


def _named_form(roster: Roster, name: str, form: str | None) -> bool:
    """Whether ``name``/``form`` pick a form (or the base card) explicitly."""
    return form is not None or roster.find(name)[1] is not None


def _from_square(
    args: argparse.Namespace, roster: Roster, data: Path
) -> tuple[StorySide, Fighter, Fighter, tuple[CardCombo, ...]]:
    """The striker's side, both fighters in the square's forms, and the square's cards."""
    sq = _load_square(data, args.square, roster)
    mine = roster.fighter(args.warrior, args.form)
    theirs = roster.fighter(args.opponent, args.opponent_form) if args.opponent else None
    fights = " or ".join(f"{g} (green) v {r} (red)" for g, r in sq.fights)
    found: list[tuple[StorySide, Fighter, Fighter]] = []
    for fight in sq.fights:
        for i, side in enumerate(SIDES):
            if args.story is not None and side != args.story:
                continue
            striker, other = roster.fighter(fight[i]), roster.fighter(fight[1 - i])
            if striker.warrior.name == mine.warrior.name:
                found.append((side, striker, other))
    where = f"on square {args.square}" + (f" as {args.story}" if args.story else "")
    if not found:
        raise FlagError(
            f"argument --warrior: {mine.warrior.name} does not fight {where} ({fights})"
        )
    if theirs is not None:
        found = [f for f in found if f[2].warrior.name == theirs.warrior.name]
        if not found:
            raise FlagError(
                f"argument --opponent: {mine.warrior.name} does not fight {theirs.warrior.name} "
                f"{where} ({fights})"
            )
    if len({f[0] for f in found}) > 1:
        raise FlagError(
            f"argument --story: {mine.warrior.name} fights on both sides of square "
            f"{args.square}: give --story green or red"
        )
    if len(found) > 1:
        names = " or ".join(f[2].name for f in found)
        raise FlagError(
            f"argument --opponent: {mine.warrior.name} fights {names} {where}: name one"
        )
    side, striker, other = found[0]
    if _named_form(roster, args.warrior, args.form) and mine.name != striker.name:
        flag = "--form" if args.form is not None else "--warrior"
        raise FlagError(
            f"argument {flag}: square {args.square} has {mine.warrior.name} as {striker.name}"
        )
    if (
        theirs is not None
        and _named_form(roster, args.opponent, args.opponent_form)
        and theirs.name != other.name
    ):
        flag = "--opponent-form" if args.opponent_form is not None else "--opponent"
        raise FlagError(
            f"argument {flag}: square {args.square} has {theirs.warrior.name} as {other.name}"
        )
    return side, striker, other, square_cards(sq)
