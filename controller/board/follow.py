"""Following the board for the table: sensor changes -> the move tracker -> game moves.

The board link posts :class:`~hardware.board.events.SensorChanged`; the
:class:`~controller.board.tracker.MoveTracker` turns lifts and places into moves of
named tokens, checked against the moves the rules allow now; the table submits
them. Hall sensors see a token arrive only on an empty space, so:

- a move onto an empty space is a lift and a place;
- an attack (a move onto an opponent's space) is a lift, and the player picks
  the move on the screen, which narrows to the lifted token's moves; the
  attacker's token waits beside the defender during the combat;
- placing tokens at set-up and stepping aside after a combat are a token put
  on an empty space: the table knows whose.

Tokens are re-read from the game's occupied spaces after each change of the
game, so eliminations, fusions and undo are followed. Link faults switch the
table to button entry until the board is back and resynced.

A change the tracker cannot explain is logged as a WARNING only when a person
should look at it: during play, a change that takes the board away from where
the game has its tokens (a token appearing on an empty space, a token leaving
one the game holds). Tidying is not a problem and is logged at debug level:
eliminated warriors taken off the board, a token put back where the game has
it, and anything at all once the game is over (the players clear the board).

The follower runs on the table loop's thread; the daemon wires the board's
events and the loop's ticks to it (:mod:`controller.daemon.wiring`).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Iterator

from controller.board.tracker import (
    IllegalPlacement,
    MoveQuestion,
    MoveTracker,
    Outcome,
    TokenLifted,
    TokenMoved,
    UnexpectedChange,
)
from controller.core.quoting import printable
from controller.game.events import Move
from controller.game.legal import legal_actions
from controller.game.state import GameState, Phase
from controller.gamedata.board import BoardLayout
from controller.table.controller import TableController
from hardware.board.events import (
    BoardResynced,
    LinkLost,
    LinkRestored,
    SensorChanged,
    SensorFlickering,
)

log = logging.getLogger(__name__)


class BoardFollower:
    """Keeps a move tracker in step with the game and feeds the table its moves."""

    def __init__(self, table: TableController, layout: BoardLayout, settle_s: float = 0.4) -> None:
        self.table = table
        self.layout = layout
        self.settle_s = settle_s
        self.tracker = self._new_tracker(table.state)
        self._synced_at = table.state.events_applied
        self.unexpected = 0  # changes a person should look at (each logged as a warning)
        self.tidied = 0  # changes that only put the board right (eliminated tokens taken off...)
        self.synced = threading.Event()  # set once the board's state has been read whole
        self.wrong_board: str | None = None  # why the board on the link cannot be followed
        table.listeners.append(self._game_changed)

    def _new_tracker(self, state: GameState) -> MoveTracker:
        return MoveTracker(
            _standing(state), self._legal_moves, settle_s=self.settle_s, layout=self.layout
        )

    def _legal_moves(self) -> Iterator[tuple[int, int]]:
        state = self.table.state
        if state.phase is not Phase.MOVE:
            return
        for action in legal_actions(state):
            if not isinstance(action, Move) or action.space in state.occ:
                continue
            origin = state.pieces[action.warrior].space
            if origin is not None:
                yield origin, action.space

    def _game_changed(self, state: GameState) -> None:
        # The game moved on (a move, an attack picked on screen, an elimination, an undo):
        # the tokens are where the game has them; one still in hand is an attacker waiting
        # beside its defender, or a token on its way to be put back.
        if self.tracker.in_the_air() or self.tracker.positions() != _standing(state):
            self.tracker = self._new_tracker(state)

    # ---------------------------------------------------------------- events
    def on_sensor(self, event: SensorChanged) -> None:
        """One sensor change (live or found by a resync)."""
        if event.resync or self.wrong_board is not None:
            return  # after a gap: see on_resynced; a board of too few sensors: on_restored
        state = self.table.state
        space = self.layout.space_for_sensor(event.sensor)
        log.debug(
            "sensor %d (space %s) %s in %s",
            event.sensor,
            space,
            "on" if event.occupied else "off",
            state.phase,
        )
        if (
            state.phase in (Phase.PLACE, Phase.STEP_ASIDE)
            and event.occupied
            and space is not None
            and space not in state.occ
            and self.table.on_token_placed(space)
        ):
            return
        self._outcomes(self.tracker.on_sensor(event.sensor, event.occupied, event.at))

    def tick(self, now: float) -> None:
        """Finish moves whose token has rested long enough (call on the loop's ticks;
        ``now`` on the monotonic clock the sensor changes are stamped with)."""
        self._outcomes(self.tracker.tick(now))

    def spaces_in_air(self) -> frozenset[int]:
        """The spaces whose tokens the tracker sees lifted."""
        return frozenset(self.tracker.in_the_air().values())

    def _outcomes(self, outcomes: list[Outcome]) -> None:
        for out in outcomes:
            log.debug("tracker: %s", out)
            if isinstance(out, TokenMoved):
                self.table.board_problem(None)
                self.table.on_board_move(out.token, out.src, out.dst)
            elif isinstance(out, TokenLifted):
                self.table.token_lifted(out.token)
            elif isinstance(out, IllegalPlacement | MoveQuestion):
                if self.table.state.over:  # the board being cleared: nothing to ask
                    self.tidied += 1
                    log.debug("board: tidying: %s", out)
                else:
                    self.table.board_problem(str(out))
            elif isinstance(out, UnexpectedChange):
                if self._tidying(out):
                    self.tidied += 1
                    log.debug("board: tidying: %s", out.message)
                else:
                    self.unexpected += 1
                    log.warning("board: %s", out.message)

    def _tidying(self, change: UnexpectedChange) -> bool:
        """Whether ``change`` brings the board to the game's positions (or the game is over)."""
        state = self.table.state
        if state.over:
            return True
        # A token taken off a space the game has no token on, or put on one it has.
        return change.occupied == (change.space in state.occ)

    def on_tidied(self) -> None:
        """The tokens stand where the game has them: follow them from there."""
        self.tracker = self._new_tracker(self.table.state)

    def on_flicker(self, event: SensorFlickering) -> None:
        """A sensor that flickers is held by the link until it settles; say so."""
        log.warning(
            "sensor %d flickers (%d changes in %.1f s)", event.sensor, event.changes, event.window_s
        )

    def on_lost(self, event: LinkLost) -> None:
        """The board is gone: moves go through the buttons meanwhile."""
        self.table.board_lost(event.reason)

    def on_restored(self, event: LinkRestored) -> None:
        """The board answers again; the resync that follows puts the tokens right. A board
        that scans fewer sensors than the layout wires is not followed (moves go by the
        buttons): it would see no token on the spaces past its last sensor."""
        log.info("board back: firmware %s, boot %d", printable(event.firmware), event.boot)
        need = self.layout.sensor_count
        self.wrong_board = None
        if event.sensors < need:
            self.wrong_board = (
                f"the board scans {event.sensors} sensors, the board layout wires {need}: set "
                f"SENSORS = {need} in the firmware's config.py and deploy it again (toptable "
                "firmware deploy --config FILE)"
            )
            log.error("board: %s", self.wrong_board)
            self.table.board_lost(f"{event.sensors} sensors, layout {need}: redeploy firmware")

    def on_resynced(self, event: BoardResynced) -> None:
        """The host's view equals the board's again: follow it from the game's positions
        (not a board that scans too few sensors: :meth:`on_restored`)."""
        if self.wrong_board is not None:
            return
        state = self.table.state
        self.tracker = self._new_tracker(state)
        # A token lifted while the link was down is in a player's hand now: tell the
        # tracker, so its move is followed when it is put down.
        for space in sorted(state.occ):
            sensor = self.layout.space(space).sensor
            if sensor is not None and sensor not in event.occupied:
                self._outcomes(self.tracker.on_change(space, False, time.monotonic()))
        self.table.board_back()
        self.synced.set()
        wrong = self.mismatch(event.occupied)
        if wrong:
            self.table.board_problem(wrong)

    def mismatch(self, occupied: frozenset[int]) -> str | None:
        """What differs between the board's occupied sensors and the game's tokens."""
        state = self.table.state
        token_on = {  # sensor -> the token standing on its space, and the space
            s: (name, p.space)
            for name, p in state.pieces.items()
            if p.space is not None and p.space >= 0
            for s in [self.layout.space(p.space).sensor]
            if s is not None
        }
        extra = sorted(occupied - token_on.keys())
        missing = sorted(token_on.keys() - occupied)
        if not extra and not missing:
            return None
        parts = []  # short, for the screen's note: the log names tokens and spaces
        if missing:
            parts.append(f"put back tokens on sensors {missing}")
        if extra:
            parts.append(f"lift tokens from sensors {extra}")
        named = [f"put back {token_on[s][0]} on space {token_on[s][1]}" for s in missing]
        named += [f"lift the token on {self._where(s)}" for s in extra]
        log.warning("board differs from the game: %s (%s)", "; ".join(parts), "; ".join(named))
        return "; ".join(parts)

    def _where(self, sensor: int) -> str:
        """Where a sensor is: its space, or that no space uses it (a spare one)."""
        space = self.layout.space_for_sensor(sensor)
        return f"space {space}" if space is not None else f"sensor {sensor} (no space's)"


def _standing(state: GameState) -> dict[str, int]:
    """Tokens standing on the board, by name (an attacker in combat waits beside it)."""
    return {name: space for space, name in state.occ.items()}
