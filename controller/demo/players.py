"""Bot players sitting at the table: they decide like the game's bots and act with hands.

A :class:`TablePlayers` never touches the game or the table's live objects: it
looks at what the table publishes (a :class:`~controller.table.awaits.TableAwaits`
got from its ``look``: on the demo, a request answered by the table loop on the
players' queue, see :mod:`controller.demo.watch`) and acts the way people do,
through :class:`Hands` — pressing buttons, moving tokens on the board, throwing
dice into the tray. The demo gives it hands that drive the simulated hardware
(gpiozero mock pins, the firmware's sensor matrix, the synthetic camera); a test
may give it hands that post the devices' events directly. Attack keeps follow the
reroll advisor; a defender keeps teleports and stars (or its card's symbols).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from controller.advisor.advisor import DiceAction as AdviceAction
from controller.core.errors import IllegalActionError
from controller.core.symbols import Symbol
from controller.game import engine
from controller.game.bots import Bot
from controller.game.engine import InputKind
from controller.game.events import Action, ChooseAttack, Move, Place, StepAside, StopRolling
from controller.game.legal import legal_actions
from controller.game.state import GameState, Phase
from controller.rules.attack import dodge_needed
from controller.table.awaits import TableAwaits
from controller.table.chooser import ENTER_DICE
from hardware.controls.events import ButtonName

FACES: tuple[Symbol, ...] = tuple(Symbol)


class Hands(Protocol):
    """What a player can physically do at the table."""

    def press(self, button: ButtonName, long: bool = False) -> None:
        """Press (and release) a button."""
        ...

    def move_token(self, origin: int, space: int) -> None:
        """Lift the token on ``origin`` and put it on ``space``."""
        ...

    def place_token(self, space: int) -> None:
        """Put a token on ``space`` (a new one, or the one in the player's hand)."""
        ...

    def lift_token(self, space: int) -> None:
        """Take the token on ``space`` in hand."""
        ...

    def throw(self, count: int) -> None:
        """Clear the tray and throw ``count`` dice."""
        ...

    def reroll(self, keep: Sequence[Symbol]) -> None:
        """Leave dice showing ``keep`` (a multiset) where they lie; throw the others again."""
        ...

    def dice(self) -> tuple[Symbol, ...]:
        """The faces really showing in the tray (what a person sees)."""
        ...


@dataclass
class PlayStats:
    """What the players did."""

    acts: int = 0
    presses: int = 0
    throws: int = 0
    token_moves: int = 0
    corrections: int = 0


Look = Callable[[], TableAwaits]


class TablePlayers:
    """Every seat's bot; :meth:`step` makes one physical act for whoever the table waits for.
    ``look`` gives what the table shows now (after every act handed to ``hands``)."""

    def __init__(self, look: Look, hands: Hands, bots: Sequence[Bot], seed: int = 0) -> None:
        self.look = look
        self.hands = hands
        self.bots = list(bots)
        self.seed = seed
        self.stats = PlayStats()
        self.seen: TableAwaits | None = None  # what the last look showed

    def rng(self, what: str) -> random.Random:
        """A generator seeded by the game's progress only, so a resumed game plays on the same."""
        return random.Random(f"{self.seed}:{self._now().events_applied}:{what}")

    def _now(self) -> TableAwaits:
        if self.seen is None:
            self.seen = self.look()
        return self.seen

    def _look(self) -> TableAwaits:
        self.seen = self.look()
        return self.seen

    def done(self) -> bool:
        """Whether the game is over."""
        return self._look().state.phase is Phase.OVER

    def step(self) -> None:
        """One act: answer a question on screen, or play the awaited seat's move.

        Raises:
            IllegalActionError: nothing can be done (a bug: the table waits for nothing).
        """
        self.stats.acts += 1
        seen = self._look()
        if seen.read_check is not None:
            self._fix_read()
            return
        state = seen.state
        aw = engine.awaiting(state)
        if aw.input is InputKind.FIRST_PLAYER:
            self._choose_value(self.rng("first").randrange(len(state.players)))
            return
        if aw.input is InputKind.DIE:
            self._choose_value(self.rng("die").randint(1, 6))
            return
        if state.phase is Phase.ATTACK:
            self._attack()
            return
        if state.phase is Phase.DEFENCE_ROLL:
            self._defend_roll()
            return
        seat = engine.actor(state)
        if seat is None:
            raise IllegalActionError(
                f"the table waits for nothing the players can do ({state.phase})"
            )
        decision = self.bots[seat % len(self.bots)].act(state, self.rng("bot"))
        if not isinstance(decision, Action):
            raise IllegalActionError(f"the bot answered {decision.kind} in {state.phase}")
        self._perform(decision)

    # ---------------------------------------------------------------- acts
    def _press(self, button: ButtonName, long: bool = False) -> None:
        self.stats.presses += 1
        self.hands.press(button, long)

    def _choose_value(self, value: object) -> None:
        """Step the cursor to ``value`` and confirm, checking the screen before confirming."""
        for _ in range(3):
            chooser = self._look().chooser
            if chooser is None or value not in chooser.values:
                raise IllegalActionError(f"nothing on screen offers {value!r}")
            target = chooser.values.index(value)
            for _ in range((target - chooser.selected) % len(chooser.values)):
                self._press(ButtonName.NEXT)
            now = self._look().chooser
            if now is not None and now.serial == chooser.serial and now.selected == target:
                self._press(ButtonName.CONFIRM)
                return
        raise IllegalActionError(f"the cursor would not stop on {value!r}")

    def _perform(self, action: Action) -> None:
        seen = self._now()
        state = seen.state
        if isinstance(action, Move) and seen.board_ok:
            self.stats.token_moves += 1
            origin = _on_board(state, action.warrior)
            if action.space in state.occ:  # an attack: lift the token, pick the move on screen
                self.hands.lift_token(origin)
                self._choose_value(action)
            else:
                self.hands.move_token(origin, action.space)
        elif (
            isinstance(action, StepAside)
            and state.phase is Phase.STEP_ASIDE
            and seen.board_ok
            and state.combat is not None
            and action.space not in state.occ  # onto a foe (a second combat): on screen
        ):
            self.stats.token_moves += 1
            c = state.combat
            if c.green or c.adjacent:  # the attacker stands on the board: move it
                self.hands.move_token(
                    engine.board_space(c.arena) if c.green else _on_board(state, c.attacker),
                    action.space,
                )
            else:  # it waited beside the defender
                self.hands.place_token(action.space)
        elif isinstance(action, Place) and seen.board_ok:
            self._select_warrior_to_place(action.warrior)
            self.stats.token_moves += 1
            self.hands.place_token(action.space)
        else:
            self._choose_value(action)

    def _select_warrior_to_place(self, warrior: str) -> None:
        chooser = self._now().chooser
        if chooser is None:
            raise IllegalActionError("nothing on screen to choose the warrior to place")
        for i, value in enumerate(chooser.values):
            if isinstance(value, Place) and value.warrior == warrior:
                for _ in range((i - chooser.selected) % len(chooser.values)):
                    self._press(ButtonName.NEXT)
                return
        raise IllegalActionError(f"{warrior} may not be placed now")

    def _attack(self) -> None:
        seen = self._now()
        state = seen.state
        c = state.combat
        if c is None:
            raise IllegalActionError("an attack with no combat")
        if not c.throws:
            self.stats.throws += 1
            self.hands.throw(c.pool)
            self._enter_dice_if_unseen()
            return
        can_reroll = engine.awaiting(state).input is InputKind.DICE
        best = seen.advice  # the advisor's best choice for the throw on show
        keep: tuple[Symbol, ...] | None = None
        if best is not None and can_reroll and best.action is AdviceAction.REROLL:
            keep = best.keep
        if keep is None:
            options = dict(engine.attack_options(state))
            chosen = max(options, key=lambda name: options[name])
            self._choose_value(
                ChooseAttack(
                    c.attacker_seat if c.striker == c.attacker else c.defender_seat, chosen
                )
            )
            return
        self.stats.throws += 1
        self.hands.reroll(keep)
        self._enter_dice_if_unseen()

    def _defend_roll(self) -> None:
        state = self._now().state
        c = state.combat
        if c is None:
            raise IllegalActionError("a defence roll with no combat")
        if not c.defence_throws:
            self.stats.throws += 1
            self.hands.throw(c.defence_pool)
            self._enter_dice_if_unseen()
            return
        stop = StopRolling(engine.actor(state) or 0)
        if stop in legal_actions(state) and (
            len(c.defence_throws) > c.defence_max_rerolls or self._defence_made()
        ):
            self._choose_value(stop)
            return
        last = tuple(Symbol(s) for s in c.defence_throws[-1])
        self.stats.throws += 1
        self.hands.reroll(tuple(d for d in last if d in (Symbol.TELEPORT, Symbol.STAR)))
        self._enter_dice_if_unseen()

    def _enter_dice_if_unseen(self) -> None:
        """With the camera gone, the dice are entered one by one with the buttons."""
        seen = self._look()
        if seen.camera_ok:
            return
        chooser = seen.chooser
        if chooser is not None and ENTER_DICE in chooser.values:
            self._choose_value(ENTER_DICE)
        for face in self.hands.dice():
            self._choose_value(face)

    def _defence_made(self) -> bool:
        state = self._now().state
        c = state.combat
        if c is None or not c.defence_throws:
            return False
        # the defender dodges; against a reflected sphere the attacker does
        thrower = (c.striker or c.attacker) if c.answer == "reflect" else (c.target or c.defender)
        form = c.attacker_form if thrower == c.attacker else c.defender_form
        dodger = state.data.fighter(thrower, form)
        need = dodge_needed(dodger, c.defence_pool, state.config.variants)  # as the rules
        last = c.defence_throws[-1]
        return sum(1 for s in last if s in ("teleport", "star")) >= need

    def _fix_read(self) -> None:
        """A read on screen to check: compare with the dice really thrown, fix, confirm."""
        check = self._now().read_check
        if check is None:
            return
        truth = _aligned(self.hands.dice(), check.dice)
        if check.fixing is None:
            if tuple(check.dice) == truth:
                self._press(ButtonName.CONFIRM)
                return
            self.stats.corrections += 1
            self._press(ButtonName.MENU)
            return
        i, faces = check.fixing, check.faces  # the game's die's, as the table offers them
        want = truth[i] if i < len(truth) and truth[i] in faces else faces[0]
        current = check.dice[i] if check.dice[i] in faces else faces[0]
        steps = (faces.index(want) - faces.index(current)) % len(faces)
        for _ in range(steps):
            self._press(ButtonName.NEXT)
        self._press(ButtonName.CONFIRM)


def _on_board(state: GameState, warrior: str) -> int:
    """The space ``warrior`` stands on.

    Raises:
        IllegalActionError: it is not on the board.
    """
    space = state.pieces[warrior].space
    if space is None or space < 0:
        raise IllegalActionError(f"{warrior} is not on the board")
    return space


def _aligned(truth: Sequence[Symbol], read: Sequence[Symbol | None]) -> tuple[Symbol, ...]:
    """The true faces in the order of the read: a die read right keeps its place, the others
    take what is left (as a person matching the screen to the tray would)."""
    left = list(truth)
    matched: list[Symbol | None] = []
    for face in read:
        if face is not None and face in left:
            left.remove(face)
            matched.append(face)
        else:
            matched.append(None)
    out = [f if f is not None else (left.pop(0) if left else FACES[0]) for f in matched]
    return tuple(out + left)
