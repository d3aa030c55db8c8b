"""The duel that breaks a tie of two (docs/rules.md §11): each picks a warrior, and they
fight combat after combat, in turn attacking, until one is eliminated."""

from __future__ import annotations

from controller.core.errors import IllegalActionError
from controller.core.quoting import short_repr
from controller.game.engine.combat import to_transform
from controller.game.engine.common import new_turn_counts, on_space, owner
from controller.game.events import DuelPick
from controller.game.state import MAX_DUEL_COMBATS, Combat, GameState, Phase


def duel_pick(s: GameState, e: DuelPick) -> None:
    """Handle :class:`DuelPick`; the second pick starts the duel."""
    p = s.pieces.get(e.warrior)
    if p is None or p.seat != e.seat or p.space is None:
        raise IllegalActionError(
            f"{short_repr(e.warrior)} is not a warrior of seat {e.seat} still in play"
        )
    s.duel_picks += (e.warrior,)
    if len(s.duel_picks) == 2:
        s.duel_combats = 0
        _duel_combat(s, s.duel_picks[0], s.duel_picks[1])


def _duel_combat(s: GameState, a: str, d: str) -> None:
    s.seat = owner(s.pieces[a])
    new_turn_counts(s)  # each duel combat is a turn of its own
    s.move_bonus = s.damage_bonus = 0
    s.extra_granted = False
    pa, pd = s.pieces[a], s.pieces[d]
    s.combat = Combat(
        a, d, owner(pa), owner(pd), False, True, on_space(pa), on_space(pd), a, d, duel=True
    )
    s.duel_combats += 1
    s.log_combats += 1
    to_transform(s)


def duel_after(s: GameState, down: list[str]) -> None:
    """After a duel combat: an elimination (or too many combats) ends the game."""
    c = s.combat
    if c is None:
        return
    a, d = c.attacker, c.defender
    if down or s.duel_combats >= MAX_DUEL_COMBATS:
        alive = [n for n in (a, d) if n not in down]
        s.winners = tuple(sorted(owner(s.pieces[n]) for n in alive)) if alive else s.tied
        if not alive or len(alive) == 2:
            s.winners = s.tied
        s.combat = None
        s.phase = Phase.OVER
        return
    _duel_combat(s, d, a)
