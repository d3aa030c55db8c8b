"""``toptable demo --mode MODE``: a whole companion game played by bots through the real table.

The table is the daemon's, opened the way ``toptable run`` opens a companion mode
(:mod:`controller.demo.table`): the demo config's mock buttons, two dummy displays
(128x64: the numbers; 128x32: the choice or a refusal), the
:class:`~controller.table.companion.CompanionTable` on the loop's thread, every
action journalled to SQLite before it is taken. The bots
(:mod:`controller.companion.bots`) decide what each player does; their fingers
press the gpiozero buttons (:class:`~controller.demo.world.MockButtons`), reading only
what the table shows (a look answered on the loop's thread:
:class:`~controller.demo.watch.CompanionWatch`). A seed makes the game repeatable;
``stop_after`` leaves a game half-played (a pulled plug) and ``resume`` picks it up
from its journal. With ``events`` (``--mqtt URL --table-id ID``) the game is
published as it is played, like the dice demo's.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from controller.companion.base import CompanionAction, CompanionMode
from controller.companion.bots import CompanionBot, Decision, Undo
from controller.companion.entry import label
from controller.companion.journal import ActionTaken, CompanionJournal
from controller.companion.registry import get_mode, players_problem
from controller.core.errors import TopTableError
from controller.daemon.hardware import TableDevices
from controller.daemon.publishing import finish_publishing
from controller.daemon.tables import AnySink, CompanionGame, TableOptions
from controller.demo.record import ScreenRecorder
from controller.demo.runner import DEFAULT_PLAYERS, DEFAULT_SEED, halted, make_out, make_room
from controller.demo.scratch import mark_as_scratch, marked_when_made
from controller.demo.table import DEMO_CONFIG, FLUSH_S, demo_config, demo_table, faults_text
from controller.demo.watch import CompanionSeen, CompanionWatch, WatchTimeoutError
from controller.demo.world import MockButtons
from controller.publish.settings import EventsSettings
from controller.storage.origin import refuse_contradiction
from controller.storage.rows import UNDO_KIND
from controller.table.settings import TableConfig
from hardware.controls.events import ButtonName
from hardware.displays.settings import DisplaysConfig, ScreenConfig, ScreenDriver, ScreenRole

MAX_DECISIONS = 5000
SCREENS = DisplaysConfig(
    screens=(
        ScreenConfig(role=ScreenRole.TURN, driver=ScreenDriver.DUMMY),  # the numbers
        ScreenConfig(role=ScreenRole.COMBAT, driver=ScreenDriver.DUMMY, height=32),  # the choice
    )
)
"""The companion table's displays in the demo."""


class CompanionDemoError(TopTableError, RuntimeError):
    """The companion demo could not play on (the message says where it stopped)."""


@dataclass
class CompanionDemoSummary:
    """What ``toptable demo --mode MODE --json`` prints."""

    mode: str
    seed: int
    players: list[str]
    winner: str | None
    step: str
    actions: int  # effective actions in the journal
    refused: int  # actions the rules refused (in this run)
    undos: int  # actions taken back (in this run)
    button_presses: int
    journal_rows: int
    seconds: float
    journal: str
    gif: str
    resumed: bool = False
    finished: bool = True
    screens_drawn: int = 0
    notes: list[str] = field(default_factory=list)
    delivery: str | None = None  # --mqtt only: "N of M events delivered[; the rest wait ...]"
    undelivered: int | None = None  # --mqtt only: journal rows the broker has not taken

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON-able dict (the delivery only with --mqtt)."""
        return {k: v for k, v in self.__dict__.items() if v is not None or k not in _DELIVERY}


_DELIVERY = frozenset({"delivery", "undelivered"})


class CompanionFingers:
    """Carries out the bots' decisions with presses, reading only what the table shows."""

    def __init__(self, watch: CompanionWatch, buttons: MockButtons, players: int) -> None:
        self.watch = watch
        self.buttons = buttons
        self.players = players
        self.seen = watch.look()

    def press(self, button: ButtonName) -> CompanionSeen:
        """Press ``button`` and look once the table has taken it in."""
        self.buttons.press(button)
        self.seen = self.watch.look()
        return self.seen

    def select(self, wanted: str) -> None:
        """Step through the list shown until ``wanted`` is selected."""
        view = self.seen.view
        if wanted not in view.options:
            raise CompanionDemoError(
                f"{view.player} is offered {', '.join(view.options)}, not {wanted!r}"
            )
        for _ in range((view.options.index(wanted) - view.selected) % len(view.options)):
            self.press(ButtonName.NEXT)

    def perform(self, decision: Decision | Undo) -> None:
        """Carry out one bot decision."""
        if isinstance(decision, Undo):
            while self.seen.view.action:
                self.press(ButtonName.MENU)
            self.press(ButtonName.UNDO)
            return
        for _ in range(self.players + 1):
            view = self.seen.view
            if view.player == decision.player and not view.action:
                break
            self.press(ButtonName.MENU)
        else:
            raise CompanionDemoError(f"the table never offered {decision.player} a choice")
        self.select(decision.do)
        self.press(ButtonName.CONFIRM)
        for _ in range(len(decision.answers)):
            view = self.seen.view
            if not view.action:
                break
            self.select(label(decision.answers[view.question]))
            self.press(ButtonName.CONFIRM)


def catch_up(bot: CompanionBot, mode: CompanionMode[Any, Any], journal: CompanionJournal) -> None:
    """Let ``bot`` decide once before each row of ``journal``, seeing the game as the
    players saw it then: its generator and its plans end where those of the bots who
    played the journalled rows ended, so a resumed game plays on as the uninterrupted
    one does (each of the bots' decisions is one row: an action taken or refused, or an
    undo marker).
    """
    for state, history in seen_before_each_row(mode, journal):
        bot.decide(mode, state, history)


def seen_before_each_row(
    mode: CompanionMode[Any, Any], journal: CompanionJournal
) -> Iterator[tuple[Any, int]]:
    """The game's state and its number of effective actions before each row of ``journal``,
    in order (an undo marker takes the action it names back; a refused action changes
    nothing)."""
    start = mode.new_game(
        journal.players, journal.setup.get("data"), str(journal.path), journal.rules_revision
    )
    taken: list[tuple[int, CompanionAction]] = []  # (row, action), effective so far
    state = start
    for row in journal.rows():
        yield state, len(taken)
        if row.kind == UNDO_KIND:
            taken = [(seq, a) for seq, a in taken if seq != row.undoes]
            state = start
            for _, action in taken:
                state = mode.apply(state, action)
            continue
        event = journal.decode(row)
        if isinstance(event, ActionTaken):
            taken.append((row.seq, event.action))
            state = mode.apply(state, event.action)


def run_companion_demo(
    mode: str,
    seed: int | None = None,
    players: int | None = None,
    names: tuple[str, ...] = (),
    out: Path = Path("out/demo"),
    fast: bool = False,
    journal: Path | None = None,
    resume: bool = False,
    stop_after: int | None = None,
    events: EventsSettings | None = None,
) -> CompanionDemoSummary:
    """Play a whole ``mode`` game by bots through the table's buttons, displays and journal.

    ``fast`` skips the GIF; ``stop_after`` stops after that many bot decisions (the
    game is left in its journal, as after a pulled plug); ``names`` are the players'
    (default: ``players`` of the demo's own); ``resume`` continues the
    game in ``journal``; ``events`` publishes it (flushed for up to 5 s at the end).

    Raises:
        UnknownNameError: no such mode.
        JournalError: the journal cannot be written, or (resume) read.
        CompanionDemoError: (not resume) a number of players the mode does not allow; the
            game did not reach a winner, or (resume) the journal holds another mode's game.
        LinkError: (``events``) the publisher could not start, or its broker refused it
            or could not be reached; before any move.
        DemoError: (not resume) ``journal`` holds a game already, or its folder is not
            there; ``out`` cannot be made.
        ContradictionError: (resume) ``seed``, ``names`` or ``players`` is not the
            journal's.
    """
    started = time.monotonic()
    companion: CompanionMode[Any, Any] = get_mode(mode)
    path = journal or out / companion.kind.companion_journal_name
    if resume:
        with CompanionJournal.open(path) as held:
            if held.kind is not companion.kind:
                raise CompanionDemoError(f"{path} holds a {held.kind.value} game, not {mode}")
            if names:
                refuse_contradiction(path, "--names", ", ".join(names), ", ".join(held.players))
            refuse_contradiction(path, "--players", players, len(held.players))
            players = len(held.players)
            refuse_contradiction(path, "--seed", seed, held.origin.seed)
            kept = held.origin.seed
        seed = kept if kept is not None else seed
    seed = DEFAULT_SEED if seed is None else seed
    players = DEFAULT_PLAYERS if players is None else players
    if not resume:
        why = players_problem(companion.kind, players)
        if why is not None:
            raise CompanionDemoError(f"{'--names' if names else '--players'}: {why}")
        make_out(out)
        make_room(path, chosen=journal is not None)
    section = TableConfig(mode=companion.kind, players=players, journal=path)
    config = replace(demo_config(DEMO_CONFIG, section), displays=SCREENS)
    recorders: list[ScreenRecorder] = []

    def record(devices: TableDevices) -> list[AnySink]:
        recorders.append(ScreenRecorder(devices.displays))
        return list(recorders)

    run = TableOptions(seed=seed)
    scratch = journal is None and not resume
    with (
        marked_when_made(path, scratch),
        demo_table(
            config, run, events=events, sinks=record, companion_at=path, names=names
        ) as demo,
    ):
        running = demo.running
        if scratch:
            mark_as_scratch(path)  # the next demo may replace this game, and no other
        if not isinstance(running, CompanionGame) or demo.devices.pin_factory is None:
            raise CompanionDemoError(
                f"the demo's devices did not open: {faults_text(demo.devices.faults())}"
            )
        table = running.table
        watch = CompanionWatch(demo.loop, table)
        demo.start()
        buttons = MockButtons(demo.devices.pin_factory, config.controls.buttons)
        fingers = CompanionFingers(watch, buttons, players)
        bot = CompanionBot(seed * 1000)
        if resume:
            catch_up(bot, companion, table.journal)
        decisions = 0
        finished = True
        notes: list[str] = []
        while True:
            decision = bot.decide(companion, fingers.seen.state, fingers.seen.history)
            if decision is None:
                break
            if stop_after is not None and decisions >= stop_after:
                finished = False
                notes.append(f"stopped after {decisions} decisions (resume with its journal)")
                break
            if decisions >= MAX_DECISIONS:
                raise CompanionDemoError(f"no winner after {decisions} decisions")
            try:
                fingers.perform(decision)
            except WatchTimeoutError:
                halted(demo.loop)
                raise
            halted(demo.loop)
            decisions += 1
        demo.stop()  # the table is this thread's to read from here on
        if finished and table.winner is None:
            raise CompanionDemoError(f"the game stopped at {companion.step(table.state)}")
        recorder = recorders[0]
        gif = "" if fast else str(recorder.save(out / f"companion-{companion.name}.gif") or "")
        delivery = finish_publishing(demo.publisher, FLUSH_S)
        return CompanionDemoSummary(
            mode=companion.name,
            seed=seed,
            players=list(table.players),
            winner=table.winner,
            step=companion.step(table.state),
            actions=table.history,
            refused=table.refusals,
            undos=table.undos,
            button_presses=buttons.presses,
            journal_rows=len(table.journal),
            seconds=round(time.monotonic() - started, 2),
            journal=str(path),
            gif=gif,
            resumed=resume,
            finished=finished,
            screens_drawn=recorder.pictures,
            notes=notes,
            delivery=delivery.text() if delivery is not None else None,
            undelivered=delivery.total - delivery.delivered if delivery is not None else None,
        )
