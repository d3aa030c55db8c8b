"""The physical world of the demo, simulated: a board, a dice tray, the buttons.

The table is the daemon's, opened from a config by
:class:`~controller.daemon.hardware.TableDevices` as ``toptable run`` opens it;
the world only stands where the physical world is:

- the **board** is the real firmware running on a simulated sensor matrix
  behind a real pseudo-terminal (:class:`~hardware.board.sim.SimBoard`, the
  devices' simulated board); hands lift and place tokens on it, and the table
  follows it with the real serial link and move tracker;
- the **tray** (:class:`~controller.demo.tray.Tray`) stands in for the config's
  synthetic camera: the hands throw dice into it, it draws each frame with the
  synthetic renderer, and the table's own camera thread reads them into its dice
  reader;
- the **buttons** are the devices' gpiozero buttons on MockFactory pins,
  pressed by driving the pins (:class:`MockButtons`).

:class:`WorldHands` is what the bot players act with; each act waits until the
table has taken it in (a look through :class:`~controller.demo.watch.TableWatch`:
the table's own answer, never a read of its state from this thread), so a
seeded demo plays the same game every time.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from controller.core.errors import TopTableError
from controller.core.symbols import Symbol
from controller.daemon.events import TokensTidied
from controller.demo.tray import Tray
from controller.demo.watch import TableWatch, WatchTimeoutError
from controller.game.state import GameState, Phase
from controller.gamedata.board import BoardLayout
from controller.table.awaits import TableAwaits
from hardware.board.link import BoardLink
from hardware.board.sim import SimBoard
from hardware.controls.events import ButtonName


class WorldTimeoutError(WatchTimeoutError):
    """The table did not take in an act in time (a device thread stalled)."""


@dataclass
class WorldStats:
    """What happened in the simulated world."""

    frames: int = 0
    throws: int = 0
    reads: int = 0
    reads_disagreeing: int = 0  # reads whose faces differ from the dice really thrown
    reads_flagged: int = 0  # of those, flagged by the reader (cocked, unsure, count)
    presses: int = 0
    token_moves: int = 0


class MockButtons:
    """Fingers on the table's buttons: gpiozero MockFactory pins driven low, then high."""

    def __init__(self, pin_factory: Any, pins: Mapping[ButtonName, int]) -> None:
        self.pins = {button: pin_factory.pin(pin) for button, pin in pins.items()}
        self.presses = 0

    def press(self, button: ButtonName) -> None:
        """Press and release ``button``."""
        pin = self.pins[button]
        pin.drive_low()
        pin.drive_high()
        self.presses += 1


class WorldHands:
    """The bot players' hands in the simulated world (see :class:`controller.demo.players.Hands`)."""

    def __init__(
        self,
        watch: TableWatch,
        board: SimBoard,
        link: BoardLink,
        layout: BoardLayout,
        tray: Tray,
        press_pin: Callable[[ButtonName], None],
        seed: int,
        timeout_s: float = 10.0,
        on_act: Callable[[], None] | None = None,
        shown_before: int = 0,
    ) -> None:
        """``shown_before``: the throws the game's journal holds already (a resumed game):
        each throw's pictures are drawn from the game's progress and the throw's number in
        the game, so a resumed game shows the dice where the uninterrupted one did."""
        self.watch = watch
        self.loop = watch.loop
        self.board = board
        self.link = link
        self.layout = layout
        self.tray = tray
        self.press_pin = press_pin
        self.seed = seed
        self.timeout_s = timeout_s
        self.on_act = on_act or (lambda: None)
        self.stats = WorldStats()
        self.shown = shown_before  # throws shown in the whole game (this run's: stats.throws)

    # ---------------------------------------------------------------- sync
    def settle(self) -> TableAwaits:
        """Wait until the table loop has handled everything posted so far; what it shows."""
        return self.watch.look()

    def wait_for_game(self, before: int, what: str) -> TableAwaits:
        """Wait until the game has moved on from ``before`` events (a board move's way in)."""
        return self.watch.wait_for(lambda seen: seen.events_applied != before, what)

    def in_air_from(self) -> frozenset[int]:
        """The spaces the table sees tokens lifted from."""
        return self.watch.look().in_air

    # ---------------------------------------------------------------- hands
    def press(self, button: ButtonName, long: bool = False) -> None:
        self.stats.presses += 1
        self.press_pin(button)
        self.settle()
        self.on_act()

    def move_token(self, origin: int, space: int) -> None:
        before = self.settle().events_applied
        self.lift_token(origin)  # a hand takes longer than one scan of the board
        self.board.place(self._sensor(space))
        self.wait_for_game(before, f"the move {origin}->{space}")
        self.on_act()

    def place_token(self, space: int) -> None:
        before = self.settle().events_applied
        self.stats.token_moves += 1
        self.board.place(self._sensor(space))
        self.wait_for_game(before, f"the token placed on {space}")
        self.on_act()

    def lift_token(self, space: int) -> None:
        """Take the token on ``space`` in hand (waits until the table has seen it go)."""
        self.stats.token_moves += 1
        self.board.lift(self._sensor(space))
        deadline = time.monotonic() + self.timeout_s
        while space not in self.in_air_from():
            if time.monotonic() > deadline:
                raise WorldTimeoutError(f"the table did not see the token lifted from {space}")
            time.sleep(0.005)
        self.settle()

    def throw(self, count: int) -> None:
        seen = self.settle()
        rng = self._rng(seen)
        self._show(self._thrown(rng, count), (), seen)

    def reroll(self, keep: Sequence[Symbol]) -> None:
        seen = self.settle()
        shown = _last_throw(seen)
        if shown and sorted(self.tray.faces()) != sorted(shown):
            # e.g. after a restart the tray is empty: the players lay the dice out again
            # as the table shows them, then reroll
            self.tray.lay(shown, str(seen.events_applied))
        rng = self._rng(seen)
        wanted = list(keep)
        kept: list[int] = []
        for i, face in enumerate(self.tray.faces()):
            if face in wanted:
                wanted.remove(face)
                kept.append(i)
        count = len(self.tray.dice) - len(kept)
        self._show(self._thrown(rng, count), tuple(kept), seen)

    def _thrown(self, rng: random.Random, count: int) -> list[Symbol]:
        """``count`` dice thrown: faces of the table's die, at random."""
        faces = self.tray.die_faces
        return [faces[rng.randrange(len(faces))] for _ in range(count)]

    def dice(self) -> tuple[Symbol, ...]:
        return self.tray.faces()

    def _show(self, faces: list[Symbol], keep: tuple[int, ...], seen: TableAwaits) -> None:
        self.stats.throws += 1
        self.shown += 1
        before = seen.reads
        self.stats.frames += self.tray.throw(faces, keep, f"{seen.events_applied}:{self.shown}")
        after = self.settle()
        read = after.last_read
        if after.reads > before and read is not None:
            self.stats.reads += 1
            shown = sorted(f.value for f in self.tray.faces())
            read_faces = sorted(f for f in read.faces if f is not None)
            if read_faces != shown or len(read.faces) != len(shown):
                self.stats.reads_disagreeing += 1
                if not read.trustworthy:
                    self.stats.reads_flagged += 1
        self.on_act()

    def tidy(self, state: GameState) -> None:
        """Take eliminated warriors off the board and put back any the game moved (an
        attacker returning to its origin...); then the table follows the tokens afresh."""
        layout = self.layout
        wanted = {s for space in state.occ if (s := layout.space(space).sensor) is not None}
        extra, missing = self.board.occupied() - wanted, wanted - self.board.occupied()
        if not extra and not missing:
            return
        for sensor in sorted(extra):
            self.board.lift(sensor)
        for sensor in sorted(missing):
            if sensor is not None:
                self.board.place(sensor)
        deadline = time.monotonic() + self.timeout_s
        while self.link.occupied() != self.board.occupied():
            if time.monotonic() > deadline:
                raise WorldTimeoutError("the board link did not see the tokens put right")
            time.sleep(0.005)
        self.loop.post(TokensTidied())
        self.settle()

    def _rng(self, seen: TableAwaits) -> random.Random:
        return random.Random(f"{self.seed}:{seen.events_applied}:dice")

    def _sensor(self, space: int) -> int:
        sensor = self.layout.space(space).sensor
        if sensor is None:
            raise TopTableError(f"space {space} has no sensor in board {self.layout.name!r}")
        return sensor


def _last_throw(seen: TableAwaits) -> tuple[Symbol, ...]:
    """The dice of the throw the game knows last in the attempt under way."""
    state = seen.state
    c = state.combat
    if c is None:
        return ()
    throws = c.defence_throws if state.phase is Phase.DEFENCE_ROLL else c.throws
    return tuple(Symbol(s) for s in throws[-1]) if throws else ()
