"""An in-process loopback: the real firmware and the real host session, a simulated clock and line."""

from __future__ import annotations

import random

from controller.core.events import Event
from firmware.core import Firmware
from hardware.board.accounting import TruthChange
from hardware.board.events import SensorChanged
from hardware.board.memory import BoardMemory, LinkStats, Record
from hardware.board.relay import FaultRelay
from hardware.board.session import HostSession


class Loopback:
    """Firmware <-> relay <-> HostSession, stepped one simulated millisecond at a time."""

    def __init__(
        self,
        sensors: int = 16,
        corrupt: float = 0.0,
        drop: float = 0.0,
        seed: int = 1,
        record: Record | None = None,
    ) -> None:
        self.ms = 0
        self.matrix = bytearray(sensors)
        self.sensors = sensors
        self.up = FaultRelay(corrupt, drop, seed)
        self.down = FaultRelay(corrupt, drop, seed + 1)
        self.to_host = bytearray()
        self.to_board = bytearray()
        self.boot = 1
        self.fw = self._firmware()
        self.memory = BoardMemory()
        self.stats = LinkStats()
        self.events: list[Event] = []
        self.record = record
        self.plugged = True
        self.truth: list[TruthChange] = []
        self._last_toggle = [-10_000] * sensors
        self.session = self._session()

    @property
    def now(self) -> float:
        return self.ms / 1000

    def _firmware(self) -> Firmware:
        return Firmware(
            self.sensors, lambda: self.matrix, self._board_write, lambda: self.ms, boot=self.boot
        )

    def _session(self) -> HostSession:
        s = HostSession(
            "loop", self._host_write, self.events.append, self.memory, self.stats, self.record
        )
        s.start(self.now)
        return s

    def _board_write(self, data: bytes) -> None:
        if self.plugged:
            self.to_host += self.up.process(data)

    def _host_write(self, data: bytes) -> None:
        if self.plugged:
            self.to_board += self.down.process(data)

    def set(self, sensor: int, occupied: bool) -> None:
        self.matrix[sensor] = int(occupied)
        self.truth.append(TruthChange(self.now, sensor, occupied))

    def run(self, ms: int) -> list[str]:
        """Advance; return the reasons the host dropped the link, if any."""
        drops = []
        for _ in range(ms):
            self.ms += 1
            if self.to_board:
                data, self.to_board = bytes(self.to_board), bytearray()
                self.fw.feed(data)
            self.fw.tick()
            if self.to_host:
                data, self.to_host = bytes(self.to_host), bytearray()
                self.session.feed(data, self.now)
            reason = self.session.poll(self.now)
            if reason:
                drops.append(reason)
                if self.plugged:
                    self.session = self._session()
        return drops

    def unplug(self) -> None:
        self.plugged = False
        self.to_host.clear()
        self.to_board.clear()

    def replug(self) -> None:
        self.plugged = True
        self.session = self._session()

    def reset(self) -> None:
        self.boot += 1
        self.to_board.clear()
        self.fw = self._firmware()

    def changes(self) -> list[SensorChanged]:
        return [e for e in self.events if isinstance(e, SensorChanged)]

    def random_play(
        self, rng: random.Random, steps: int, dwell_ms: int = 300, gap_ms: int = 20
    ) -> None:
        """Toggle random sensors, each held at least ``dwell_ms``."""
        last = self._last_toggle
        for _ in range(steps):
            free = [s for s in range(self.sensors) if self.ms - last[s] >= dwell_ms]
            if free:
                s = rng.choice(free)
                self.set(s, not self.matrix[s])
                last[s] = self.ms
            self.run(gap_ms)
