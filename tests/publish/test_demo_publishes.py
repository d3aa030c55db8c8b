"""``toptable demo --mqtt URL --table-id ID``: the real demo publishes its whole game."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from controller.bench.kill import run_json, toptable
from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber
from tests.publish.broker import Mosquitto
from tests.waiting import wait_for

# A whole `toptable demo` game (a minute of CPU): the slow tier. The publishing itself is tested
# in test_publisher.py, and the demo's --mqtt wiring by test_companion.py's companion demo.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]


def test_the_demo_publishes_every_event_and_its_end(broker: Mosquitto, tmp_path: Path) -> None:
    board = Scoreboard()
    board.keep_delivered = True
    sub = Subscriber(Connection(parse_broker_url(broker.url)), board, "demo-watcher").start()
    try:
        assert sub.wait_connected(5), "the subscriber did not connect"
        journal = tmp_path / "demo.sqlite"
        summary = run_json(
            toptable("demo", "--fast", "--json", "--seed", "2", "--out", str(tmp_path / "out"),
                     "--journal", str(journal), "--mqtt", broker.url, "--table-id", "demo-1"),
            timeout_s=200,
        )  # fmt: skip
        with sqlite3.connect(journal) as conn:
            rows = conn.execute("SELECT count(*) FROM events").fetchone()[0]

        def delivered() -> list[int]:
            return sorted({seq for t, _, seq in board.delivered if t == "demo-1"})

        assert wait_for(lambda: delivered() == list(range(1, rows + 1)), 20), delivered()[-5:]
        assert wait_for(lambda: (board.table("demo-1") or {}).get("winners") is not None, 10)
        state = board.table("demo-1") or {}
        assert sorted(state["winners"]) == sorted(summary["winners"])
    finally:
        sub.close()
