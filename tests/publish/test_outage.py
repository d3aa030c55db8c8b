"""An unreachable broker is said once (issue 29), not once per retry: by a table, with how many
of its events wait in the journal, and by the scoreboard; and each says when it is back."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber
from tests.publish.broker import Mosquitto
from tests.publish.table import TestTable
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(120)

RETRIES = 3  # connection attempts refused before the test looks at the log (1 s, 2 s apart)


def _said(caplog: pytest.LogCaptureFixture, words: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if words in r.getMessage()]


def _idle_broker(tmp_path: Path) -> Mosquitto:
    """A broker whose port is chosen but that does not run yet (start() brings it up)."""
    d = tmp_path / "broker"
    d.mkdir()
    return Mosquitto(d)


def test_a_table_says_once_that_its_broker_is_unreachable_and_what_waits(
    tmp_path: Path, game_data: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="controller.publish")
    broker = _idle_broker(tmp_path)
    table = TestTable(tmp_path, broker.url, game_data, start=False)
    journal = table.game.journal.path
    try:
        table.play(seed=3)  # the whole game is journalled before the publisher starts
        rows = len(table.game.journal)
        publisher = table.publisher.start()
        assert wait_for(lambda: publisher.link.failed_attempts >= RETRIES, 30)
        assert _said(caplog, "cannot reach") == [
            f"table table-1 cannot reach its broker {broker.url} (Connection refused); "
            f"{rows} events of the game wait in {journal}, sent once it is back; it keeps trying"
        ]
        broker.start()
        assert publisher.flush(30)  # every row went out once the broker was back
        again = _said(caplog, "again")
        assert len(again) == 1, again
        assert again[0].startswith(f"table table-1 reaches its broker {broker.url} again after ")
        assert again[0].endswith(f" s; {rows} events of the game wait in {journal}: sending them")
        assert len(_said(caplog, "cannot reach")) == 1
        assert publisher.stats.acked == rows
    finally:
        table.publisher.close()
        table.game.close()
        broker.stop()


def test_a_table_that_loses_its_broker_says_so_once(
    tmp_path: Path, game_data: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="controller.publish")
    broker = _idle_broker(tmp_path).start()
    table = TestTable(tmp_path, broker.url, game_data)
    publisher = table.publisher
    try:
        assert wait_for(lambda: publisher.connected, 10)
        broker.kill()
        before = publisher.link.failed_attempts
        assert wait_for(lambda: publisher.link.failed_attempts >= before + RETRIES, 30)
        down = _said(caplog, "cannot reach")
        assert len(down) == 1, down  # the loss, then every refused retry: one line
        assert down[0].startswith(
            f"table table-1 cannot reach its broker {broker.url} (connection lost"
        )
        assert f"; 0 events of the game wait in {table.game.journal.path}" in down[0]
        broker.start()
        assert wait_for(lambda: publisher.connected, 30)
        assert len(_said(caplog, "again")) == 1
    finally:
        publisher.close()
        table.game.close()
        broker.stop()


def test_the_scoreboard_says_once_that_its_broker_is_unreachable(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="controller.publish")
    broker = _idle_broker(tmp_path)
    board = Scoreboard()
    sub = Subscriber(Connection(parse_broker_url(broker.url)), board, "board").start()
    try:
        assert wait_for(lambda: sub.link.failed_attempts >= RETRIES, 30)
        assert board.link()["state"] == "unreachable"  # what the page shows
        assert board.link()["problem"] == "Connection refused"
        assert _said(caplog, "cannot reach") == [
            f"the scoreboard cannot reach its broker {broker.url} (Connection refused); "
            "it keeps trying"
        ]
        broker.start()
        assert sub.wait_connected(30)
        assert board.link()["state"] == "connected"
        again = _said(caplog, "again")
        assert len(again) == 1 and again[0].startswith(
            f"the scoreboard reaches its broker {broker.url} again after "
        )
    finally:
        sub.close()
        broker.stop()
