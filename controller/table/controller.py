"""The table's game owner: device events in, journalled game events out, screens after.

:class:`TableController` runs on the table loop's thread and is the only
holder of the game state. What the players enter (camera reads, dice by hand,
corrections, board moves, buttons) goes through its
:class:`~controller.table.entry.TableEntry`; the 45-minute clock (journalled
beside the game) is a :class:`~controller.table.clock.GameClock`; the advisor's line an
:class:`~controller.table.advice.AdviceLine`. Each game event is journalled by
:class:`~controller.game.session.TableGame` before the state changes; then the
choosers are rebuilt, the view (:mod:`controller.table.view`) is drawn on every
sink, and a :class:`~controller.table.awaits.TableAwaits` goes to every
watcher. Faults (camera lost, board unplugged, a display gone) degrade the table
to button entry and stay on screen until fixed; a camera that sees the dice unlike the
dice model's calibration photos (the reader's ``OutOfDepth``) is said there too, while
its throws are still read, until a throw looks as in calibration (``BackInDepth``).

The daemon wires the handlers to its loop (:mod:`controller.daemon.wiring`) and
talks to the table through its methods: :meth:`TableController.set_device_faults`,
:meth:`TableController.pause`, :meth:`TableController.status_line` (the
:class:`~controller.table.game_table.GameTable` every kind of table has).
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from controller.core.errors import TableHaltedError, TopTableError
from controller.core.kinds import GameKind
from controller.game import engine
from controller.game.engine import InputKind
from controller.game.events import (
    ClockEvent,
    DiceThrown,
    DieCorrected,
    DieRolled,
    FirstPlayerChosen,
    GameEvent,
    Shuffled,
    ThrowCorrected,
    TimeUp,
)
from controller.game.journal import (
    InputNotUndoneError,
    JournalError,
    JournalIOError,
    NothingToUndoError,
)
from controller.game.prompt import status_line
from controller.game.session import TableGame
from controller.game.state import GameState, Length, Phase
from controller.storage.errors import APPEND_FAILED
from controller.table.advice import AdviceLine
from controller.table.awaits import ChooserShown, ReadShown, TableAwaits
from controller.table.clock import ClockChange, GameClock
from controller.table.entry import (
    HALTED_FAULT,
    HALTED_HINT,
    FaultSource,
    TableEntry,
    short,
)
from controller.table.paused import NEXT_GAME_HINT, paused_overlay
from controller.table.stats import TableStats
from controller.table.view import Overlay, build_view, faults_from, prompt_for
from hardware.controls.events import ButtonName, ButtonPressed, ButtonRepeated, EncoderTurned
from hardware.displays.model import TableView
from vision.events import BackInDepth, CameraLost, CameraRestored, OutOfDepth, ThrowSettled
from vision.reading.evidence import discard_evidence

log = logging.getLogger(__name__)

__all__ = ["TableController", "TableStats", "ViewSink"]


class ViewSink(Protocol):
    """Something that shows views: the displays, the LEDs and buzzer, a recorder."""

    def update(self, view: TableView) -> Any:
        """Show ``view``."""
        ...


class TableController:
    """Owns the game: applies what the players enter, and shows the game to them."""

    def __init__(
        self,
        game: TableGame,
        sinks: Sequence[ViewSink] = (),
        *,
        seed: int = 0,
        clock_start: float | None = None,
        advise: bool = True,
        roll_started: Callable[[int], None] | None = None,
        game_clock: Callable[[], float] = time.time,
        clock_file: Path | None = None,
    ) -> None:
        self.game = game
        self.sinks = list(sinks)
        self.seed = seed
        self.entry = TableEntry(self)
        self.stats: TableStats = self.entry.stats
        self.advice = AdviceLine(advise)
        self.faults: dict[FaultSource, str] = {}  # what the table found (rules, camera lost...)
        # The clock lives in the journal: back as it was for a resumed game; a journal
        # from before that kept its start in ``clock_file`` has it journalled now.
        self.clock = GameClock(game_clock, self._record_clock, clock_start)
        self.clock.restore(game.journal.events())
        if clock_file is not None and game.state.config.length is Length.MINUTES45:
            self.clock.adopt_file(clock_file)
        self.device_faults: dict[str, str] = {}  # what the device layer reports, replaced whole
        self.paused = False
        self.halted: str | None = None  # why the journal could not be written (table stopped)
        self.on_next_game: Callable[[], None] | None = None  # stops the table for the next
        self.next_asked = False  # CONFIRM was held at game over
        self.view: TableView | None = None
        self.listeners: list[Callable[[GameState], None]] = []  # after each change of the game
        self.watchers: list[Callable[[TableAwaits], None]] = []  # after each redraw
        self.roll_started = roll_started  # tells the camera a new attempt starts
        self._roll_told: tuple[Phase, int] | None = None  # the roll the camera was told of
        self._built_for: int | None = None  # the events applied when the chooser was built
        self.refresh()

    @property
    def state(self) -> GameState:
        """The game state now."""
        return self.game.state

    @property
    def kind(self) -> GameKind:
        """The game played: the Tournament or Story mode."""
        return self.game.config.kind

    # ------------------------------------------------------------------ the daemon's
    def status_line(self) -> str:
        """The STATUS= text systemd shows (:func:`controller.game.prompt.status_line`)."""
        return status_line(self.game.state)

    def set_device_faults(self, faults: Mapping[str, str]) -> None:
        """What the device layer reports now (source -> message, replaced whole); the
        screens are drawn again when it changed (a display that came back shows the game)."""
        if dict(faults) != self.device_faults:
            self.device_faults = dict(faults)
            self.render()

    def pause(self) -> TableView:
        """The table stops: nothing is offered, the screens say the game resumes when it
        starts again (and keep saying it: the daemon leaves them on)."""
        self.paused = True
        self.entry.clear()
        return self.render()

    def next_game(self) -> None:
        """CONFIRM held at game over: the table stops, to start again with the next game
        (the daemon's ``on_next_game``; the finished journal is set aside then)."""
        if self.on_next_game is None:
            self.faults[FaultSource.RULES] = NEXT_GAME_HINT
            return
        log.info("game over: the table stops for the next game")
        self.next_asked = True
        self.on_next_game()

    # ------------------------------------------------------------------ the game
    def submit(self, event: GameEvent) -> bool:
        """Journal and apply one game event; an illegal one is refused and shown, not raised."""
        try:
            self.game.submit(event)
        except JournalError as exc:  # a full or read-only card: nothing may act unrecorded
            self._journal_failed(exc)
            return False
        except TopTableError as exc:  # an illegal action, an impossible throw...
            if isinstance(event, DiceThrown):
                discard_evidence(event.evidence)  # no journal row will name its photo
            self.stats.refused.append(str(exc))
            log.warning("refused %s: %s", event.kind, exc)
            self.faults[FaultSource.RULES] = short(str(exc))
            self.render()
            return False
        self.faults.pop(FaultSource.RULES, None)
        self.faults.pop(FaultSource.JOURNAL, None)
        self.entry.board_note = None
        if isinstance(event, ThrowCorrected | DieCorrected):  # folded in: as many events
            self._built_for = None  # applied, but the choices are the corrected dice's
        self._changed()
        return True

    def correctable(self) -> DiceThrown | DieRolled | None:
        """The throw or die roll a correction would replace now (see TableGame)."""
        return self.game.correctable()

    def undo(self) -> None:
        """Undo the last player action (journalled); a refusal is shown in the table's
        words (the journal's own begin with its path, which filled the screen's line)."""
        try:
            undone = self.game.undo()
        except NothingToUndoError:
            self.faults[FaultSource.RULES] = "nothing to undo"
            return
        except InputNotUndoneError as exc:
            self.faults[FaultSource.RULES] = input_stands(exc.event)
            return
        except JournalIOError as exc:  # nothing undone: a card taking no row stops the table
            self._journal_failed(exc)
            return
        except TopTableError as exc:
            self.faults[FaultSource.RULES] = short(str(exc))
            return
        self.faults.pop(FaultSource.RULES, None)
        log.info("undo: %s", undone.kind)
        self._built_for = None
        self._changed()

    def _changed(self) -> None:
        for listener in self.listeners:
            listener(self.game.state)
        self.refresh()

    def refresh(self) -> None:
        """Rebuild what the buttons choose from (after a state change) and redraw."""
        state = self.game.state
        if state.events_applied != self._built_for:
            self._built_for = state.events_applied
            self.entry.clear()
            if self._table_input(state):
                return  # submit() refreshed again
            self.entry.rebuild(state)
            self.advice.update(state)
            self._announce_roll(state)
        self.render()

    def _rebuild(self) -> None:
        self._built_for = None
        self.refresh()

    def _announce_roll(self, state: GameState) -> None:
        """Tell the camera a new attempt starts (its roll count and dice count restart), or
        which roll is under way when it was not the last one told (an UNDO back to the
        attack from the defence roll, a game resumed mid-attack), or that the roll told
        is over (0: no throw is awaited)."""
        c = state.combat
        if self.roll_started is None:
            return
        roll: tuple[Phase, int] | None = None
        if c is not None and state.phase is Phase.ATTACK:
            roll, thrown = (state.phase, c.pool), c.throws
        elif c is not None and state.phase is Phase.DEFENCE_ROLL:
            roll, thrown = (state.phase, c.defence_pool), c.defence_throws
        if roll is None:
            if self._roll_told is not None:  # the roll told is over
                self._roll_told = None
                self.roll_started(0)
        elif not thrown or roll != self._roll_told:
            self._roll_told = roll
            self.roll_started(roll[1])

    def _table_input(self, state: GameState) -> bool:
        """Inputs the table provides itself: the card decks' shuffles (journalled)."""
        aw = engine.awaiting(state)
        if aw.input is InputKind.SHUFFLE and aw.decks:
            deck = aw.decks[0]
            order = engine.expected_deck(state, deck)
            random.Random(f"{self.seed}:{state.events_applied}:{deck}").shuffle(order)
            return self.submit(Shuffled(deck, tuple(order)))
        return False

    # ------------------------------------------------------------------ buttons
    def on_button(self, event: ButtonPressed) -> None:
        """A button press (see :meth:`TableEntry.press`); a refusal shown is read by then:
        it goes (it covered the next question until an action was accepted)."""
        self.faults.pop(FaultSource.RULES, None)
        self.entry.press(event)
        self.render()

    def on_repeat(self, event: ButtonRepeated) -> None:
        """Holding next keeps moving the cursor."""
        if event.button is ButtonName.NEXT:
            self.entry.move_cursor(1)
            self.render()

    def on_encoder(self, event: EncoderTurned) -> None:
        """The encoder moves the cursor both ways."""
        self.entry.move_cursor(event.steps)
        self.render()

    # ------------------------------------------------------------------ camera
    def on_throw(self, event: ThrowSettled) -> None:
        """A settled throw: used at once if sure, else checked by a person first."""
        if self.entry.on_throw(event):
            self.render()

    def on_camera_lost(self, event: CameraLost) -> None:
        """Camera gone: the dice are entered with the buttons until it is back."""
        self.entry.camera_ok = False
        self.faults[FaultSource.CAMERA] = short(f"camera lost: {event.reason}")
        self._rebuild()

    def on_camera_restored(self, event: CameraRestored) -> None:
        """Camera back: dice are read again."""
        self.entry.camera_ok = True
        self.faults.pop(FaultSource.CAMERA, None)
        self._rebuild()

    def on_out_of_depth(self, event: OutOfDepth) -> None:
        """The camera sees the dice otherwise than calibration did: said on the screens and
        in the log until a throw is seen as in calibration again (throws are still read)."""
        for warning in event.warnings:
            log.warning("dice camera: %s", warning)
        self.faults[FaultSource.CAMERA_VIEW] = f"dice camera: {'; '.join(event.lines)}"
        self.render()

    def on_back_in_depth(self, event: BackInDepth) -> None:
        """The camera sees the dice as in calibration again."""
        if self.faults.pop(FaultSource.CAMERA_VIEW, None) is not None:
            log.info("dice camera: the dice look as in calibration again")
            self.render()

    # ------------------------------------------------------------------ board
    def on_board_move(self, token: str, src: int, dst: int) -> bool:
        """A move the board saw: the game's move or step aside (True if played)."""
        return self.entry.on_board_move(token, src, dst)

    def on_token_placed(self, space: int) -> bool:
        """A token put on an empty space: a placement or a step aside (True if played)."""
        return self.entry.on_token_placed(space)

    def token_lifted(self, token: str) -> None:
        """A token left its space while moving: the choice narrows to its moves."""
        if self.entry.token_lifted(token):
            self.render()

    def board_problem(self, text: str | None) -> None:
        """What the board saw that does not fit the game (a token on an illegal space, two it
        cannot tell apart): asked on the screens, answered with the buttons; None clears it."""
        self.entry.board_note = text
        self.render()

    def board_lost(self, reason: str) -> None:
        """The board link is down: moves are entered with the buttons until it is back."""
        self.entry.board_ok = False
        self.faults[FaultSource.BOARD] = short(f"board: {reason}")
        self._rebuild()

    def board_back(self) -> None:
        """The board link is back (after a resync)."""
        self.entry.board_ok = True
        self.faults.pop(FaultSource.BOARD, None)
        self._rebuild()

    # ------------------------------------------------------------------ clock
    def on_tick(self) -> None:
        """The clock (on the loop's ticks): time left in a 45-minute game, TimeUp at 0."""
        change = self.clock.tick(self.game.state)
        if change is ClockChange.TIME_UP:
            self.submit(TimeUp())
        elif change is ClockChange.SHOWN:
            self.render()

    def _record_clock(self, event: ClockEvent) -> None:
        """Journal a clock event beside the game's (a full card is a fault, as for any)."""
        try:
            self.game.submit(event)
        except JournalError as exc:
            self._journal_failed(exc)

    def _journal_failed(self, exc: JournalError) -> None:
        """A journal write failed: nothing acted. A journal that cannot be written stops
        the table (the screens say so) rather than refuse every event that follows.

        Raises:
            TableHaltedError: the journal cannot be appended to.
        """
        if isinstance(exc, JournalIOError):
            self.faults[FaultSource.JOURNAL] = HALTED_FAULT
            # the paused screens keep saying why, and what to do (the path is the log's;
            # that the journal cannot be written, the fault line's)
            why = str(exc).removeprefix(f"{APPEND_FAILED}: ")
            self.halted = why.replace(f"{self.game.journal.path}: ", "")
            self.render()
            raise TableHaltedError(f"{exc}; {HALTED_HINT}") from None
        log.error("journal: %s", exc)
        self.faults[FaultSource.JOURNAL] = short(f"journal: {exc}")
        self.render()

    def seconds_left(self) -> int | None:
        """Seconds left in a timed game (None: not timed or not started)."""
        return self.clock.seconds_left(self.game.state)

    # ------------------------------------------------------------------ drawing
    def overlay(self) -> Overlay:
        """The table's additions to the view: the question asked, the faults, the clock."""
        if self.paused:
            return paused_overlay(self.halted, self.next_asked, self.seconds_left())
        faults = {**self.device_faults, **{str(k): v for k, v in self.faults.items()}}
        state = self.game.state
        cursor = None
        if state.phase is Phase.ATTACK and self.entry.chooser is not None:
            cursor = (self.entry.marked_option(state),)
        return Overlay(
            prompt_for(state, self.entry),
            faults_from(faults),
            self.seconds_left(),
            self.advice.advice,
            cursor,
        )

    def render(self) -> TableView:
        """Rebuild the view, show it on every sink (a sink's failure is logged) and tell
        the watchers."""
        view = build_view(self.game.state, self.overlay())
        self.view = view
        for sink in self.sinks:
            try:
                sink.update(view)
            except Exception:
                log.exception("a view sink failed")
        if self.watchers:
            awaits = self.awaits()
            for watcher in self.watchers:
                watcher(awaits)
        return view

    def awaits(self) -> TableAwaits:
        """What the table shows and waits for now (an immutable snapshot)."""
        entry = self.entry
        return TableAwaits(
            state=self.game.state,
            chooser=ChooserShown.of(entry.chooser) if entry.chooser is not None else None,
            read_check=ReadShown.of(entry.read_check) if entry.read_check is not None else None,
            camera_ok=entry.camera_ok,
            board_ok=entry.board_ok,
            advice=self.advice.best,
            reads=self.stats.throws_read + self.stats.unexpected_throws + self.stats.unmoved_reads,
            last_read=entry.last_read,
        )


def input_stands(event: GameEvent) -> str:
    """The screen's words when UNDO meets an input: it stands, and how it is mended."""
    if isinstance(event, DiceThrown | ThrowCorrected):
        return "a throw is not undone: MENU corrects its dice"
    if isinstance(event, DieRolled | DieCorrected):
        return "a die's result is not undone: MENU corrects it"
    if isinstance(event, FirstPlayerChosen):
        return "who drafts first is not undone"
    return f"a {event.kind.replace('_', ' ')} is not undone"
