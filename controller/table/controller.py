"""The table flow: device events in, journalled game events out, screens and LEDs after.

:class:`TableController` runs on the table loop's thread (it owns the game).
The rules say what the game waits for (:func:`controller.game.engine.awaiting`);
the camera gives the dice, the board gives the moves, the buttons give every
choice and correction. Each game event is journalled by
:class:`~controller.game.session.TableGame` before the state changes; then the
view is rebuilt and drawn. Faults (camera lost, board unplugged, a display
gone) degrade the table to button entry and stay on screen until fixed.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from controller.advisor.advisor import Advisor
from controller.core.errors import IllegalActionError, TopTableError
from controller.core.symbols import Symbol
from controller.daemon.events import Tick
from controller.daemon.loop import TableLoop
from controller.game import engine
from controller.game.events import (
    Action,
    ChooseAttack,
    DiceThrown,
    DieRolled,
    FirstPlayerChosen,
    GameEvent,
    Move,
    Place,
    Shuffled,
    StepAside,
    StopRolling,
    ThrowCorrected,
    TimeUp,
)
from controller.game.journal import JournalError
from controller.game.legal import legal_actions
from controller.game.session import TableGame
from controller.game.state import GameState, Length, Phase
from controller.table.chooser import Chooser, action_chooser, number_chooser
from controller.table.view import Overlay, build_view
from hardware.controls.events import ButtonName, ButtonPressed, ButtonRepeated, EncoderTurned
from hardware.displays.model import Advice, Fault, Prompt, PromptKind, TableView
from vision.events import CameraLost, CameraRestored, ThrowSettled

log = logging.getLogger(__name__)

GAME_SECONDS = 45 * 60
FACES: tuple[Symbol, ...] = tuple(Symbol)
ENTER_DICE = "enter new dice"  # with the camera gone: the next throw is entered by hand


class ViewSink(Protocol):
    """Something that shows views: the displays, the LEDs and buzzer, a recorder."""

    def update(self, view: TableView) -> Any:
        """Show ``view``."""
        ...


@dataclass
class TableStats:
    """What the table did, for the demo's summary and the logs."""

    throws_read: int = 0
    reads_flagged: int = 0
    reads_corrected: int = 0
    unexpected_throws: int = 0
    moves_from_board: int = 0
    moves_refused: int = 0
    button_actions: int = 0
    refused: list[str] = field(default_factory=list)


@dataclass
class _ReadCheck:
    """A read that needs a person: its dice (None: cocked) and how far the correction got."""

    event: ThrowSettled | None  # None: correcting a throw already used
    dice: list[Symbol | None]
    fixing: int | None = None  # index of the die whose face is being chosen

    def fix(self, index: int | None) -> None:
        """Choose the face of die ``index`` next (None: done); a cocked die starts on a face."""
        self.fixing = index
        if index is not None and self.dice[index] is None:
            self.dice[index] = FACES[0]


class TableController:
    """Turns the table's device events into game events, and the game into views."""

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
        self.stats = TableStats()
        self.faults: dict[str, str] = {}  # what the table found (rules, tokens, camera lost...)
        self.device_faults: dict[str, str] = {}  # what the device layer reports, replaced whole
        self.chooser: Chooser[Any] | None = None
        self.read_check: _ReadCheck | None = None
        self.die_values: list[int] = []
        self.camera_ok = True
        self.board_ok = True
        self.advise = advise
        self.advice: Advice | None = None
        self.advisor_key: tuple[object, ...] | None = None
        self.advisor: Advisor | None = None
        # The 45-minute game runs on the wall clock (the players go on while the table
        # restarts); its start is kept in ``clock_file`` beside the journal.
        self.game_clock = game_clock
        self.clock_file = clock_file
        self.clock_start = clock_start if clock_start is not None else self._saved_clock_start()
        self.now = self.clock_start or 0.0
        self._shown_seconds: int | None = None
        self.view: TableView | None = None
        self.last_read: ThrowSettled | None = None
        self.board_note: str | None = None  # a move the board could not tell
        self.listeners: list[Callable[[GameState], None]] = []
        self.roll_started = roll_started  # tells the camera a new attempt starts
        self._built_for = -1
        self.refresh()

    # ------------------------------------------------------------------ wiring
    def attach(self, loop: TableLoop) -> None:
        """Register this controller's handlers on ``loop``."""
        loop.on(ButtonPressed, self.on_button)
        loop.on(ButtonRepeated, self.on_repeat)
        loop.on(EncoderTurned, self.on_encoder)
        loop.on(ThrowSettled, self.on_throw)
        loop.on(CameraLost, self.on_camera_lost)
        loop.on(CameraRestored, self.on_camera_restored)
        loop.on(Tick, self.on_tick)

    @property
    def state(self) -> GameState:
        """The game state now."""
        return self.game.state

    # ------------------------------------------------------------------ submitting
    def submit(self, event: GameEvent) -> bool:
        """Journal and apply one game event; an illegal one is refused and shown, not raised."""
        try:
            self.game.submit(event)
        except JournalError as exc:  # a full or read-only card: nothing may act unrecorded
            log.error("journal: %s", exc)
            self.faults["journal"] = _short(f"journal: {exc}")
            self.render()
            return False
        except TopTableError as exc:  # an illegal action, an impossible throw...
            self.stats.refused.append(str(exc))
            log.warning("refused %s: %s", event.kind, exc)
            self.faults["rules"] = _short(str(exc))
            self.render()
            return False
        self.faults.pop("rules", None)
        self.faults.pop("journal", None)
        self.board_note = None
        for listener in self.listeners:
            listener(self.game.state)
        self.refresh()
        return True

    def refresh(self) -> None:
        """Rebuild what the buttons choose from (after a state change) and redraw."""
        state = self.game.state
        if state.events_applied != self._built_for:
            self._built_for = state.events_applied
            self.chooser = None
            self.die_values = []
            if self._table_input(state):
                return  # submit() refreshed again
            self.chooser = self._chooser_for(state)
            self.advice = self._advise(state)
            self._announce_roll(state)
        self.render()

    def _announce_roll(self, state: GameState) -> None:
        """Tell the camera a new attempt starts (its roll count and dice count restart)."""
        c = state.combat
        if self.roll_started is None or c is None:
            return
        if state.phase is Phase.ATTACK and not c.throws:
            self.roll_started(c.pool)
        elif state.phase is Phase.DEFENCE_ROLL and not c.d_throws:
            self.roll_started(c.d_pool)

    def _table_input(self, state: GameState) -> bool:
        """Inputs the table provides itself: the card decks' shuffles (journalled)."""
        aw = engine.awaiting(state)
        if "shuffle" in aw.inputs and aw.decks:
            deck = aw.decks[0]
            order = engine.expected_deck(state, deck)
            random.Random(f"{self.seed}:{state.events_applied}:{deck}").shuffle(order)
            return self.submit(Shuffled(deck, tuple(order)))
        return False

    def _chooser_for(self, state: GameState) -> Chooser[Any] | None:
        aw = engine.awaiting(state)
        if state.phase is Phase.OVER:
            return None
        if "first_player" in aw.inputs:
            seats = tuple(range(len(state.players)))
            return Chooser("who starts?", state.players, seats)
        if "die" in aw.inputs:
            title = "transformation die" if state.phase is Phase.TRANSFORM else "fusion die"
            numbers = number_chooser(title, 1, 6)
            numbers.meta["count"] = aw.die_count
            return numbers
        c = state.combat
        first_throw = c is not None and not (
            c.d_throws if state.phase is Phase.DEFENCE_ROLL else c.throws
        )
        if "dice" in aw.inputs and not self.camera_ok and first_throw:
            return self._manual_dice(aw.dice)
        actions = list(legal_actions(state))
        if not actions:
            return None
        damage = dict(engine.attack_options(state)) if state.phase is Phase.ATTACK else None
        chooser = action_chooser(str(state.phase).replace("_", " "), actions, damage)
        if damage:
            best = max(damage.items(), key=lambda kv: kv[1])[0]
            chooser.select(ChooseAttack(actions[0].seat, best))
        if "dice" in aw.inputs and not self.camera_ok:
            chooser.labels += (ENTER_DICE,)
            chooser.values += (ENTER_DICE,)  # type: ignore[operator]
            chooser.meta["dice"] = aw.dice
        return chooser

    def _manual_dice(self, count: int) -> Chooser[Symbol]:
        chooser: Chooser[Symbol] = Chooser("die 1", tuple(str(f) for f in FACES), FACES)
        chooser.meta.update(manual=True, count=count, dice=[])
        return chooser

    # ------------------------------------------------------------------ buttons
    def on_button(self, event: ButtonPressed) -> None:
        """confirm: take the choice (long: cash in the best / stop rolling); next: move;
        undo: cancel the last action; menu: correct the last read."""
        if event.button is ButtonName.UNDO:
            self._undo()
        elif event.button is ButtonName.NEXT:
            self._move_cursor(1)
        elif event.button is ButtonName.MENU:
            self._start_correction()
        elif event.button is ButtonName.CONFIRM:
            self._confirm(long=event.long)
        self.render()

    def on_repeat(self, event: ButtonRepeated) -> None:
        """Holding next keeps moving the cursor."""
        if event.button is ButtonName.NEXT:
            self._move_cursor(1)
            self.render()

    def on_encoder(self, event: EncoderTurned) -> None:
        """The encoder moves the cursor both ways."""
        self._move_cursor(event.steps)
        self.render()

    def _move_cursor(self, steps: int) -> None:
        if self.read_check is not None and self.read_check.fixing is not None:
            die = self.read_check.fixing
            current = self.read_check.dice[die]
            index = FACES.index(current) if current is not None else -1
            self.read_check.dice[die] = FACES[(index + steps) % len(FACES)]
        elif self.chooser is not None:
            self.chooser.move(steps)

    def _undo(self) -> None:
        if self.read_check is not None:
            self.read_check = None  # drop the read being checked; the dice are thrown again
            return
        try:
            undone = self.game.undo()
        except TopTableError as exc:
            self.faults["rules"] = _short(str(exc))
            return
        log.info("undo: %s", undone.kind)
        self._built_for = -1
        for listener in self.listeners:
            listener(self.game.state)
        self.refresh()

    def _confirm(self, long: bool) -> None:
        if self.read_check is not None:
            self._confirm_read()
            return
        state = self.game.state
        if (
            long
            and state.phase is Phase.ATTACK
            and state.combat is not None
            and state.combat.throws
        ):
            options = engine.attack_options(state)
            best = max(options, key=lambda kv: kv[1])[0]
            self._act(ChooseAttack(_seat(state), best))
            return
        if long and state.phase is Phase.DEFENCE_ROLL:
            self._act(StopRolling(_seat(state)))
            return
        chooser = self.chooser
        if chooser is None:
            return
        if chooser.value == ENTER_DICE:
            self.chooser = self._manual_dice(int(str(chooser.meta["dice"])))
        elif chooser.meta.get("manual"):
            self._manual_die_chosen(chooser)
        elif "count" in chooser.meta:
            self.die_values.append(int(chooser.value))
            if len(self.die_values) >= int(str(chooser.meta["count"])):
                values, self.die_values = tuple(self.die_values), []
                self.submit(DieRolled(values))
            else:
                chooser.title = f"die {len(self.die_values) + 1}"
        elif isinstance(chooser.value, int) and state.phase is Phase.FIRST_PLAYER:
            self.submit(FirstPlayerChosen(chooser.value))
        elif isinstance(chooser.value, Action):
            self._act(chooser.value)

    def _act(self, action: Action) -> None:
        if self.submit(action):
            self.stats.button_actions += 1

    def _manual_die_chosen(self, chooser: Chooser[Symbol]) -> None:
        dice = chooser.meta["dice"]
        if not isinstance(dice, list):
            return
        dice.append(chooser.value)
        count = int(str(chooser.meta["count"]))
        if len(dice) >= count:
            self.submit(DiceThrown(tuple(dice)))
        else:
            chooser.title = f"die {len(dice) + 1}"

    # ------------------------------------------------------------------ dice
    def on_throw(self, event: ThrowSettled) -> None:
        """A settled throw: used at once if sure, else checked by a person first."""
        self.last_read = event
        state = self.game.state
        aw = engine.awaiting(state)
        if "dice" not in aw.inputs:
            self.stats.unexpected_throws += 1
            log.info("a throw was read while the game waits for %s; ignored", state.phase)
            return
        self.stats.throws_read += 1
        try:
            dice = list(event.symbols())
        except TopTableError as exc:
            self.faults["camera"] = _short(f"wrong dice model: {exc}")
            self.render()
            return
        if event.trustworthy and len(dice) == aw.dice:
            self.submit(
                DiceThrown(tuple(d for d in dice if d is not None), event.evidence_path or "")
            )
            return
        self.stats.reads_flagged += 1
        while len(dice) < aw.dice:
            dice.append(None)
        self.read_check = _ReadCheck(event, dice[: max(aw.dice, 1)])
        self.render()

    def _confirm_read(self) -> None:
        """confirm on a read being checked: next die while fixing, else fix a cocked die,
        else accept the dice as shown."""
        check = self.read_check
        if check is None:
            return
        if check.fixing is not None:
            nxt = check.fixing + 1
            check.fix(nxt if nxt < len(check.dice) else None)
            return
        missing = [i for i, d in enumerate(check.dice) if d is None]
        if missing:
            check.fix(missing[0])
            return
        self.read_check = None
        dice = tuple(d for d in check.dice if d is not None)
        if check.event is None:
            self.stats.reads_corrected += 1
            self.submit(ThrowCorrected(dice))
        else:
            self.submit(DiceThrown(dice, check.event.evidence_path or ""))

    def _start_correction(self) -> None:
        """menu: correct the read being checked, or the last throw used (journalled as a
        correction), die by die."""
        if self.read_check is not None:
            if self.read_check.fixing is None:
                self.read_check.fix(0)
            return
        state = self.game.state
        c = state.combat
        throws = (c.d_throws if state.phase is Phase.DEFENCE_ROLL else c.throws) if c else ()
        if throws:
            self.read_check = _ReadCheck(None, [Symbol(s) for s in throws[-1]], fixing=0)

    # ------------------------------------------------------------------ board
    def on_board_move(self, token: str, src: int, dst: int) -> bool:
        """A move the board saw (through the move tracker): the game's move or step aside."""
        state = self.game.state
        seat = engine.actor(state)
        action: Action | None = None
        if seat is not None and state.phase is Phase.MOVE:
            action = Move(seat, token, dst)
        elif seat is not None and state.phase is Phase.STEP_ASIDE:
            action = StepAside(seat, dst)
        if action is None:
            log.info("board: %s %s->%s while %s; nothing to do", token, src, dst, state.phase)
            return False
        ok = self.submit(action)
        if ok:
            self.stats.moves_from_board += 1
        else:
            self.stats.moves_refused += 1
        return ok

    def on_token_placed(self, space: int) -> bool:
        """A token put on an empty space: at set-up, the warrior chosen with the buttons;
        after a combat, the attacker stepping aside."""
        state = self.game.state
        seat = engine.actor(state)
        chosen = self.chooser.value if self.chooser is not None and self.chooser.values else None
        action: Action | None = None
        if seat is not None and state.phase is Phase.PLACE and isinstance(chosen, Place):
            action = Place(seat, chosen.warrior, space)
        elif seat is not None and state.phase is Phase.STEP_ASIDE:
            action = StepAside(seat, space)
        if action is None:
            return False
        ok = self.submit(action)
        if ok:
            self.stats.moves_from_board += 1
        return ok

    def token_lifted(self, token: str) -> None:
        """A token left its space while moving: the choice narrows to its moves (an attack
        on an occupied space is confirmed with the buttons)."""
        state = self.game.state
        if state.phase is not Phase.MOVE or self.chooser is None:
            return
        moves = [a for a in self.chooser.values if isinstance(a, Move) and a.warrior == token]
        if moves:
            damage = None
            self.chooser = action_chooser(f"move {token}", moves, damage)
            self.render()

    def board_problem(self, text: str | None) -> None:
        """What the board saw that does not fit the game (a token on an illegal space, two
        tokens it cannot tell apart): asked on the screens, answered by choosing the move
        with the buttons. None clears it."""
        self.board_note = text
        self.render()

    def board_lost(self, reason: str) -> None:
        """The board link is down: moves are entered with the buttons until it is back."""
        self.board_ok = False
        self.faults["board"] = _short(f"board: {reason}")
        self._built_for = -1
        self.refresh()

    def board_back(self) -> None:
        """The board link is back (after a resync)."""
        self.board_ok = True
        self.faults.pop("board", None)
        self._built_for = -1
        self.refresh()

    # ------------------------------------------------------------------ camera
    def on_camera_lost(self, event: CameraLost) -> None:
        """Camera gone: the dice are entered with the buttons until it is back."""
        self.camera_ok = False
        self.faults["camera"] = _short(f"camera lost: {event.reason}")
        self._built_for = -1
        self.refresh()

    def on_camera_restored(self, event: CameraRestored) -> None:
        """Camera back: dice are read again."""
        self.camera_ok = True
        self.faults.pop("camera", None)
        self._built_for = -1
        self.refresh()

    # ------------------------------------------------------------------ clock
    def on_tick(self, event: Tick) -> None:
        """The clock: time left in the 45-minute game, TimeUp once it runs out."""
        state = self.game.state
        if state.config.length is not Length.MINUTES45 or state.round < 1:
            return  # nothing on screen depends on the time
        self.now = self.game_clock()
        if self.clock_start is None:
            self.clock_start = self.now
            self._save_clock_start()
        left = self.seconds_left()
        if left == 0 and not state.time_up and state.phase is not Phase.OVER:
            self.submit(TimeUp())
        elif left != self._shown_seconds:
            self._shown_seconds = left
            self.render()

    def seconds_left(self) -> int | None:
        """Seconds left in a timed game (None: not timed or not started)."""
        if self.game.state.config.length is not Length.MINUTES45 or self.clock_start is None:
            return None
        return max(0, int(GAME_SECONDS - (self.now - self.clock_start)))

    def _saved_clock_start(self) -> float | None:
        if self.clock_file is None:
            return None
        try:
            return float(self.clock_file.read_text(encoding="utf-8").strip())
        except (OSError, ValueError):
            return None

    def _save_clock_start(self) -> None:
        if self.clock_file is None or self.clock_start is None:
            return
        try:
            self.clock_file.write_text(f"{self.clock_start}\n", encoding="utf-8")
        except OSError as exc:
            log.warning("cannot keep the game clock in %s: %s", self.clock_file, exc.strerror)

    # ------------------------------------------------------------------ advice
    def _advise(self, state: GameState) -> Advice | None:
        c = state.combat
        if not self.advise or state.phase is not Phase.ATTACK or c is None or not c.throws:
            return None
        striker = c.striker or c.attacker
        target = c.target or c.defender
        s_form = c.a_form if striker == c.attacker else c.d_form
        t_form = c.d_form if target == c.defender else c.a_form
        key = (striker, s_form, target, t_form, c.pool, c.max_rerolls, state.pieces[target].damage)
        try:
            if key != self.advisor_key:
                self.advisor = Advisor(
                    state.data.fighter(striker, s_form),
                    defender=state.data.fighter(target, t_form),
                    defender_damage=state.pieces[target].damage,
                    variants=state.config.variants,
                    pool=c.pool,
                    rerolls=c.max_rerolls,
                )
                self.advisor_key = key
            if self.advisor is None:
                return None
            advice = self.advisor.advise(tuple(Symbol(s) for s in c.throws[-1]), len(c.throws) - 1)
        except TopTableError as exc:
            log.debug("no advice: %s", exc)
            return None
        best = advice.best
        return Advice(best.keep, best.p_eliminate, best.expected_damage)

    # ------------------------------------------------------------------ drawing
    def overlay(self) -> Overlay:
        """The table's additions to the view: the question asked, the faults, the clock."""
        faults = {**self.device_faults, **self.faults}
        return Overlay(self._prompt(), _faults(faults), self.seconds_left(), self.advice)

    def _prompt(self) -> Prompt | None:
        check = self.read_check
        if check is not None:
            shown = tuple(d if d is not None else Symbol.STAR for d in check.dice)
            if check.fixing is not None:
                return Prompt(
                    PromptKind.CONFIRM_READ, f"die {check.fixing + 1}: next changes it",
                    ("NEXT", "OK"), 1, shown, check.fixing,
                )  # fmt: skip
            cocked = [i for i, d in enumerate(check.dice) if d is None]
            if cocked:
                return Prompt(
                    PromptKind.RETHROW, f"die {cocked[0] + 1} is cocked: throw it again, or OK to enter it",
                    ("OK",), 0, shown, cocked[0],
                )  # fmt: skip
            return Prompt(PromptKind.CONFIRM_READ, "is this read right?", ("UNDO", "OK"), 1, shown)
        chooser = self.chooser
        state = self.game.state
        if chooser is None or (
            state.phase in (Phase.ATTACK, Phase.DEFENCE_ROLL) and self.camera_ok
        ):
            return None
        if state.phase in (Phase.MOVE, Phase.STEP_ASIDE) and self.board_ok and not chooser.meta:
            if self.board_note is None:
                return None  # the board gives the move; the chooser stays as a fallback
            label = chooser.labels[chooser.selected] if chooser.labels else ""
            return Prompt(
                PromptKind.CHOOSE_MOVE, f"{self.board_note}. Move: {label}", ("NEXT", "OK"), 1,
                step=chooser.selected + 1, steps=len(chooser.labels),
            )  # fmt: skip
        label = chooser.labels[chooser.selected] if chooser.labels else ""
        return Prompt(
            PromptKind.CHOOSE, label, ("NEXT", "OK"), 1,
            step=chooser.selected + 1, steps=len(chooser.labels), title=chooser.title,
        )  # fmt: skip

    def render(self) -> TableView:
        """Rebuild the view and show it on every sink (a sink's failure is logged)."""
        view = build_view(self.game.state, self.overlay())
        self.view = view
        for sink in self.sinks:
            try:
                sink.update(view)
            except Exception:
                log.exception("a view sink failed")
        return view


def _seat(state: GameState) -> int:
    seat = engine.actor(state)
    if seat is None:
        raise IllegalActionError(f"no player acts now ({state.phase})")
    return seat


def _short(text: str, limit: int = 60) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _faults(faults: dict[str, str]) -> tuple[Fault, ...]:
    return tuple(Fault(k, v) for k, v in sorted(faults.items()))
