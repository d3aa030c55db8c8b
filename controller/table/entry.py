"""Entering throws and moves: camera reads, dice by hand, corrections, board moves, buttons.

:class:`TableEntry` turns what the devices report into game events for the
game's owner (:class:`GameOwner`, the table controller) to journal and apply:

- a settled throw the reader is sure of is the throw; one it is not sure of (a
  cocked die, a count that does not match) waits as a :class:`ReadCheck` that a
  person confirms or corrects die by die (``menu`` also corrects the last throw
  used, journalled as a correction);
- with the camera gone, the dice are entered face by face with the buttons;
- the board's moves (through the move tracker) become moves, placements and
  steps aside; an attack is a lifted token whose move is chosen on screen;
- the buttons move the cursor of the :class:`~controller.table.chooser.Chooser`
  built from what the game waits for, and confirm its choice.
"""

from __future__ import annotations

import logging
from enum import StrEnum
from typing import Any, Protocol

from controller.core.errors import IllegalActionError, TopTableError
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.engine import InputKind
from controller.game.events import (
    Action,
    ChooseAttack,
    DiceThrown,
    DieCorrected,
    DieRolled,
    FirstPlayerChosen,
    GameEvent,
    Pass,
    StopRolling,
    ThrowCorrected,
)
from controller.game.legal import legal_actions
from controller.game.prompt import PHASE_TEXT
from controller.game.state import GameState, Phase
from controller.table.chooser import (
    ENTER_DICE,
    Chooser,
    ChooserKind,
    action_chooser,
    fight_chooser,
    number_chooser,
    starter_chooser,
)
from controller.table.entry_board import BoardEntry
from controller.table.read_check import ReadCheck, die_faces
from controller.table.stats import TableStats
from hardware.controls.events import ButtonName, ButtonPressed
from vision.events import ThrowSettled
from vision.reading.evidence import discard_evidence

log = logging.getLogger(__name__)


class FaultSource(StrEnum):
    """Where a fault the table found comes from (the screens show the source's name)."""

    RULES = "rules"  # an action or a throw the rules refuse
    JOURNAL = "journal"  # the journal cannot be written
    CAMERA = "camera"  # the camera is gone, or reads with the wrong dice model
    CAMERA_VIEW = "camera view"  # the camera sees the dice unlike the calibration photos
    BOARD = "board"  # the board link is down


NOTHING_TO_CORRECT = "nothing to correct: a throw or die is mended before the next action (UNDO it)"
"""MENU's answer when no throw or die roll is open to a correction."""
THROW_NOT_WANTED = "throw not used: the table does not ask for dice now"
"""The screens' fault line for a throw read while the game waits for something else."""
DIE_BY_BUTTONS = "the camera reads no number: enter the die's with the buttons"
"""The same, while the game waits for a die's number (a transformation, a fusion)."""
HALTED_FAULT = "journal cannot be written: table stopped"
"""The screens' fault line when the journal cannot be appended to."""
HALTED_HINT = "the table stops (nothing is played unrecorded): start it again once that is fixed"


class GameOwner(Protocol):
    """The one holder of the game state, which journals and applies the events entered."""

    faults: dict[FaultSource, str]

    @property
    def state(self) -> GameState:
        """The game state now."""
        ...

    def submit(self, event: GameEvent) -> bool:
        """Journal and apply ``event``; False if it was refused (and shown)."""
        ...

    def undo(self) -> None:
        """Undo the last player action (a refusal is shown)."""
        ...

    def correctable(self) -> DiceThrown | DieRolled | None:
        """The throw or die roll a correction would replace now (None: none is open)."""
        ...

    def next_game(self) -> None:
        """CONFIRM held at game over: the next game (or say how it starts)."""
        ...


class TableEntry(BoardEntry):
    """What the players enter, by camera, board and buttons, turned into game events."""

    def __init__(self, owner: GameOwner) -> None:
        self.owner = owner
        self.stats = TableStats()
        self.chooser: Chooser[Any] | None = None
        self.read_check: ReadCheck | None = None
        self.die_values: list[int] = []  # numbers entered for the die chooser so far
        self.faces_entered: list[Symbol] = []  # faces entered by hand for the throw so far
        self.camera_ok = True
        self.board_ok = True
        self.last_read: ThrowSettled | None = None
        self.board_note: str | None = None  # a move the board could not tell
        self.revealed = False  # a press showed the chooser the screens hid (see hidden)
        self.correcting_die = False  # the number chooser corrects the last die roll
        self._said_unwanted = False  # a throw before the game wants one is said once

    # ------------------------------------------------------------------ choosers
    def clear(self) -> None:
        """Forget the choice under way (the game moved on)."""
        self.chooser = None
        self.die_values = []
        self.revealed = self.correcting_die = False

    def rebuild(self, state: GameState) -> None:
        """Build what the buttons choose from for ``state``."""
        self.chooser = self._chooser_for(state)
        self.revealed = self.correcting_die = False

    def hidden(self, state: GameState) -> bool:
        """Whether the chooser the buttons act on is on no screen: while the camera gives
        an attack's or a defence's dice, or the board a move it could tell; until a press
        shows it (:meth:`_reveal`)."""
        c = self.chooser
        if c is None or c.kind is not ChooserKind.ACTIONS:
            return False  # dice, a die's numbers, a seat: only the buttons enter them
        if self.read_check is not None or self.revealed:
            return False
        if state.phase in (Phase.ATTACK, Phase.DEFENCE_ROLL):
            return self.camera_ok and not _thrown(state)  # the camera gives the throw
        moving = state.phase in (Phase.MOVE, Phase.STEP_ASIDE)
        return moving and self.board_ok and not c.count and self.board_note is None

    def marked_option(self, state: GameState) -> str | None:
        """The attack option under the cursor, which the combat screens mark (or None)."""
        c = self.chooser
        if state.phase is Phase.ATTACK and c is not None and c.values:
            value = c.value
            return value.option if isinstance(value, ChooseAttack) else None
        return None

    def _reveal(self) -> bool:
        """Show a hidden chooser instead of acting on it (a CONFIRM took a move nobody
        saw, a NEXT moved an unseen cursor); True if the press was spent so."""
        if not self.hidden(self.owner.state):
            return False
        self.revealed = True
        return True

    def _chooser_for(self, state: GameState) -> Chooser[Any] | None:
        aw = engine.awaiting(state)
        if state.phase is Phase.OVER:
            return None
        if aw.input is InputKind.FIRST_PLAYER:
            seats = tuple(range(len(state.players)))
            # the die rolled for who drafts first (A l.24); the youngest starts play later
            return Chooser("who drafts first?", state.players, seats, kind=ChooserKind.SEAT)
        if aw.input is InputKind.DIE:
            if state.phase is not Phase.TRANSFORM:
                return number_chooser("fusion die", 1, 6, count=aw.die_count)
            die: Chooser[Any] = number_chooser("transformation die", 1, 6, count=aw.die_count)
            # transforming is a choice (A l.89): the base form is kept with a Pass
            keep = [a for a in legal_actions(state) if isinstance(a, Pass)]
            die.labels += ("keep the base form",) * len(keep)
            die.values += tuple(keep)
            return die
        c = state.combat
        first_throw = c is not None and not (
            c.defence_throws if state.phase is Phase.DEFENCE_ROLL else c.throws
        )
        if aw.input is InputKind.DICE and not self.camera_ok and first_throw:
            return self._manual_dice(aw.dice)
        actions = list(legal_actions(state))
        if not actions:
            return None
        if state.phase is Phase.STORY_FIGHT and state.story is not None:
            return fight_chooser(state, actions)
        if state.phase is Phase.STARTER:
            return starter_chooser(state, actions)
        damage = dict(engine.attack_options(state)) if state.phase is Phase.ATTACK else None
        chooser: Chooser[Any] = action_chooser(PHASE_TEXT[state.phase].label, actions, damage)
        best = engine.best_attack_option(state) if damage else None
        if best is not None:  # marked: what costs the foe most, its Shield and Reflect counted
            chooser.select(ChooseAttack(actions[0].seat, best))
        if aw.input is InputKind.DICE and not self.camera_ok:
            chooser.labels += (ENTER_DICE.value,)
            chooser.values += (ENTER_DICE,)
            chooser.count = aw.dice
        return chooser

    def _manual_dice(self, count: int) -> Chooser[Symbol]:
        self.faces_entered = []
        faces = die_faces(self.owner.state)
        return Chooser(
            "die 1", tuple(str(f) for f in faces), faces, kind=ChooserKind.DICE_FACES, count=count
        )

    # ------------------------------------------------------------------ buttons
    def press(self, event: ButtonPressed) -> None:
        """confirm: take the choice (long: cash in the best / stop rolling); next: move;
        undo: cancel the last action; menu: correct the last read."""
        if event.button is ButtonName.UNDO:
            self._undo()
        elif event.button is ButtonName.NEXT:
            self.move_cursor(1)
        elif event.button is ButtonName.MENU:
            self._start_correction()
        elif event.button is ButtonName.CONFIRM:
            self._confirm(long=event.long)

    def move_cursor(self, steps: int) -> None:
        """Move the cursor (or the face of the die being corrected) ``steps`` places."""
        if self.read_check is not None and self.read_check.fixing is not None:
            die = self.read_check.fixing
            current, faces = self.read_check.dice[die], self.read_check.faces
            index = faces.index(current) if current in faces else -1
            self.read_check.dice[die] = faces[(index + steps) % len(faces)]
        elif self.chooser is not None and not self._reveal():
            self.chooser.move(steps)

    def _undo(self) -> None:
        """undo: drop the read being checked, else the last face or number entered by
        hand, else leave a correction or the dice entry, else the last action."""
        if self.read_check is not None:
            self._drop_read_check()  # the dice are thrown again
            return
        c = self.chooser
        state = self.owner.state
        if c is not None and c.kind is ChooserKind.DICE_FACES and self.faces_entered:
            self.faces_entered.pop()
            c.title = f"die {len(self.faces_entered) + 1}"
        elif c is not None and c.kind is ChooserKind.DIE_NUMBERS and self.die_values:
            self.die_values.pop()
            c.title = self._die_title()
        elif self.correcting_die:
            self.die_values = []
            self.rebuild(state)  # back from the correction, nothing journalled
        elif (
            c is not None
            and c.kind is ChooserKind.DICE_FACES
            and c.count
            and (root := self._chooser_for(state)) is not None
            and root.kind is not ChooserKind.DICE_FACES
        ):
            self.chooser = root  # back from entering dice to the choices (enter dice...)
        else:
            self.owner.undo()

    def _confirm(self, long: bool) -> None:
        if self.read_check is not None:
            self._confirm_read()
            return
        state = self.owner.state
        if long and state.phase is Phase.OVER:
            self.owner.next_game()
            return
        if (
            long
            and state.phase is Phase.ATTACK
            and state.combat is not None
            and state.combat.throws
        ):
            best = engine.best_attack_option(state)
            if best is not None:
                self._act(ChooseAttack(_seat(state), best))
            return
        if long and state.phase is Phase.DEFENCE_ROLL:
            self._act(StopRolling(_seat(state)))
            return
        chooser = self.chooser
        if chooser is None or self._reveal():
            return
        if chooser.value is ENTER_DICE:
            self.chooser = self._manual_dice(chooser.count)
        elif chooser.kind is ChooserKind.DICE_FACES:
            self._face_entered(chooser)
        elif chooser.kind is ChooserKind.DIE_NUMBERS and isinstance(chooser.value, Action):
            self.die_values = []
            self._act(chooser.value)  # keep the base form instead of rolling to transform
        elif chooser.kind is ChooserKind.DIE_NUMBERS:
            self.die_values.append(int(chooser.value))
            if len(self.die_values) >= chooser.count:
                values, self.die_values = tuple(self.die_values), []
                correcting, self.correcting_die = self.correcting_die, False
                self.owner.submit(DieCorrected(values) if correcting else DieRolled(values))
            else:
                chooser.title = self._die_title()
        elif chooser.kind is ChooserKind.SEAT and state.phase is Phase.FIRST_PLAYER:
            self.owner.submit(FirstPlayerChosen(int(chooser.value)))
        elif isinstance(chooser.value, Action):
            self._act(chooser.value)

    def _die_title(self) -> str:
        """The number chooser's title for the next die: ``die 2``, ``correct die 1``."""
        return f"{'correct ' if self.correcting_die else ''}die {len(self.die_values) + 1}"

    def _act(self, action: Action) -> None:
        if self.owner.submit(action):
            self.stats.button_actions += 1

    def _face_entered(self, chooser: Chooser[Symbol]) -> None:
        self.faces_entered.append(chooser.value)
        if len(self.faces_entered) >= chooser.count:
            self.owner.submit(DiceThrown(tuple(self.faces_entered)))
        else:
            chooser.title = f"die {len(self.faces_entered) + 1}"

    # ------------------------------------------------------------------ dice
    def on_throw(self, event: ThrowSettled) -> bool:
        """A settled throw: used at once if sure, else checked by a person first. True if
        the screens need drawing again (a submitted throw draws them itself)."""
        self.last_read = event
        if not event.moved:
            # every die lies where the last read saw it, same face: a hand passed over the
            # tray, dice were lifted out to be thrown again, or the exposure settled; an
            # attempt's first throw too (the last attempt's dice still lie there)
            self.stats.unmoved_reads += 1
            log.info("the camera read the dice again where they lay: not a throw")
            discard_evidence(event.evidence_path)
            return False
        state = self.owner.state
        aw = engine.awaiting(state)
        if aw.input is not InputKind.DICE:
            self.stats.unexpected_throws += 1
            if not self._said_unwanted:
                self._said_unwanted = True
                log.warning(
                    "the camera read a throw while the game waits for %s, not for dice: "
                    "throws are ignored until the game asks for one (said once; "
                    "counted in the table's unexpected throws)",
                    state.phase.value,
                )
            discard_evidence(event.evidence_path)  # no journal row will name its photo
            wants_number = aw.input is InputKind.DIE  # a die rolled in the tray for it
            self.owner.faults[FaultSource.RULES] = (
                DIE_BY_BUTTONS if wants_number else THROW_NOT_WANTED
            )
            return True
        self._said_unwanted = False
        self.stats.throws_read += 1
        # a read being checked, or a correction under way, is of dice thrown again since:
        # confirming it would enter them as a throw of their own, or over this one
        self._drop_read_check()
        try:
            dice = list(event.symbols())
        except TopTableError as exc:
            self.owner.faults[FaultSource.CAMERA] = short(f"wrong dice model: {exc}")
            discard_evidence(event.evidence_path)
            return True
        if event.trustworthy and len(dice) == aw.dice:
            self.owner.submit(
                DiceThrown(tuple(d for d in dice if d is not None), event.evidence_path or "")
            )
            return False
        self.stats.reads_flagged += 1
        seen = len(dice) if len(dice) != aw.dice else None
        while len(dice) < aw.dice:
            dice.append(None)
        wanted = max(aw.dice, 1)
        doubted = tuple(i for i in event.unsure if i < wanted)
        self.read_check = ReadCheck(
            event, dice[:wanted], die_faces(self.owner.state), seen=seen, doubted=doubted
        )
        return True

    def _drop_read_check(self) -> None:
        """Drop the read being checked, and its photo: no journal row will name it."""
        if self.read_check is not None and self.read_check.event is not None:
            discard_evidence(self.read_check.event.evidence_path)
        self.read_check = None

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
        if missing or check.seen is not None:  # each die of a miscounted read is checked
            check.fix(missing[0] if missing else 0)
            return
        self.read_check = None
        dice = tuple(d for d in check.dice if d is not None)
        if check.event is None:
            self.stats.reads_corrected += 1
            self.owner.submit(ThrowCorrected(dice))
        else:
            self.owner.submit(DiceThrown(dice, check.event.evidence_path or ""))

    def _start_correction(self) -> None:
        """menu: correct the read being checked, or the last throw or die roll, die by die
        (journalled as a correction), while no player action has followed it: after one,
        the correction could not take (it was entered, then refused) and UNDO comes first."""
        if self.read_check is not None:
            if self.read_check.fixing is None:
                self.read_check.fix(0)
            return
        last = self.owner.correctable()
        if isinstance(last, DiceThrown):
            dice: list[Symbol | None] = [Symbol(s) for s in last.dice]
            self.read_check = ReadCheck(None, dice, die_faces(self.owner.state), fixing=0)
        elif isinstance(last, DieRolled):
            self.die_values, self.correcting_die = [], True
            self.chooser = number_chooser(self._die_title(), 1, 6, count=len(last.values))
        else:
            self.owner.faults[FaultSource.RULES] = NOTHING_TO_CORRECT


def _thrown(state: GameState) -> bool:
    """Whether the roll under way has a throw: its choice is then asked on the screens."""
    c = state.combat
    return c is not None and bool(
        c.defence_throws if state.phase is Phase.DEFENCE_ROLL else c.throws
    )


def _seat(state: GameState) -> int:
    seat = engine.actor(state)
    if seat is None:
        raise IllegalActionError(f"no player acts now ({state.phase})")
    return seat


def short(text: str, limit: int = 60) -> str:
    """``text`` cut to ``limit`` characters for a screen's fault line."""
    return text if len(text) <= limit else text[: limit - 1] + "…"
