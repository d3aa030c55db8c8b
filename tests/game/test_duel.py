"""The duel that breaks a tie of two (docs/rules.md §11, A l.287, B l.359): who picks,
who strikes, and how it ends."""

from __future__ import annotations

from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.events import ChooseAttack, DiceThrown
from controller.game.state import MAX_DUEL_COMBATS, Phase
from tests.game.helpers import tie_s_duel


def test_a_duel_nobody_is_eliminated_in_is_shared_after_its_last_combat() -> None:
    """Engine decision (A l.287 "fight until one of the 2 Warriors are eliminated" has no
    end otherwise): after MAX_DUEL_COMBATS combats that hurt nobody, the tie is shared."""
    state = tie_s_duel("Kahseral", "Obuni")
    combats = 0
    while state.phase is Phase.ATTACK:
        combats += 1
        assert combats <= MAX_DUEL_COMBATS, "the duel goes on past its last combat"
        c = state.combat
        assert c is not None
        striker = state.pieces[c.striker].seat
        assert striker is not None
        state = engine.apply(state, DiceThrown((Symbol.TELEPORT,) * c.pool))  # worth 0
        state = engine.apply(state, ChooseAttack(striker, "sum"))
    assert combats == MAX_DUEL_COMBATS == 30
    assert state.phase is Phase.OVER and state.winners == (0, 1)
    assert (state.pieces["Kahseral"].damage, state.pieces["Obuni"].damage) == (0, 11)
