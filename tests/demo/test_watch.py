"""The bots at the table are fed by events: the table, on its loop's thread, publishes what
it shows on the players' queue; the players act by posting the devices' events back."""

from __future__ import annotations

import queue
import random
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from controller.core.symbols import Symbol
from controller.daemon.loop import TableLoop
from controller.daemon.wiring import attach_table
from controller.demo.players import TablePlayers
from controller.demo.tray import Tray
from controller.demo.watch import TableWatch, WatchTimeoutError
from controller.demo.world import WorldHands
from controller.game.bots import GreedyBot, RandomBot
from controller.game.engine import replay
from controller.game.session import TableGame
from controller.game.simulate import load_game_data
from controller.game.state import GameConfig, Length, Phase
from controller.table.controller import TableController
from hardware.controls.events import ButtonName, ButtonPressed
from tests.table.helpers import settled
from vision.events import ThrowSettled
from vision.settings import CameraConfig, CameraSource

FACES = tuple(Symbol)


class PostingHands:
    """Hands that post the devices' events to the loop (buttons, settled throws); the board
    is unplugged, so moves are chosen with the buttons."""

    def __init__(self, watch: TableWatch, seed: int) -> None:
        self.watch = watch
        self.seed = seed
        self.truth: tuple[Symbol, ...] = ()
        self.throws = 0

    def press(self, button: ButtonName, long: bool = False) -> None:
        self.watch.loop.post(ButtonPressed(button, long))

    def move_token(self, origin: int, space: int) -> None:
        raise AssertionError("the board is unplugged")

    def place_token(self, space: int) -> None:
        raise AssertionError("the board is unplugged")

    def lift_token(self, space: int) -> None:
        raise AssertionError("the board is unplugged")

    def throw(self, count: int) -> None:
        self._show(tuple(FACES[r] for r in self._rolls(count)))

    def reroll(self, keep: Sequence[Symbol]) -> None:
        kept = list(keep)
        self._show(tuple(kept + [FACES[r] for r in self._rolls(len(self.truth) - len(kept))]))

    def dice(self) -> tuple[Symbol, ...]:
        return self.truth

    def _rolls(self, n: int) -> list[int]:
        rng = random.Random(f"{self.seed}:{self.watch.look().events_applied}:{self.throws}")
        return [rng.randrange(6) for _ in range(n)]

    def _show(self, dice: tuple[Symbol, ...]) -> None:
        self.truth = dice
        self.throws += 1
        self.watch.loop.post(settled(dice))


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[TableController, TableLoop, TableWatch]]:
    data = load_game_data()
    game = TableGame.start(tmp_path / "j.sqlite", GameConfig(("Ann", "Bob"), Length.ROUNDS5), data)
    table = TableController(game, seed=6)
    table.board_lost("unplugged")
    loop = TableLoop(idle_wakeup_s=0.05)
    attach_table(loop, table)
    watch = TableWatch(loop, table, timeout_s=10.0)
    loop.tick_every(0.05)
    thread = threading.Thread(target=loop.run, name="table-loop", daemon=True)
    thread.start()
    try:
        yield table, loop, watch
    finally:
        loop.stop()
        thread.join(5)
        game.close()


@pytest.mark.timeout(120)
def test_bots_play_a_whole_game_on_what_the_table_publishes(
    running: tuple[TableController, TableLoop, TableWatch],
) -> None:
    table, loop, watch = running
    players = TablePlayers(watch.look, PostingHands(watch, 6), [GreedyBot(), RandomBot()], 6)
    for _ in range(20_000):
        if players.done():
            break
        players.step()
    assert players.done()
    seen = watch.look()
    assert seen.state.phase is Phase.OVER and seen.state.winners
    assert seen.reads > 0 and not seen.board_ok
    assert loop.failures == 0
    loop.stop()
    events = table.game.journal.events()
    assert replay(seen.state.config, seen.state.data, events).winners == seen.state.winners


@pytest.mark.timeout(30)
def test_a_look_is_answered_after_what_was_posted_before_it(
    running: tuple[TableController, TableLoop, TableWatch],
) -> None:
    _, loop, watch = running
    first = watch.look()
    assert first.answer_to == 1 and first.chooser is not None and first.chooser.selected == 0
    loop.post(ButtonPressed(ButtonName.NEXT))
    pushed = watch.wait_for(lambda s: s.chooser is not None and s.chooser.selected == 1, "next")
    assert pushed.answer_to == 2 and pushed.chooser is not None
    assert pushed.chooser.serial == first.chooser.serial
    watch.timeout_s = 0.3
    with pytest.raises(WatchTimeoutError):
        watch.wait_for(lambda s: False, "nothing")


@pytest.mark.timeout(60)
def test_the_world_tells_a_silent_misread_from_a_flagged_one(
    running: tuple[TableController, TableLoop, TableWatch],
) -> None:
    """The demo's world compares each read with the dice in its tray: a wrong read the
    reader flagged (a cocked die) counts as flagged, a wrong read it was sure of does not
    (the demo's silent misread, what its summary warns of)."""
    _, _, watch = running
    tray = Tray(seed=2)
    tray.open_source(CameraConfig(kind=CameraSource.SYNTHETIC, width=160, height=120))
    source = tray.source  # the camera's view of the tray
    assert source is not None
    hands = WorldHands(watch, None, None, None, tray, lambda _: None, seed=2)  # type: ignore[arg-type]
    reports: queue.Queue[ThrowSettled] = queue.Queue()
    stop = threading.Event()

    def camera() -> None:
        """Reads the tray; during a throw, the reader reports the read queued for it."""
        while not stop.is_set():
            source.read()
            if source.moving and not reports.empty():  # before the throw's next frame
                watch.loop.post(reports.get())

    worker = threading.Thread(target=camera)
    worker.start()
    four = (Symbol.KICK,) * 4  # three dice are thrown: a read of four is wrong
    try:
        reports.put(settled(four))  # sure of itself
        hands.throw(3)
        reports.put(settled(four, cocked=(0,)))  # flagged: a die read as cocked
        hands.throw(3)
    finally:
        stop.set()
        tray.close()
        worker.join(10)
    assert not worker.is_alive()
    s = hands.stats
    assert (s.throws, s.reads, s.reads_disagreeing, s.reads_flagged) == (2, 2, 2, 1)
