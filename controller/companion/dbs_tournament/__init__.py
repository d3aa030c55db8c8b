"""Dragon Ball Super Card Game Masters, "Tournament of Power" multiplayer format (rule text 002).

The table keeps life, energy markers, who is still in, whose turn it is, the champions'
costs and the order of the [Counter] windows; the cards stay in the players' hands.

Referee decisions where the text is silent (also in ``README.md``):

* A tie for the highest roll: the tied players roll again (``roll`` names only them).
* The first player's advantages are applied when ``choose_first`` names them; 2 players:
  the second player gets 1 energy marker and the first player does not draw on their first
  turn; 3+ players: the first player draws on their first turn and gets 1 marker, the others 2.
* Only the turn player attacks and plays their champion; a player "has taken their first
  turn" once they ended it (``end_turn``), so before that they cannot be attacked.
* ``champion_return`` may happen at any time (it also stands for the replacement effect);
  each return adds 2 to the champion's cost.
* A [Counter: Play] window is offered clockwise from the player after the one who played
  the card; a [Counter: Attack] window to the target, then clockwise from the player after
  the target; the player who acted and eliminated players are skipped. The first player in
  the list who uses a [Counter] closes the window (one counter per window). An attack's
  window is ordered only for an attack the rules allow (rules revision 2).
* A Choice Skill ("then your opponent may", l.46-48) is decided by every opponent,
  clockwise from the player after its owner (``counter_order`` of kind ``choice``).
* An eliminated player's effects end: they are skipped everywhere, their champion is gone,
  and if it was their turn the turn passes at once to the next player still in.
"""

from __future__ import annotations

from typing import Any

from controller.companion.base import CompanionMode, JsonDict, SeatSummary
from controller.companion.dbs_tournament.model import (
    ACTIONS,
    KIND,
    RULES_REVISION,
    CounterKind,
    DbsData,
    DbsState,
    Seat,
    Step,
    load_data,
)
from controller.companion.dbs_tournament.rules import (
    apply,
    checkpoint_order,
    counter_order,
    counter_response,
    legal_actions,
    new_game,
    next_player,
    step,
    to_json,
)

__all__ = [
    "ACTIONS",
    "KIND",
    "MODE",
    "RULES_REVISION",
    "CounterKind",
    "DbsData",
    "DbsState",
    "Seat",
    "Step",
    "apply",
    "checkpoint_order",
    "counter_order",
    "counter_response",
    "legal_actions",
    "load_data",
    "new_game",
    "next_player",
    "seat_summary",
    "step",
    "to_json",
    "whose_turn",
]


def whose_turn(state: DbsState) -> str | None:
    """The turn player (None before the first player is chosen and after the game)."""
    return state.turn


def seat_summary(player: JsonDict) -> SeatSummary:
    """Life, energy markers, the champion in the zone (``C``) and its extra cost: ``L16 E1 C+2``."""
    champion = " C" if player["champion_in_zone"] else ""
    extra = player["champion_extra_cost"]
    returns = f"+{extra}" if extra else ""
    life = f"L{player['life']}"
    return SeatSummary(f"{life} E{player['energy_markers']}{champion}{returns}", life)


MODE: CompanionMode[DbsState, Any] = CompanionMode(
    kind=KIND,
    title="DBS TOP",
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
