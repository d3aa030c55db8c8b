"""A simulated table for the tests: a journalled bot game published by a real Publisher."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.game.events import GameEvent
from controller.game.session import TableGame
from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from controller.publish.messages import state_message
from controller.publish.publisher import Publisher
from controller.publish.settings import Connection, parse_broker_url


class TestTable:
    """One table: its game, journal and publisher."""

    __test__ = False  # not a pytest class

    def __init__(
        self,
        directory: Path,
        url: str,
        data: Any,
        table_id: str = "table-1",
        players: tuple[str, ...] = ("Ann", "Bob"),
        conn: Connection | None = None,
        start: bool = True,
    ) -> None:
        self.data = data
        self.table_id = table_id
        self.game = TableGame.start(
            directory / f"{table_id}.sqlite", GameConfig(players, Length.ROUNDS5), data
        )
        self.publisher = Publisher(conn or Connection(parse_broker_url(url)), table_id)
        self.publisher.attach(self.game.journal.path, self.game.journal.game_id)
        if start:
            self.publisher.start()
        self.notify_s: list[float] = []

    def play(
        self,
        seed: int = 1,
        pace_s: float = 0.0,
        after: Callable[[int], None] | None = None,
    ) -> GameState:
        """Play the whole game; ``after(seq)`` runs after each event."""

        def submit(event: GameEvent) -> GameState:
            state = self.game.submit(event)
            seq = len(self.game.journal)
            t0 = time.perf_counter()
            self.publisher.notify(state, seq)
            self.notify_s.append(time.perf_counter() - t0)
            if after is not None:
                after(seq)
            if pace_s:
                time.sleep(pace_s)
            return state

        play_game(self.game.config, self.data, seed, None, submit)
        return self.game.state

    @property
    def last_seq(self) -> int:
        return len(self.game.journal)

    def final_message(self) -> dict[str, Any]:
        """The state message of the game now, without the volatile fields."""
        m = state_message(self.game.state, self.table_id, seq=self.last_seq)
        return comparable(m)

    def close(self) -> None:
        self.publisher.close(flush_s=0)
        self.game.close()


def comparable(message: dict[str, Any]) -> dict[str, Any]:
    """A state message without ``sent_at`` and ``last_combat`` (they depend on timing)."""
    return {k: v for k, v in message.items() if k not in ("sent_at", "last_combat")}
