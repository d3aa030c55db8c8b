"""``toptable demo --mode MODE``: a whole companion game played by bots through the real table.

The bots (:mod:`controller.companion.bots`) decide what each player does; a presser
turns each decision into presses of the table's gpiozero buttons (on MockFactory pins),
reading only what the table publishes (:class:`~hardware.displays.companion.CompanionView`:
who is offered what, the values listed, the one selected). The
:class:`~controller.table.companion.CompanionTable` takes the button events, journals
every action to SQLite before taking it, and its view is drawn by the real luma code on
two dummy displays (128x64: the numbers; 128x32: the choice or a refusal). A seed makes
the game repeatable; ``stop_after`` leaves a game half-played (a pulled plug) and
``resume`` picks it up from its journal. With ``events`` (``--mqtt URL --table-id ID``)
the game is published as it is played, like the dice demo's.
"""

from __future__ import annotations

import queue
import time
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from controller.companion.bots import CompanionBot, Decision, Undo
from controller.companion.entry import label
from controller.core.errors import TopTableError
from controller.daemon.publishing import publish_companion
from controller.publish.settings import EventsSettings
from controller.table.companion import CompanionTable
from hardware.controls.events import ButtonName
from hardware.controls.inputs import TableInputs
from hardware.controls.settings import ControlsConfig
from hardware.displays.companion import CompanionView, pick_screen, show

PLAYER_NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay", "Gil", "Hal")
MAX_DECISIONS = 5000
FLUSH_S = 5.0  # at the end, how long the demo waits for the broker to take every row


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

    def to_json(self) -> dict[str, Any]:
        """The summary as a JSON-able dict."""
        return dict(self.__dict__)


class _Display:
    """A luma dummy device, shaped like the table's displays for the dice demo's recorder."""

    def __init__(self, width: int, height: int, preferred: str) -> None:
        from luma.core.device import dummy

        self.device = dummy(width=width, height=height, mode="1")
        self.preferred = preferred


class _Displays:
    def __init__(self) -> None:
        self.displays = [_Display(128, 64, "status"), _Display(128, 32, "choice")]
        self.drawn = 0
        self._last: CompanionView | None = None

    def update(self, view: CompanionView) -> bool:
        if view == self._last:
            return False
        self._last = view
        for d in self.displays:
            show(d.device, view, pick_screen(view, d.preferred))
            self.drawn += 1
        return True


class _Presser:
    """Presses the table's buttons (MockFactory pins) and lets the table handle each event."""

    def __init__(self, table: CompanionTable, stack: ExitStack, after: Any) -> None:
        from gpiozero.pins.mock import MockFactory

        factory = MockFactory()
        stack.callback(factory.close)
        settings = ControlsConfig(bounce_ms=0, encoder_a=None, encoder_b=None)
        self.events: queue.Queue[Any] = queue.Queue()
        inputs = TableInputs(settings, self.events, pin_factory=factory)
        stack.callback(inputs.close)
        if inputs.failed:
            raise CompanionDemoError(f"mock buttons failed: {inputs.failed[0]}")
        self.pins = {name: factory.pin(pin) for name, pin in settings.buttons.items()}
        self.table = table
        self.after = after
        self.presses = 0

    def press(self, button: ButtonName) -> None:
        pin = self.pins[button]
        pin.drive_low()
        pin.drive_high()
        self.presses += 1
        while True:
            try:
                event = self.events.get_nowait()
            except queue.Empty:
                break
            self.table.handle(event)
        self.after(self.table.view())

    def select(self, wanted: str) -> None:
        view = self.table.view()
        if wanted not in view.options:
            raise CompanionDemoError(
                f"{view.player} is offered {', '.join(view.options)}, not {wanted!r}"
            )
        steps = (view.options.index(wanted) - view.selected) % len(view.options)
        for _ in range(steps):
            self.press(ButtonName.NEXT)

    def perform(self, decision: Decision | Undo) -> None:
        """Carry out one bot decision with presses, reading only the table's view."""
        if isinstance(decision, Undo):
            while self.table.view().action:
                self.press(ButtonName.MENU)
            self.press(ButtonName.UNDO)
            return
        for _ in range(len(self.table.players) + 1):
            view = self.table.view()
            if view.player == decision.player and not view.action:
                break
            self.press(ButtonName.MENU)
        else:
            raise CompanionDemoError(f"the table never offered {decision.player} a choice")
        self.select(decision.do)
        self.press(ButtonName.CONFIRM)
        for _ in range(len(decision.answers)):
            view = self.table.view()
            if not view.action:
                break
            self.select(label(decision.answers[view.question]))
            self.press(ButtonName.CONFIRM)


def run_companion_demo(
    mode: str,
    seed: int = 1,
    players: int = 2,
    out: Path = Path("out/demo"),
    fast: bool = False,
    journal: Path | None = None,
    resume: bool = False,
    stop_after: int | None = None,
    events: EventsSettings | None = None,
) -> CompanionDemoSummary:
    """Play a whole ``mode`` game by bots through the table's buttons, displays and journal.

    ``fast`` skips the GIF; ``stop_after`` stops after that many bot decisions (the
    game is left in its journal, as after a pulled plug); ``resume`` continues the
    game in ``journal``; ``events`` publishes it (flushed for up to 5 s at the end).

    Raises:
        UnknownNameError: no such mode.
        DataError: a number of players the mode does not allow.
        CompanionJournalError: the journal cannot be written, or (resume) read.
        CompanionDemoError: the game did not reach a winner.
    """
    started = time.monotonic()
    path = journal or out / f"companion-{mode}.sqlite"
    if resume:
        table = CompanionTable.resume(path)
        if table.mode.name != mode:
            table.close()
            raise CompanionDemoError(f"{path} holds a {table.mode.name} game, not {mode}")
    else:
        for leftover in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
            leftover.unlink(missing_ok=True)
        table = CompanionTable.new(mode, PLAYER_NAMES[:players], path)
    notes: list[str] = []
    gif = ""
    with ExitStack() as stack:
        stack.callback(table.close)
        publisher = publish_companion(events, table)
        if publisher is not None:
            stack.callback(publisher.close, FLUSH_S)
        displays = _Displays()
        recorder: Any = None
        if not fast:
            from controller.demo.runner import ScreenRecorder

            recorder = ScreenRecorder(cast(Any, displays))

        def after(view: CompanionView) -> None:
            if displays.update(view) and recorder is not None:
                recorder.update(view)

        presser = _Presser(table, stack, after)
        after(table.view())
        bot = CompanionBot(seed * 1000 + table.history)
        decisions = 0
        finished = True
        while True:
            decision = bot.decide(table.mode, table.state, table.history)
            if decision is None:
                break
            if stop_after is not None and decisions >= stop_after:
                finished = False
                notes.append(f"stopped after {decisions} decisions (resume with its journal)")
                break
            if decisions >= MAX_DECISIONS:
                raise CompanionDemoError(f"no winner after {decisions} decisions")
            presser.perform(decision)
            decisions += 1
        if finished and table.winner is None:
            raise CompanionDemoError(f"the game stopped at {table.mode.step(table.state)}")
        if recorder is not None:
            saved = recorder.save(out / f"companion-{mode}.gif")
            gif = str(saved or "")
        return CompanionDemoSummary(
            mode=mode,
            seed=seed,
            players=list(table.players),
            winner=table.winner,
            step=table.mode.step(table.state),
            actions=table.history,
            refused=table.refusals,
            undos=table.undos,
            button_presses=presser.presses,
            journal_rows=len(table.journal.rows()),
            seconds=round(time.monotonic() - started, 2),
            journal=str(path),
            gif=gif,
            resumed=resume,
            finished=finished,
            screens_drawn=displays.drawn,
            notes=notes,
        )
