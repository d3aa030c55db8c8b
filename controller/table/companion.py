"""A companion mode at the table: the table keeps another card game's numbers (issue 15).

:class:`CompanionTable` owns one companion game (:mod:`controller.companion`): the cards
stay in the players' hands, the table keeps every number, says whose turn and which
step it is, offers each player the actions the rules allow now, enters them with the
four buttons, refuses what the rules forbid (showing the rule), and journals everything
(:mod:`controller.companion.journal`) so undo and a pulled plug lose nothing. What it
shows is asked of the mode object (its title, each player's numbers written short)
and drawn on every sink (the displays, a recorder) after each change.

The buttons, like the dice table's choosers:

* ``next`` (held: repeats; the encoder turns both ways) steps through the list shown:
  the actions offered to the player, then the values of each field the action needs;
* ``confirm`` takes the selected item; the last field submits the action;
* ``undo`` steps back one field, or out of the action; at the list of actions it takes
  the last journalled action back;
* ``menu`` leaves the action being entered; at the list of actions it offers the next
  player who has something to do (the table offers the right player first: the turn
  player, the player who rolls, the target of an attack...);
* ``confirm`` held once the game is won stops the table for the next game, as at the
  dice table (:mod:`controller.daemon.finished`).

A press after a refusal clears it. The rules are pure functions of the state: an action
is checked against them, journalled (one committed SQLite row), and only then does the
table take the new state, so nothing acts on an action the journal does not hold.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from controller.companion.base import CompanionMode, Offer, RuleViolationError, action_to_json
from controller.companion.entry import EntryField, Value, build_action, enterable, entry_fields
from controller.companion.journal import ActionRefused, ActionTaken, CompanionJournal
from controller.companion.registry import get_mode
from controller.core.errors import TableHaltedError
from controller.core.kinds import GameKind
from controller.storage.journal import JournalCorruptError, JournalError, JournalIOError
from controller.table.entry import HALTED_FAULT, HALTED_HINT
from controller.table.paused import NEXT_GAME_HINT
from hardware.controls.events import ButtonName, ButtonPressed, ButtonRepeated, EncoderTurned
from hardware.displays.companion import CompanionRefusal, CompanionSeat, CompanionView

log = logging.getLogger(__name__)

ACTION_QUESTION = "action"
OWN_FIELDS = frozenset({"player", "by", "attacker", "winner"})
"""Fields that name the acting player (left out of the short line describing an action)."""


class CompanionSink(Protocol):
    """Something that shows a companion table's views: the displays, a recorder."""

    def update(self, view: CompanionView) -> Any:
        """Show ``view``."""
        ...


def describe(player: str | None, action: dict[str, Any]) -> str:
    """A short line for an action: ``Bob: attack Dee``."""
    do = str(action["do"])
    parts = [do]
    for key, value in action.items():
        own = key in OWN_FIELDS and do not in ("choose_first", "final")  # the actor itself
        if key == "do" or value is None or (own and value == player):
            continue
        if isinstance(value, dict):
            parts += [f"{k} {v}" for k, v in value.items()]
        elif isinstance(value, list):
            parts += [str(v) for v in value if v != player]
        else:
            parts.append(str(value))
    line = " ".join(parts)
    return f"{player}: {line}" if player else line


class CompanionTable:
    """One companion game at the table: its state, its journal, its button flow, its view."""

    def __init__(
        self,
        mode: CompanionMode[Any, Any],
        journal: CompanionJournal,
        sinks: Sequence[CompanionSink] = (),
    ) -> None:
        self.mode = mode
        self.journal = journal
        self.sinks = list(sinks)
        self.players: tuple[str, ...] = journal.players
        self._data: dict[str, Any] | None = journal.setup.get("data")
        self.state: Any = None
        self.history = 0  # effective actions journalled
        self.player: str | None = None
        self.choices: tuple[Offer, ...] = ()
        self.choice: Offer | None = None
        self.fields: tuple[EntryField, ...] = ()
        self.answers: dict[str, Value] = {}
        self.selected = 0
        self.refusal: CompanionRefusal | None = None
        self.last = ""
        self.presses = 0
        self.refusals = 0
        self.undos = 0
        self.device_faults: dict[str, str] = {}  # what the device layer reports, replaced whole
        self.paused = False
        self.on_next_game: Callable[[], None] | None = None  # stops the table for the next
        self.next_asked = False  # CONFIRM was held once the game was won
        self.listeners: list[Callable[[CompanionTable], None]] = []
        """Called after every journalled row (an action, a refused one, an undo): publishing."""
        self._replay()
        self._offer()

    # ------------------------------------------------------------------ making one
    @classmethod
    def new(
        cls,
        kind: GameKind | str,
        players: Sequence[str],
        journal_path: str | Path,
        data: dict[str, Any] | None = None,
        sinks: Sequence[CompanionSink] = (),
        seed: int | None = None,
        played_by: str | None = None,
    ) -> CompanionTable:
        """A new game of ``kind`` (DataError for bad players) journalled at ``journal_path``
        (which records ``seed`` and ``played_by``).

        Raises:
            UnknownNameError: no such companion mode.
            DataError: a wrong number of players, or bad data overrides.
            JournalIOError: a journal already exists there, or cannot be written.
        """
        mode = get_mode(kind)
        mode.new_game(players, data)  # check the players before a journal is written
        journal = CompanionJournal.start(journal_path, mode.kind, players, data, seed, played_by)
        return cls(mode, journal, sinks)

    @classmethod
    def resume(
        cls, journal_path: str | Path, sinks: Sequence[CompanionSink] = ()
    ) -> CompanionTable:
        """The game in ``journal_path``, where it was left (after a crash or a pulled plug).

        Raises:
            JournalError: no journal, a damaged one, or an action it holds is refused.
        """
        journal = CompanionJournal.open(journal_path)
        try:
            return cls(get_mode(journal.kind), journal, sinks)
        except BaseException:
            journal.close()
            raise

    @property
    def kind(self) -> GameKind:
        """The mode played."""
        return self.mode.kind

    def close(self) -> None:
        """Close the journal (idempotent)."""
        self.journal.close()

    def __enter__(self) -> CompanionTable:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ the game
    def _replay(self) -> None:
        state = self.mode.new_game(
            self.players,
            self._data,
            source=str(self.journal.path),
            revision=self.journal.rules_revision,
        )
        actions = self.journal.actions()
        for i, action in enumerate(actions):
            try:
                state = self.mode.apply(state, action)
            except RuleViolationError as exc:
                raise JournalCorruptError(
                    f"{self.journal.path}: journalled action {i + 1} ({action.DO}) is refused "
                    f"now: {exc}"
                ) from None
        self.state = state
        self.history = len(actions)

    @property
    def winner(self) -> str | None:
        """The winner once the game is over."""
        winner = self.mode.to_json(self.state).get("winner")
        return str(winner) if winner is not None else None

    def offered(self, player: str) -> tuple[Offer, ...]:
        """What the rules allow ``player`` now, and the buttons can enter."""
        return tuple(
            c for c in self.mode.legal_actions(self.state, player) if enterable(self.mode, c)
        )

    def _ordered(self, player: str) -> tuple[Offer, ...]:
        """``player``'s choices, those only they have now first (the turn's own actions)."""
        shared = {c.do for p in self.players if p != player for c in self.offered(p)}
        return tuple(sorted(self.offered(player), key=lambda c: c.do in shared))

    def _offer(self, prefer: str | None = None, keep: str | None = None) -> None:
        """Back to the list of actions, for ``prefer`` if they have one, else the right player."""
        self.choice, self.fields, self.answers = None, (), {}
        turn = self.mode.whose_turn(self.state)
        order = [p for p in (prefer, turn) if p] + list(self.players)
        self.player = next((p for p in order if self.offered(p)), None)
        self.choices = self._ordered(self.player) if self.player else ()
        dos = [c.do for c in self.choices]
        self.selected = dos.index(keep) if keep in dos else 0

    def submit(self, player: str | None, action: dict[str, Any]) -> CompanionRefusal | None:
        """Check ``action`` (JSON form) against the rules, journal it, take it; or refuse it.

        Raises:
            DataError: the action is malformed (a bug in the caller, not a refusal).
            JournalIOError: the journal cannot be written (nothing changed).
        """
        parsed = self.mode.parse_action(action, self.players, "table", "action")
        try:
            state = self.mode.apply(self.state, parsed)
        except RuleViolationError as exc:
            self.journal.append(ActionRefused(parsed, exc.rule, exc.reason))
            self.refusals += 1
            self.refusal = CompanionRefusal(str(action["do"]), exc.reason, exc.rule)
            self._offer(prefer=player, keep=str(action["do"]))
            self._journalled()
            return self.refusal
        self.journal.append(ActionTaken(parsed))
        self.state = state
        self.history += 1
        self.last = describe(player, action)
        target = action.get("target")
        self._offer(prefer=target if isinstance(target, str) else None)
        self._journalled()
        return None

    def _journalled(self) -> None:
        for listener in self.listeners:
            listener(self)

    def undo(self) -> bool:
        """Take the last journalled action back (False if there is none)."""
        undone = self.journal.undo()
        if undone is None:
            return False
        self._replay()
        self.undos += 1
        self.last = f"undone: {describe(None, action_to_json(undone))}"
        self._offer()
        self._journalled()
        return True

    # ------------------------------------------------------------------ the buttons
    def handle(self, event: object) -> bool:
        """Act on a button or encoder event and show the result; False if it is not one of
        ours. A journal error is logged (nothing changed); a journal that cannot be
        written stops the table.

        Raises:
            TableHaltedError: the journal cannot be appended to (the screens say so).
        """
        try:
            if isinstance(event, ButtonPressed):
                self.press(event.button, event.long)
            elif isinstance(event, ButtonRepeated) and event.button is ButtonName.NEXT:
                self.press(ButtonName.NEXT)
            elif isinstance(event, EncoderTurned):
                self.presses += 1
                self.refusal = None
                self._move(event.steps)
            else:
                return False
        except JournalIOError as exc:  # it would refuse every press that follows: stop
            self._offer(prefer=self.player)  # the half-entered action is dropped: not taken
            self.last, self.paused = HALTED_FAULT, True
            self.render()
            raise TableHaltedError(f"{exc}; {HALTED_HINT}") from None
        except JournalError as exc:  # nothing changed: the action is not taken
            log.error("journal: %s", exc)
        self.render()
        return True

    def _items(self) -> tuple[str, ...]:
        if self.choice is None:
            return tuple(c.do for c in self.choices)
        return self.fields[len(self.answers)].labels

    def _move(self, steps: int) -> None:
        n = len(self._items())
        if n:
            self.selected = (self.selected + steps) % n

    def press(self, button: ButtonName, long: bool = False) -> None:
        """One press of ``button`` (a long press acts as a short one, but CONFIRM held
        once the game is won: the next game)."""
        self.presses += 1
        self.refusal = None
        if button is ButtonName.CONFIRM and long and self.winner is not None:
            self.next_game()
        elif button is ButtonName.NEXT:
            self._move(1)
        elif button is ButtonName.CONFIRM:
            self._confirm()
        elif button is ButtonName.UNDO:
            self._back()
        elif button is ButtonName.MENU:
            self._menu()

    def _confirm(self) -> None:
        if self.player is None or not self.choices:
            return
        if self.choice is None:
            self.choice = self.choices[self.selected % len(self.choices)]
            self.fields = entry_fields(self.mode, self.state, self.choice, self.player)
            self.answers, self.selected = {}, 0
        else:
            f = self.fields[len(self.answers)]
            self.answers[f.key] = f.values[self.selected % len(f.values)]
            self.selected = 0
        if len(self.answers) == len(self.fields):
            action = build_action(self.mode, self.choice, self.player, self.answers)
            self.submit(self.player, action)

    def _back(self) -> None:
        if self.choice is None:
            self.undo()
            return
        if not self.answers:
            self._offer(prefer=self.player, keep=self.choice.do)
            return
        _key, value = self.answers.popitem()
        self.selected = self.fields[len(self.answers)].values.index(value)

    def _menu(self) -> None:
        if self.choice is not None:
            self._offer(prefer=self.player, keep=self.choice.do)
            return
        if self.player is None:
            return
        i = self.players.index(self.player)
        ring = self.players[i + 1 :] + self.players[: i + 1]
        nxt = next(p for p in ring if self.offered(p) or p == self.player)
        self._offer(prefer=nxt)

    # ------------------------------------------------------------------ the daemon's
    def status_line(self) -> str:
        """The STATUS= text systemd shows: the mode and its step."""
        return f"{self.mode.name}: {self.mode.step(self.state)}"

    def next_game(self) -> None:
        """CONFIRM held once the game is won: the table stops, to start again with the next
        game (the daemon's ``on_next_game``; the finished journal is set aside then)."""
        if self.on_next_game is None:
            self.last = NEXT_GAME_HINT
            return
        log.info("game over: the table stops for the next game")
        self.next_asked = True
        self.on_next_game()

    def set_device_faults(self, faults: Mapping[str, str]) -> None:
        """What the device layer reports now (replaced whole); the screens are drawn again,
        so a display that came back shows the game at once."""
        self.device_faults = dict(faults)
        self.render()

    def pause(self) -> None:
        """The table stops: the screens say so (nothing is offered until it starts again)."""
        self.paused = True
        self.render()

    # ------------------------------------------------------------------ the screens
    def render(self) -> CompanionView:
        """Show the view on every sink (a sink's failure is logged, not raised)."""
        view = self.view()
        for sink in self.sinks:
            try:
                sink.update(view)
            except Exception:
                log.exception("a view sink failed")
        return view

    def view(self) -> CompanionView:
        """What the displays show now."""
        game = self.mode.to_json(self.state)
        turn = self.mode.whose_turn(self.state)
        out = set(game.get("eliminated", ()))
        seats = []
        for p in game["players"]:
            summary = self.mode.seat_summary(p)
            name = str(p["name"])
            seats.append(
                CompanionSeat(
                    name, summary.numbers, summary.main, turn=name == turn, out=name in out
                )
            )
        question = ACTION_QUESTION
        if self.choice is not None:
            question = self.fields[len(self.answers)].key
        return CompanionView(
            title=self.mode.title,
            step=self.mode.step(self.state),
            turn=turn,
            seats=tuple(seats),
            player=self.player,
            question=question,
            action=self.choice.do if self.choice is not None else "",
            options=self._items(),
            selected=self.selected,
            refusal=self.refusal,
            winner=self.winner,
            last=self.last,
            paused=self.paused,
            next_game=self.next_asked,
        )
