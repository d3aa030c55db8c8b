"""The move (docs/rules.md §10, turn step 2): where a warrior may go, and what its landing
starts: a combat on a foe's space or a green space, or a card drawn at the turn's end."""

from __future__ import annotations

from controller.core.errors import IllegalActionError
from controller.core.quoting import short_repr
from controller.game.engine.combat import begin_combat, begin_green_combat
from controller.game.engine.common import MOVE_STEPS, put, vacate
from controller.game.engine.extra import after_combat_step
from controller.game.events import Move
from controller.game.space_decks import deck_of_colour
from controller.game.state import GameState
from controller.gamedata.board import Colour


def move_targets(state: GameState, warrior: str) -> frozenset[int]:
    """Spaces ``warrior`` may move to this turn: up to 4 steps (plus bonuses), passing over
    any token, ending anywhere but where it stands — beside or on a teammate too (neither
    book forbids it, docs/rules.md §10)."""
    p = state.pieces[warrior]
    if p.space is None or p.seat is None:
        return frozenset()
    return state.data.within(p.space, MOVE_STEPS + state.move_bonus)


def move(s: GameState, e: Move) -> None:
    """Handle :class:`Move`."""
    p = s.pieces.get(e.warrior)
    if p is None or p.seat != e.seat or p.space is None:
        raise IllegalActionError(
            f"{short_repr(e.warrior)} is not a warrior of seat {e.seat} on the board"
        )
    if e.space not in move_targets(s, e.warrior):
        if e.space not in s.data.board.spaces:
            why = "no such space"
        elif e.space == p.space:
            why = "it stands there"
        else:
            why = f"it is more than {MOVE_STEPS + s.move_bonus} steps away"
        raise IllegalActionError(f"{e.warrior} cannot move to space {e.space}: {why}")
    origin = p.space
    target = s.occ.get(e.space)
    colour = s.data.colours[e.space]
    if target is not None and s.pieces[target].seat != e.seat:  # a foe: combat on its space
        vacate(s, p.name, origin)
        s.pieces[p.name] = p._replace(space=e.space)
        begin_combat(s, p.name, target, origin, e.space, green=False, adjacent=False)
        return
    put(s, p._replace(space=e.space))  # an empty space, or a teammate's: they share it
    if colour is Colour.GREEN:
        if s.green_deck:
            begin_green_combat(s, p.name, origin, e.space)
            return
    else:
        deck = deck_of_colour(colour)
        if deck:
            s.pending_draws += (deck,)
    after_combat_step(s)
