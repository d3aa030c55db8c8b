"""Before the fight: combo odds and damage distributions, and the team planner table.

For a warrior and a pool, :func:`odds` plays the whole attempt optimally for
expected (raw) damage, with no defender, and follows that policy forward
exactly: the chance the attempt ends on each combo (or card, or the symbol
sum), the distribution of the damage cashed in and the rerolls used.
:func:`team_table` gives every warrior (and form) of a roster its expected
damage and its chance to dodge: the rulebook's "team planner".
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from controller.advisor.advisor import Advisor
from controller.advisor.defence import fighter_dodge_chance
from controller.advisor.dp import stop_mass
from controller.advisor.values import Objective
from controller.core.errors import DataError
from controller.rules.attack import dodge_needed
from controller.rules.dice import TOURNAMENT_DIE, Die
from controller.rules.pools import attack_pool, attack_rerolls, defence_pool, defence_rerolls
from controller.rules.scoring import CardCombo
from controller.rules.variants import DEFAULT_VARIANTS, Variants
from controller.rules.warriors import Fighter, Roster


@dataclass(frozen=True)
class Odds:
    """One warrior's attempt, played optimally for expected damage."""

    fighter: str
    pool: int
    rerolls: int
    expected_damage: float
    cash_in: tuple[tuple[str, str, float], ...]  # (kind, name, P(the attempt ends on it)), by P
    damage: tuple[tuple[int, float], ...]  # (damage, P), by damage
    rerolls_used: tuple[float, ...]  # P(stopping after 0, 1, ... rerolls)

    def to_json(self) -> dict[str, object]:
        """The odds as ``toptable odds --json`` prints them."""
        return {
            "warrior": self.fighter,
            "pool": self.pool,
            "rerolls": self.rerolls,
            "expected_damage": round(self.expected_damage, 6),
            "cash_in": [{"kind": k, "name": n, "p": round(p, 6)} for k, n, p in self.cash_in],
            "damage": [{"damage": d, "p": round(p, 6)} for d, p in self.damage],
            "rerolls_used": [round(p, 6) for p in self.rerolls_used],
        }


def odds(
    fighter: Fighter,
    pool: int | None = None,
    cards: Sequence[CardCombo] = (),
    variants: Variants = DEFAULT_VARIANTS,
    die: Die = TOURNAMENT_DIE,
) -> Odds:
    """The odds of each way to cash in and the damage distribution (exact).

    Raises:
        AdvisorInputError: a pool outside 1..6.
    """
    adv = Advisor(
        fighter, 0, None, 0, cards, variants, objective=Objective.DAMAGE, pool=pool, die=die
    )
    sol = adv.solution()
    t = sol.tables
    masses = stop_mass(sol, t.first_throw)
    cash: dict[tuple[str, str], float] = {}
    damage: dict[int, float] = {}
    used: list[float] = []
    for m, mass in enumerate(masses):
        table = adv.valuer.stop_table(t, m)
        used.append(float(mass.sum()))
        for si in mass.nonzero()[0]:
            o = adv.valuer.stop_option(table, int(si)).option
            p = float(mass[si])
            cash[(str(o.kind), o.name)] = cash.get((str(o.kind), o.name), 0.0) + p
            damage[o.damage] = damage.get(o.damage, 0.0) + p
    expected, _ = adv.start_value()
    ordered = tuple(sorted(((k, n, p) for (k, n), p in cash.items()), key=lambda x: -x[2]))
    return Odds(
        fighter.name,
        adv.pool,
        adv.rerolls,
        expected,
        ordered,
        tuple(sorted(damage.items())),
        tuple(used),
    )


@dataclass(frozen=True)
class PlannerRow:
    """One line of the team planner (``complete`` False: the card is not filled in)."""

    warrior: str
    form: str | None
    complete: bool
    pool: int = 0
    rerolls: int = 0
    expected_damage: float = 0.0
    p_combo: float = 0.0  # the chance the attempt ends on one of its own combos
    dodge: int = 0
    dodge_pool: int = 0
    dodge_rerolls: int = 0
    p_dodge: float = 0.0

    def to_json(self) -> dict[str, object]:
        """The row as ``toptable odds --all --json`` prints it."""
        out: dict[str, object] = {
            "warrior": self.warrior,
            "form": self.form,
            "complete": self.complete,
        }
        if self.complete:
            out.update(
                pool=self.pool,
                rerolls=self.rerolls,
                expected_damage=round(self.expected_damage, 6),
                p_combo=round(self.p_combo, 6),
                dodge=self.dodge,
                dodge_pool=self.dodge_pool,
                dodge_rerolls=self.dodge_rerolls,
                p_dodge=round(self.p_dodge, 6),
            )
        return out


def planner_row(
    fighter: Fighter, variants: Variants = DEFAULT_VARIANTS, die: Die = TOURNAMENT_DIE
) -> PlannerRow:
    """Expected damage (no support, no defender) and dodge chance of one fighter."""
    o = odds(fighter, attack_pool(fighter, 0), (), variants, die)
    p_combo = sum(p for kind, _, p in o.cash_in if kind == "combo")
    return PlannerRow(
        fighter.warrior.name,
        fighter.form.name if fighter.form is not None else None,
        True,
        o.pool,
        attack_rerolls(fighter),
        o.expected_damage,
        p_combo,
        dodge_needed(fighter, defence_pool(fighter, 0, variants), variants),
        defence_pool(fighter, 0, variants),
        defence_rerolls(fighter),
        fighter_dodge_chance(fighter, 0, die, variants),
    )


def team_table(
    roster: Roster, variants: Variants = DEFAULT_VARIANTS, die: Die = TOURNAMENT_DIE
) -> list[PlannerRow]:
    """Every warrior of ``roster`` and each of its forms; incomplete cards get a bare row."""
    rows: list[PlannerRow] = []
    for warrior in roster.values():
        for form in (None, *warrior.forms):
            try:
                fighter = warrior.fighter(form)
            except DataError:
                rows.append(
                    PlannerRow(warrior.name, form.name if form is not None else None, False)
                )
                continue
            rows.append(planner_row(fighter, variants, die))
    return rows
