"""A second combat's step onto a green space, seen on the board (rules revision 4, A l.39).

After a combat the attacker ended where it fought, a second combat may go onto an empty
green space beside it: with the Event card's second combat (``StepAside``) or with a card
that grants one (``PlayCard`` naming the space). On the board the player just moves the
token there; this says which of the legal actions that move is.
"""

from __future__ import annotations

from controller.game.events import Action, PlayCard, StepAside
from controller.game.legal import legal_actions
from controller.game.state import GameState, Phase


def extra_green_step(state: GameState, token: str, dst: int) -> Action | None:
    """The action the board's move of ``token`` onto ``dst`` is at the extra-combat offer:
    the Event card's step when the Event grants the second combat (no card spent), else the
    one card that grants it; None when the move is no such step, or when several cards
    could be spent (chosen with the buttons)."""
    if state.phase is not Phase.EXTRA_OFFER or token != state.fighter:
        return None
    steps = [
        a for a in legal_actions(state) if isinstance(a, StepAside | PlayCard) and a.space == dst
    ]
    for a in steps:
        if isinstance(a, StepAside):
            return a
    cards = {a.card for a in steps if isinstance(a, PlayCard)}
    return steps[0] if len(cards) == 1 else None
