"""The board's part of :class:`~controller.table.entry.TableEntry`: moves, placements and
steps aside seen by the hall sensors (through the move tracker), and a lifted token
narrowing the buttons' choice to its moves."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from controller.game import engine
from controller.game.events import Action, Move, Place, StepAside
from controller.game.state import Phase
from controller.table.chooser import Chooser, action_chooser
from controller.table.extra_steps import extra_green_step

if TYPE_CHECKING:
    from controller.table.entry import GameOwner
    from controller.table.stats import TableStats

log = logging.getLogger("controller.table.entry")  # said as the entry's, as before


class BoardEntry:
    """Board events turned into game actions; mixed into the table's entry, whose owner,
    statistics and chooser it uses."""

    owner: GameOwner
    stats: TableStats
    chooser: Chooser[Any] | None

    def on_board_move(self, token: str, src: int, dst: int) -> bool:
        """A move the board saw (through the move tracker): the game's move or step aside."""
        state = self.owner.state
        seat = engine.actor(state)
        action: Action | None = None
        if seat is not None and state.phase is Phase.MOVE:
            action = Move(seat, token, dst)
        elif seat is not None and state.phase is Phase.STEP_ASIDE:
            action = StepAside(seat, dst)
        elif seat is not None and state.phase is Phase.EXTRA_OFFER:
            action = extra_green_step(state, token, dst)
        if action is None:
            log.info("board: %s %s->%s while %s; nothing to do", token, src, dst, state.phase)
            return False
        ok = self.owner.submit(action)
        if ok:
            self.stats.moves_from_board += 1
        else:
            self.stats.moves_refused += 1
        return ok

    def on_token_placed(self, space: int) -> bool:
        """A token put on an empty space: at set-up, the warrior chosen with the buttons;
        after a combat, the attacker stepping aside."""
        state = self.owner.state
        seat = engine.actor(state)
        chosen = self.chooser.value if self.chooser is not None and self.chooser.values else None
        action: Action | None = None
        if seat is not None and state.phase is Phase.PLACE and isinstance(chosen, Place):
            action = Place(seat, chosen.warrior, space)
        elif seat is not None and state.phase is Phase.STEP_ASIDE:
            action = StepAside(seat, space)
        if action is None:
            return False
        ok = self.owner.submit(action)
        if ok:
            self.stats.moves_from_board += 1
        return ok

    def token_lifted(self, token: str) -> bool:
        """A token left its space while moving: the choice narrows to its moves (an attack
        on an occupied space is confirmed with the buttons). True if the choice changed."""
        state = self.owner.state
        if state.phase is not Phase.MOVE or self.chooser is None:
            return False
        moves = [a for a in self.chooser.values if isinstance(a, Move) and a.warrior == token]
        if not moves:
            return False
        self.chooser = action_chooser(f"move {token}", moves)
        return True
