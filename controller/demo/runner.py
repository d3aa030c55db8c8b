"""``toptable demo``: a whole game on a laptop, through every real code path.

The table is the daemon's, opened from the demo config the way ``toptable run``
opens one (:mod:`controller.demo.table`): one loop thread owns the game and its
timers (the clock's ticks, the devices' retry), the camera thread reads the
tray into the dice reader (told by the table when a new roll starts), the board
link follows the firmware on its simulated sensor matrix, the buttons are
gpiozero's on mock pins, every event is journalled to SQLite before it acts, the
real luma.oled code draws on dummy devices and the LEDs and buzzer follow. The
simulated world (:mod:`controller.demo.world`) plays the hardware and bots play
the people, seeing the table only through what it publishes
(:mod:`controller.demo.watch`). A seed makes the game repeatable; ``--resume``
picks a journal up where a killed run left it and reaches the same end.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.board.follow import BoardFollower
from controller.companion.journal import APPLICATION_ID as COMPANION_APPLICATION_ID
from controller.core.errors import TopTableError
from controller.core.kinds import GameKind
from controller.daemon.hardware import TableDevices
from controller.daemon.loop import TableLoop
from controller.daemon.publishing import finish_publishing
from controller.daemon.tables import AnySink, DiceTable, TableOptions
from controller.demo.players import TablePlayers
from controller.demo.record import LatencyProbe, ScreenRecorder
from controller.demo.scratch import (
    JOURNAL_NAME,
    mark_as_scratch,
    mark_path,
    marked_when_made,
    started_here,
)
from controller.demo.summary import DemoSummary, story_fields
from controller.demo.table import DEMO_CONFIG, FLUSH_S, demo_config, demo_table, faults_text
from controller.demo.tray import Tray
from controller.demo.watch import TableWatch, WatchTimeoutError
from controller.demo.world import MockButtons, WorldHands
from controller.game.bots import GreedyBot, RandomBot
from controller.game.events import DiceThrown
from controller.game.export import export_json, export_text
from controller.game.journal_schema import APPLICATION_ID as JOURNAL_APPLICATION_ID
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length
from controller.gamedata import DEMO_DIR
from controller.gamedata.bundle import GameData
from controller.publish.settings import EventsSettings
from controller.rules.variants import Variants
from controller.storage.journal import journal_exists
from controller.storage.lock import holder_message
from controller.storage.origin import listed, refuse_contradiction
from controller.storage.place import place_problem
from controller.storage.rows import UNDO_KIND
from controller.storage.sqlite_file import header_application_id, sidecars
from controller.system.memory import return_large_buffers
from controller.table.settings import PLAYER_NAMES, TableConfig
from hardware.board.link import BoardLink
from vision.events import ThrowSettled

log = logging.getLogger(__name__)

DEMO_CLOCK_SPEED = 60.0
DEFAULT_SEED = 1  # the 45-minute game plays in 45 seconds
DEFAULT_PLAYERS = 2


class DemoError(TopTableError, RuntimeError):
    """The demo could not run to its end (the message says where it stopped)."""


@dataclass(frozen=True)
class DemoOptions:
    """How to run the demo."""

    seed: int | None = None  # None: the journal's (resumed), else DEFAULT_SEED
    players: int | None = None  # None: 2, or the resumed journal's
    names: tuple[str, ...] = ()  # the players' names (--names); empty: the demo's own
    length: Length | None = None  # None: five rounds, or the resumed journal's
    fast: bool = False
    journal: Path | None = None
    resume: bool = False
    out: Path = Path("out/demo")
    data: Path | None = None
    variants: tuple[str, ...] = ()
    max_acts: int = 200_000
    events: EventsSettings | None = None  # publish over MQTT (demo --mqtt)
    kind: GameKind = GameKind.TOURNAMENT  # or a Story-mode game (docs/rules.md §12)


def wired(data: GameData) -> GameData:
    """``data``, when each space of its board has a hall sensor: the demo's simulated board
    sees a token by its sensor, as the table's does.

    Raises:
        DemoError: naming the board's file and the spaces without one.
    """
    unwired = sorted(sid for sid, space in data.board.spaces.items() if space.sensor is None)
    if unwired:
        listed = ", ".join(map(str, unwired[:10])) + (" ..." if len(unwired) > 10 else "")
        raise DemoError(
            f"{data.board.source or 'board.toml'}: {len(unwired)} of "
            f"{len(data.board.spaces)} spaces have no sensor ({listed}): the board sees a token "
            "by its space's hall sensor; give each [[space]] a sensor"
        )
    return data


def run_demo(options: DemoOptions) -> DemoSummary:
    """Play (or resume) a whole simulated game; return its summary.

    Raises:
        DemoError: the game got stuck, a device thread stalled, or the table stopped
            (its journal cannot be written); a new game's ``--journal`` is taken, or its
            folder is not there.
        JournalError: ``--resume`` on a missing, newer, corrupt or other game's journal.
        LinkError, PublishError: (``events``) the broker refused or could not be reached,
            or the publisher could not start; before any move.
    """
    started = time.monotonic()
    return_large_buffers()
    out = make_out(options.out)
    journal = options.journal or out / JOURNAL_NAME
    tokens: frozenset[int] = frozenset()
    shown = 0  # throws the journal holds already
    if options.resume:
        resumed = _resumed(journal, options)
        setup, tokens, seed, data_dir, shown = resumed
        data = wired(load_game_data(data_dir))
    else:
        setup, seed = _setup(options), DEFAULT_SEED if options.seed is None else options.seed
        data_dir = options.data or DEMO_DIR
        data = wired(load_game_data(data_dir))
        make_room(journal, chosen=options.journal is not None)
    section = TableConfig(
        mode=setup.kind,
        players=len(setup.players),
        length=setup.length,
        variants=setup.variants.enabled(),
        data_dir=data_dir,
        journal=journal,
    )
    own_data = Path(data_dir).resolve() != DEMO_DIR.resolve()
    config = demo_config(DEMO_CONFIG, section, layout_from_data=own_data)
    tray = Tray(seed, faces=data.die.faces)  # the data's die
    probe = LatencyProbe()
    recorders: list[ScreenRecorder] = []

    def record(devices: TableDevices) -> list[AnySink]:
        recorders.append(ScreenRecorder(devices.displays))
        return list(recorders)

    run = TableOptions(
        seed=seed,
        game_clock=_fast_clock(DEMO_CLOCK_SPEED),
        clock_file=journal.with_suffix(".clock"),
        board_settle_s=0.05 if options.fast else 0.3,
    )
    scratch = options.journal is None and not options.resume
    with (
        marked_when_made(journal, scratch),
        demo_table(
            config,
            run,
            data=data,
            tray=tray,
            board_tokens=tokens,
            events=options.events,
            sinks=record,
            events_queue=probe.queue,
            names=options.names,
        ) as demo,
    ):
        running = demo.running
        if not isinstance(running, DiceTable):
            raise DemoError(f"{config.table.mode.value} is not the dice game")
        devices, game, table = demo.devices, running.game, running.table
        if scratch:
            mark_as_scratch(journal)  # the next demo may replace this game, and no other
        if devices.sim is None or devices.link is None or devices.pin_factory is None:
            raise DemoError(f"the demo's devices did not open: {faults_text(devices.faults())}")
        demo.loop.on(ThrowSettled, probe.on_settled)  # after the table's: it has drawn
        watch = TableWatch(demo.loop, table, in_air=running.follower.spaces_in_air)
        demo.start()
        _wait_for_board(devices.link, running.follower)
        buttons = MockButtons(devices.pin_factory, config.controls.buttons)
        hands = WorldHands(
            watch, devices.sim, devices.link, data.board, tray, buttons.press, seed,
            shown_before=shown,
        )  # fmt: skip
        players = TablePlayers(watch.look, hands, [GreedyBot(), RandomBot()], seed=seed)
        acts = 0
        while not halted(demo.loop) and not players.done():
            acts += 1
            if acts > options.max_acts:
                phase = players.seen.state.phase if players.seen is not None else "?"
                raise DemoError(
                    f"the game did not end after {options.max_acts} acts (stuck in {phase})"
                )
            try:
                players.step()
                hands.tidy(hands.settle().state)
            except WatchTimeoutError:
                halted(demo.loop)
                raise
        halted(demo.loop)
        hands.settle()
        demo.stop()  # the table is this thread's to read from here on
        delivery = finish_publishing(demo.publisher, FLUSH_S)
        state = table.state
        recorder = recorders[0]
        gif = recorder.save(out / "screens.gif")
        log_text = _write_log(game, out)
        world = hands.stats
        notes = []
        if world.reads_disagreeing:
            notes.append(
                f"{world.reads_disagreeing} read(s) differed from the dice thrown; "
                f"{world.reads_flagged} of them were flagged by the reader and fixed with the buttons"
            )
        if devices.inputs is not None:
            notes.extend(str(f) for f in devices.inputs.failed)
        return DemoSummary(
            seed=seed,
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
            handler_failures=demo.loop.failures,
            latency_ms=probe.figures(),
            notes=notes,
            **story_fields(state),
            delivery=delivery.text() if delivery is not None else None,
            undelivered=delivery.total - delivery.delivered if delivery is not None else None,
        )


def _setup(options: DemoOptions) -> GameConfig:
    """The game the options set up (its players' names are the table's)."""
    return GameConfig(
        options.names or PLAYER_NAMES[: options.players or DEFAULT_PLAYERS],
        options.length or Length.ROUNDS5,
        Variants.from_names(options.variants),
        kind=options.kind,
    )


def _resumed(
    journal: Path, options: DemoOptions
) -> tuple[GameConfig, frozenset[int], int, Path, int]:
    """The game set up in ``journal``, the sensors its tokens stand on (where the players
    left them when the demo was killed), its seed, its data directory and the throws it
    holds (undone ones too: they were thrown): all from the journal, which the options
    may repeat but not contradict.

    Raises:
        JournalError: no journal there, or one that does not open or replay.
        ContradictionError: ``--seed``, ``--names``, ``--players``, ``--length``,
            ``--variant`` or ``--data`` is not the journal's.
        UnknownVariantError: a ``--variant`` docs/rules.md does not define.
    """
    with TableGame.resume(journal, data_dir=options.data) as game:  # its data checked first
        origin = game.origin
        refuse_contradiction(journal, "--seed", options.seed, origin.seed)
        if options.names:
            refuse_contradiction(
                journal, "--names", listed(options.names), listed(game.config.players)
            )
        refuse_contradiction(journal, "--players", options.players, len(game.config.players))
        length = options.length.value if options.length is not None else None
        refuse_contradiction(journal, "--length", length, game.config.length.value)
        if options.variants:
            given = Variants.from_names(options.variants).enabled()
            kept = game.config.variants.enabled()
            refuse_contradiction(journal, "--variant", listed(given), listed(kept))
        state = game.state
        sensors = {
            state.data.board.space(piece.space).sensor
            for piece in state.pieces.values()
            if piece.space is not None and piece.space >= 0  # on the board
        }
        seed = origin.seed if origin.seed is not None else options.seed
        data_dir = options.data or game.data_dir or DEMO_DIR
        journalled = game.journal
        throws = sum(
            1
            for row in journalled.rows()
            if row.kind != UNDO_KIND and isinstance(journalled.decode(row), DiceThrown)
        )
        return (
            game.config,
            frozenset(s for s in sensors if s is not None),
            DEFAULT_SEED if seed is None else seed,
            data_dir,
            throws,
        )


def make_out(out: Path) -> Path:
    """``out``, the demo's output folder, made if missing (before the journal it may hold).

    Raises:
        DemoError: it cannot be made.
    """
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise DemoError(f"{out}: cannot make the demo's output folder ({exc.strerror}): "
                        "choose another --out") from None  # fmt: skip
    return out


def make_room(journal: Path, chosen: bool) -> None:
    """Make sure a new game never lands on an old one at ``journal``.

    A journal the user named (``chosen``) is never replaced: it is refused with how to
    go on. The demo's own scratch journal in its output folder is replaced, together
    with the write-ahead log and shared-memory files SQLite keeps beside it (a log
    left without its database would otherwise be replayed into the new game), when the
    demo started its game (:mod:`controller.demo.scratch`); any other game there is
    refused, as a named one is.

    A journal the user named is made only in a folder that is there, as ``game play``
    makes one (the demo makes its own output folder, not the folders of a path named).

    Raises:
        DemoError: a journal the user named is there already (or what is left of one), or
            its folder is not there; a game the demo did not start is journalled at its
            scratch journal, or another demo plays there.
    """
    if chosen and not (journal_exists(journal.parent) and journal.parent.is_dir()):
        raise DemoError(f"cannot create the journal: {place_problem(journal)}")
    parts = sidecars(journal)
    if not chosen and journal_exists(journal) and not started_here(journal):
        raise DemoError(
            f"{journal}: a game the demo did not start is journalled there, and the demo "
            "replaces only its own: move it away, give --out another folder, or give "
            "--journal with --resume to continue it"
        )
    if chosen:
        there = [p for p in parts if journal_exists(p)]
        ours = (JOURNAL_APPLICATION_ID, COMPANION_APPLICATION_ID)
        if journal_exists(journal) and header_application_id(journal) not in ours:
            raise DemoError(
                f"{journal}: a file is there that is no toptable journal (it is never written "
                "over): give --journal another path"
            )
        if there:
            what = (
                "a game" if journal_exists(journal) else f"what is left of a game ({there[0].name})"
            )
            raise DemoError(
                f"{journal}: {what} is journalled there already; add --resume to continue "
                "it, or give --journal another path"
            )
        return
    if (held := holder_message(journal)) is not None:  # another demo plays it: not replaced
        raise DemoError(held)
    for part in (*parts, mark_path(journal)):
        part.unlink(missing_ok=True)


def halted(loop: TableLoop) -> bool:
    """False while the table plays on.

    Raises:
        DemoError: the table stopped itself (its journal cannot be written): why.
    """
    if loop.halted is not None:
        raise DemoError(loop.halted)
    return False


def _wait_for_board(link: BoardLink, follower: BoardFollower, timeout_s: float = 10.0) -> None:
    """Wait for the board's first whole read: a token moved before it would never be seen."""
    if not follower.synced.wait(timeout_s):
        raise DemoError(
            f"the simulated board did not connect within {timeout_s} s: {link.last_error}"
        )


def _fast_clock(speed: float) -> Any:
    """A wall clock running ``speed`` times faster from now."""
    start = time.time()

    def now() -> float:
        return start + (time.time() - start) * speed

    return now


def _write_log(game: TableGame, out: Path) -> Path:
    log_data = export_json(game.config, game.data, game.journal.events())
    json_path = out / "game-log.json"
    json_path.write_text(json.dumps(log_data, indent=1), encoding="utf-8")
    text_path = out / "game-log.txt"
    text_path.write_text(export_text(log_data), encoding="utf-8", errors="backslashreplace")
    return text_path
