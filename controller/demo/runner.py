"""``toptable demo``: a whole game on a laptop, through every real code path.

The table runs as it does on a Pi — one loop thread owns the game and its
timers (the clock's ticks), the board link, the camera reader and the buttons
post events, every event is journalled to SQLite before it acts, the real
luma.oled code draws on dummy devices — while the simulated world
(:mod:`controller.demo.world`) plays the hardware and bots play the people,
seeing the table only through what it publishes (:mod:`controller.demo.watch`).
A seed makes the game repeatable; ``--resume`` picks a journal up where a
killed run left it and reaches the same end.
"""

from __future__ import annotations

import json
import logging
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from PIL import Image

from controller.board.follow import BoardFollower
from controller.config import Config, load_config
from controller.core.errors import TopTableError
from controller.core.kinds import GameKind
from controller.daemon.events import TokensTidied
from controller.daemon.loop import TableLoop
from controller.daemon.publishing import publish_table
from controller.daemon.wiring import attach_follower, attach_table
from controller.demo.players import TablePlayers
from controller.demo.summary import DemoSummary, story_fields
from controller.demo.watch import TableWatch
from controller.demo.world import Tray, WorldHands, evidence_dir
from controller.game.bots import GreedyBot, RandomBot
from controller.game.events import DiceThrown
from controller.game.export import export_json, export_text
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, GameState, Length
from controller.gamedata import DEMO_DIR
from controller.publish.settings import EventsSettings
from controller.rules.variants import Variants
from controller.system.memory import return_large_buffers
from controller.table.controller import TableController
from hardware.board.link import BoardLink
from hardware.board.sim import SimBoard
from hardware.controls.events import ButtonName
from hardware.controls.inputs import TableInputs
from hardware.displays.device_config import display_configs
from hardware.displays.display_board import DisplayBoard
from hardware.displays.model import TableView
from vision.learning.defaults import default_model
from vision.reading.reader import DiceReader

log = logging.getLogger(__name__)

NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve", "Fay")
DEMO_CONFIG = DEMO_DIR / "config.toml"
MAX_GIF_FRAMES = 600
DEMO_CLOCK_SPEED = 60.0  # the 45-minute game plays in 45 seconds
TICK_EVERY_S = 0.1


class DemoError(TopTableError, RuntimeError):
    """The demo could not run to its end (the message says where it stopped)."""


@dataclass(frozen=True)
class DemoOptions:
    """How to run the demo."""

    seed: int = 1
    players: int = 2
    length: Length = Length.ROUNDS5
    fast: bool = False
    journal: Path | None = None
    resume: bool = False
    out: Path = Path("out/demo")
    data: Path | None = None
    variants: tuple[str, ...] = ()
    max_acts: int = 200_000
    events: EventsSettings | None = None  # publish over MQTT (demo --mqtt)
    story: bool = False  # a Story-mode game (RULES.md §12) instead of the Tournament


class ScreenRecorder:
    """Keeps every distinct picture of the table's screens, side by side, for a GIF."""

    def __init__(self, displays: DisplayBoard, limit: int = MAX_GIF_FRAMES) -> None:
        self.displays = displays
        self.limit = limit
        self.frames: list[Image.Image] = []
        self._last: bytes = b""

    def update(self, view: TableView) -> None:
        """Grab the displays' pictures (after the displays drew ``view``)."""
        images = [getattr(d.device, "image", None) for d in self.displays.displays]
        shown = [im for im in images if im is not None]
        if not shown:
            return
        width = sum(im.width for im in shown) + 4 * (len(shown) - 1)
        sheet = Image.new("1", (width, max(im.height for im in shown)))
        x = 0
        for im in shown:
            sheet.paste(im.convert("1"), (x, 0))
            x += im.width + 4
        raw = sheet.tobytes()
        if raw == self._last:
            return
        self._last = raw
        self.frames.append(sheet)
        if len(self.frames) > self.limit:
            self.frames = self.frames[::2]  # keep the whole game, at half the rate

    def save(self, path: Path, scale: int = 2) -> Path | None:
        """Write the animated GIF (None if nothing was shown)."""
        if not self.frames:
            return None
        big = [
            f.convert("L").resize((f.width * scale, f.height * scale), Image.Resampling.NEAREST)
            for f in self.frames
        ]
        path.parent.mkdir(parents=True, exist_ok=True)
        big[0].save(path, save_all=True, append_images=big[1:], duration=250, loop=0)
        return path


class LatencyProbe:
    """Times each settled throw from the reader's report to the screens having drawn it."""

    def __init__(self, tray: Tray) -> None:
        self.tray = tray
        self.samples_ms: list[float] = []

    def update(self, view: TableView) -> None:
        settled = self.tray.settled_at
        if settled is not None and view.combat is not None and view.combat.dice:
            self.samples_ms.append((time.perf_counter() - settled) * 1000)
            self.tray.settled_at = None

    def figures(self) -> dict[str, float]:
        """Median, 95th percentile and worst latency in ms (empty if nothing was thrown)."""
        if not self.samples_ms:
            return {}
        xs = sorted(self.samples_ms)
        return {
            "median": round(xs[len(xs) // 2], 1),
            "p95": round(xs[min(len(xs) - 1, int(len(xs) * 0.95))], 1),
            "max": round(xs[-1], 1),
        }


class _OutputsSink:
    """LEDs and buzzer follow the view."""

    def __init__(self, outputs: Any) -> None:
        self.outputs = outputs

    def update(self, view: TableView) -> None:
        self.outputs.show(view)


def run_demo(options: DemoOptions) -> DemoSummary:
    """Play (or resume) a whole simulated game; return its summary.

    Raises:
        DemoError: the game got stuck or a device thread stalled.
        JournalError: ``--resume`` on a missing, newer, corrupt or other game's journal.
    """
    started = time.monotonic()
    return_large_buffers()
    config = load_config(DEMO_CONFIG)
    out = options.out
    out.mkdir(parents=True, exist_ok=True)
    journal = options.journal or out / "journal.sqlite"
    data_dir = options.data or DEMO_DIR
    data = load_game_data(data_dir)
    with ExitStack() as stack:
        if options.resume:
            game = TableGame.resume(journal, data)
        else:
            if journal.exists():
                journal.unlink()
            names = NAMES[: options.players]
            variants = Variants.from_names(options.variants)
            game = TableGame.start(
                journal,
                GameConfig(
                    names,
                    options.length,
                    variants,
                    kind=GameKind.STORY if options.story else GameKind.TOURNAMENT,
                ),
                data,
                data_dir,
            )
        stack.callback(game.close)
        loop = TableLoop(idle_wakeup_s=0.2)
        displays = stack.enter_context(DisplayBoard.open(display_configs(config.displays)))
        recorder = ScreenRecorder(displays)
        inputs, press = _mock_buttons(config, loop, stack)
        reader = DiceReader(default_model(), loop.events, evidence_dir=evidence_dir(journal))
        tray = Tray(reader, options.seed, faces=data.die.faces)  # the data's die
        probe = LatencyProbe(tray)
        table = TableController(
            game,
            [displays, recorder, probe],
            seed=options.seed,
            game_clock=_fast_clock(DEMO_CLOCK_SPEED),
            clock_file=journal.with_suffix(".clock"),
        )
        attach_table(loop, table)
        publisher = publish_table(options.events, game, table)
        if publisher is not None:
            stack.callback(publisher.close)
        follower = BoardFollower(table, data.board, settle_s=0.05 if options.fast else 0.3)
        attach_follower(loop, follower)
        watch = TableWatch(loop, table, in_air=follower.spaces_in_air)
        loop.tick_every(TICK_EVERY_S)
        board = stack.enter_context(_board(data.board.sensor_count, game.state, stack))
        link = BoardLink(board.path, loop.events, silence_s=5.0)
        stack.callback(link.close)
        link.start()
        loop_thread = threading.Thread(target=loop.run, name="table-loop", daemon=True)
        loop_thread.start()
        stop_loop = _stopper(loop, loop_thread)
        stack.callback(stop_loop)
        _wait_for_board(link, follower)
        hands = WorldHands(watch, board, data.board, tray, press, options.seed)
        players = TablePlayers(watch.look, hands, [GreedyBot(), RandomBot()], seed=options.seed)
        acts = 0
        while not players.done():
            acts += 1
            if acts > options.max_acts:
                phase = players.seen.state.phase if players.seen is not None else "?"
                raise DemoError(
                    f"the game did not end after {options.max_acts} acts (stuck in {phase})"
                )
            players.step()
            _tidy_board(hands, board, link, data.board, hands.settle().state)
        hands.settle()
        stop_loop()  # the table is this thread's to read from here on
        state = table.state
        gif = recorder.save(out / "screens.gif")
        log_text = _write_log(game, out)
        world = hands.stats
        notes = []
        if world.reads_disagreeing:
            notes.append(
                f"{world.reads_disagreeing} read(s) differed from the dice thrown; "
                f"{world.reads_flagged} of them were flagged by the reader and fixed with the buttons"
            )
        if inputs.failed:
            notes.extend(str(f) for f in inputs.failed)
        return DemoSummary(
            seed=options.seed,
            players=list(state.players),
            length=state.config.length.value,
            winners=[state.players[w] for w in state.winners],
            warriors_left={n: state.count(i) for i, n in enumerate(state.players)},
            rounds=state.round,
            combats=state.log_combats,
            throws=sum(1 for e in game.journal.events() if isinstance(e, DiceThrown)),
            throws_read=table.stats.throws_read,
            reads_disagreeing=world.reads_disagreeing,
            reads_flagged=world.reads_flagged,
            silent_misreads=world.reads_disagreeing - world.reads_flagged,
            moves_from_board=table.stats.moves_from_board,
            button_presses=world.presses,
            events=len(game.journal.events()),
            seconds=round(time.monotonic() - started, 1),
            journal=str(journal),
            log=str(log_text),
            gif=str(gif or ""),
            resumed=options.resume,
            handler_failures=loop.failures,
            latency_ms=probe.figures(),
            notes=notes,
            **story_fields(state),
        )


def _mock_buttons(config: Config, loop: TableLoop, stack: ExitStack) -> tuple[TableInputs, Any]:
    """gpiozero buttons on MockFactory pins, and a function that presses one."""
    from gpiozero.pins.mock import MockFactory

    factory = MockFactory()
    stack.callback(factory.close)
    # Mock pins do not bounce: a debounce window would only drop quick presses.
    settings = replace(config.controls, bounce_ms=0)
    inputs = TableInputs(settings, loop.events, pin_factory=factory)
    stack.callback(inputs.close)
    pins = {name: factory.pin(pin) for name, pin in settings.buttons.items()}

    def press(button: ButtonName) -> None:
        pin = pins[button]
        pin.drive_low()
        pin.drive_high()

    return inputs, press


@contextmanager
def _board(sensors: int, state: GameState, stack: ExitStack) -> Iterator[SimBoard]:
    """The simulated board, with the tokens where the game has them (for a resumed game)."""
    folder = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="toptable-board-")))
    board = SimBoard(sensors=sensors, link=folder / "board")
    for piece in state.pieces.values():
        if piece.space is not None and piece.space >= 0:  # on the board
            sensor = state.data.board.space(piece.space).sensor
            if sensor is not None:
                board.matrix[sensor] = 1
    board.start()
    try:
        yield board
    finally:
        board.close()


def _wait_for_board(link: BoardLink, follower: BoardFollower, timeout_s: float = 10.0) -> None:
    """Wait for the board's first whole read: a token moved before it would never be seen."""
    if not follower.synced.wait(timeout_s):
        raise DemoError(
            f"the simulated board did not connect within {timeout_s} s: {link.last_error}"
        )


def _tidy_board(
    hands: WorldHands, board: SimBoard, link: BoardLink, layout: Any, state: GameState
) -> None:
    """Players take eliminated warriors off the board and put back any the game moved
    (an attacker returning to its origin...); then the table follows the tokens afresh."""
    wanted = {layout.space(space).sensor for space in state.occ} - {None}
    extra, missing = board.occupied() - wanted, wanted - board.occupied()
    if not extra and not missing:
        return
    for sensor in sorted(extra):
        board.lift(sensor)
    for sensor in sorted(missing):
        if sensor is not None:
            board.place(sensor)
    deadline = time.monotonic() + 5.0
    while link.occupied() != board.occupied() and time.monotonic() < deadline:
        time.sleep(0.005)
    hands.loop.post(TokensTidied())
    hands.settle()


def _fast_clock(speed: float) -> Any:
    """A wall clock running ``speed`` times faster from now."""
    start = time.time()

    def now() -> float:
        return start + (time.time() - start) * speed

    return now


def _stopper(loop: TableLoop, thread: threading.Thread) -> Callable[[], None]:
    def stop() -> None:  # idempotent
        loop.stop()
        thread.join(5)

    return stop


def _write_log(game: TableGame, out: Path) -> Path:
    log_data = export_json(game.config, game.data, game.journal.events())
    json_path = out / "game-log.json"
    json_path.write_text(json.dumps(log_data, indent=1), encoding="utf-8")
    text_path = out / "game-log.txt"
    text_path.write_text(export_text(log_data), encoding="utf-8")
    return text_path
