"""Dragon Ball Z Trading Card Game, two players (rule text 003).

The table keeps each Main Personality's Level (1-4), Power Stages (0-10), Anger (0-5),
the Life Deck's count (60 at the start: damage and draws take cards from it), the
Dragon Balls in play, whose turn and which step it is, and who won and how.

Referee decisions where the text is silent (also in ``README.md``):

* The first player listed in the script begins (the text only says "deciding who goes first").
* The turn player's first ``draw`` of a turn is the Draw Step and must be three cards;
  other draws (card effects) are free. Declaring combat draws the defender's three
  (l.150; rules revision 2 on: a revision-1 journal's players entered it as a ``draw``).
* ``pur`` ends the Planning Step (Dragon Balls are played before it). From rules
  revision 2 the step ends only so (l.110-112: the gain is no option; ``pur`` 0 for a
  Personality without one): combat, rejuvenating and the turn's end wait for it. In
  revision 1, leaving the step without a ``pur`` meant no PUR gain.
* ``gain_stages``: stages a card's effect gives besides the PUR (up to ten).
* The Discard Step (down to one card) is the players' job: the hand stays in their hands.
* ``rejuvenate`` is refused once combat was declared, twice in a turn, or with a full Life
  Deck (60: the discard pile is then empty); it closes the chance to declare combat.
* Damage may come in any step (Dragon Balls and effects deal damage too), but only damage
  in the Combat Step is "an unstopped attack" that can give the critical choice; each
  ``stage_damage``/``life_damage`` is one attack; stage damage past zero becomes Life Cards
  and counts towards the five. The attack's "Hit" effects come first (l.189, rules revision
  3): the choice (``critical``) stays open through them and closes at the next damage or
  the turn's end (in revisions 1-2 any other action passed it up).
* ``level``: a card's effect advances or lowers the Main Personality (l.55; its Drills are
  discarded; Anger and stages stay, the text's note being cut off at l.76).
* Dragon Balls in the Life Deck, Endurance and Allies are not tracked: the table records
  the cards actually discarded. A ball in play that is discarded or destroyed
  (``discard_dragon_ball``) goes to the bottom of its controller's Life Deck.
* ``pay_stages``: an Energy Attack's cost in stages, refused above the stages held.
* MPPV: Anger reaching five on Level 4 wins at once; on Levels 1-3 it advances a Level.
"""

from __future__ import annotations

from typing import Any

from controller.companion.base import CompanionMode, JsonDict, SeatSummary
from controller.companion.dbz_tcg.model import (
    ACTIONS,
    KIND,
    RULES_REVISION,
    AttackTable,
    DbzData,
    DbzState,
    Personality,
    Step,
    Victory,
    load_data,
)
from controller.companion.dbz_tcg.rules import apply, legal_actions, new_game, to_json

__all__ = [
    "ACTIONS",
    "KIND",
    "MODE",
    "RULES_REVISION",
    "AttackTable",
    "DbzData",
    "DbzState",
    "Personality",
    "Step",
    "Victory",
    "apply",
    "legal_actions",
    "load_data",
    "new_game",
    "seat_summary",
    "step",
    "to_json",
    "whose_turn",
]


def whose_turn(state: DbzState) -> str | None:
    """The turn player (None once the game is over)."""
    return None if state.step is Step.OVER else state.turn


def step(state: DbzState) -> str:
    """The step of the turn (``draw``, ``planning``, ``combat``...)."""
    return state.step.value


def seat_summary(player: JsonDict) -> SeatSummary:
    """Level/stages, anger, life and Dragon Balls: ``1/7 A2 L41 DB3``; life first."""
    life = f"L{player['life']}"
    balls = len(player["dragon_balls"])
    return SeatSummary(
        f"{player['level']}/{player['stages']} A{player['anger']} {life} DB{balls}", life
    )


MODE: CompanionMode[DbzState, Any] = CompanionMode(
    kind=KIND,
    title="DBZ TCG",
    main_number="life",
    actions=ACTIONS,
    new_game=new_game,
    whose_turn=whose_turn,
    step=step,
    legal_actions=legal_actions,
    apply=apply,
    to_json=to_json,
    seat_summary=seat_summary,
    rules_revision=RULES_REVISION,
)
