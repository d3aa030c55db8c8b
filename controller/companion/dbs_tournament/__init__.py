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
  the list who uses a [Counter] closes the window (one counter per window).
* An eliminated player's effects end: they are skipped everywhere, their champion is gone,
  and if it was their turn the turn passes at once to the next player still in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from controller.companion.base import JsonDict, Offer
from controller.companion.dbs_tournament.model import (
    ACTIONS,
    MODE_NAME,
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
    "MODE",
    "MODE_NAME",
    "CounterKind",
    "DbsData",
    "DbsState",
    "DbsTournament",
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
    "step",
    "to_json",
]


class DbsTournament:
    """The Tournament of Power mode, as a :class:`~controller.companion.base.CompanionMode`."""

    name = MODE_NAME
    actions: Mapping[str, type[Any]] = ACTIONS

    def new_game(
        self, players: Sequence[str], data: Mapping[str, Any] | None = None, source: str = "script"
    ) -> DbsState:
        return new_game(players, data, source)

    def whose_turn(self, state: DbsState) -> str | None:
        return state.turn

    def step(self, state: DbsState) -> str:
        return step(state)

    def legal_actions(self, state: DbsState, player: str) -> tuple[Offer, ...]:
        return legal_actions(state, player)

    def apply(self, state: DbsState, action: Any) -> DbsState:
        return apply(state, action)

    def to_json(self, state: DbsState) -> JsonDict:
        return to_json(state)


MODE = DbsTournament()
