"""The reroll advisor: exact odds of what to keep and when to stop.

See README.md in this folder. The API the table loop uses:
:class:`Advisor` (one per attack) and :meth:`Advisor.advise` after each
settled throw; :func:`summary_line` for the combat screen; :func:`odds` and
:func:`team_table` before the fight.

Owns: the exact reroll odds and advice. May import: controller.core, rules,
gamedata and game.
"""

from __future__ import annotations

from controller.advisor.advisor import (
    Advice,
    Advisor,
    AdvisorInputError,
    Choice,
    DiceAction,
    StartValues,
    Summary,
    summary_line,
)
from controller.advisor.counter import CounterModel
from controller.advisor.defence import (
    NO_CARD_DEFENCE,
    CardStopOdds,
    dodge_chance,
    fighter_dodge_chance,
)
from controller.advisor.errors import AdvisorError, CardDefenceSpecError
from controller.advisor.odds import Odds, PlannerRow, odds, team_table
from controller.advisor.values import Objective, OptionValue
from controller.gamedata.cards import CardSpecError, parse_card_spec, parse_card_specs

__all__ = [
    "NO_CARD_DEFENCE",
    "Advice",
    "Advisor",
    "AdvisorError",
    "AdvisorInputError",
    "CardDefenceSpecError",
    "CardSpecError",
    "CardStopOdds",
    "Choice",
    "CounterModel",
    "DiceAction",
    "Objective",
    "Odds",
    "OptionValue",
    "PlannerRow",
    "StartValues",
    "Summary",
    "dodge_chance",
    "fighter_dodge_chance",
    "odds",
    "parse_card_spec",
    "parse_card_specs",
    "summary_line",
    "team_table",
]
