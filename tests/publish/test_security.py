"""A broker with a password file and an ACL: who may publish and read what; no leaks."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber
from tests.publish.broker import Mosquitto, make_password_file
from tests.publish.table import TestTable
from tests.waiting import wait_for

TABLE_PW = "tbl-Pa55-word"
BOARD_PW = "brd-Pa55-word"


@pytest.fixture
def secure_broker(tmp_path: Path) -> Iterator[Mosquitto]:
    d = tmp_path / "secure"
    d.mkdir()
    pw = make_password_file(d / "passwd", {"table-1": TABLE_PW, "scoreboard": BOARD_PW})
    acl = d / "acl"
    acl.write_text(
        "user table-1\ntopic write toptable/table-1/#\n\nuser scoreboard\ntopic read toptable/#\n",
        encoding="utf-8",
    )
    b = Mosquitto(d, password_file=pw, acl_file=acl).start()
    yield b
    b.stop()


def _conn(url: str, tmp_path: Path, user: str | None, password: str | None) -> Connection:
    f = None
    if password is not None:
        f = tmp_path / f"pw-{user}-{time.monotonic_ns()}"
        f.write_text(password + "\n", encoding="utf-8")
    return Connection(parse_broker_url(url), user, f)


def test_password_and_acl(
    secure_broker: Mosquitto, tmp_path: Path, game_data: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    url = secure_broker.url
    board = Scoreboard()
    sub = Subscriber(_conn(url, tmp_path, "scoreboard", BOARD_PW), board, "sb").start()
    anonymous = Subscriber(Connection(parse_broker_url(url)), Scoreboard(), "anon").start()
    good = TestTable(tmp_path, url, game_data, conn=_conn(url, tmp_path, "table-1", TABLE_PW))
    # table-1's user pretending to be table-2: the ACL drops its messages
    (tmp_path / "other").mkdir()
    rogue = TestTable(
        tmp_path / "other", url, game_data, table_id="table-2",
        conn=_conn(url, tmp_path, "table-1", TABLE_PW),
    )  # fmt: skip
    wrong = TestTable(
        tmp_path / "other", url, game_data, table_id="table-3",
        conn=_conn(url, tmp_path, "table-1", "not-the-password"),
    )  # fmt: skip
    try:
        assert sub.wait_connected(5)
        assert wait_for(lambda: good.publisher.connected and rogue.publisher.connected, 5)
        # The rogue plays first and the broker acknowledges all it sent (MQTT 3.1.1 acknowledges
        # a publish the ACL drops); the good table plays only then. The broker delivers in the
        # order it received, so once the good table's last state is in, a leak would be in too.
        rogue.play(seed=2)
        wrong.play(seed=3)
        assert rogue.publisher.flush(10), rogue.publisher.stats
        good.play(seed=1)
        assert good.publisher.flush(10)
        last = good.last_seq
        assert wait_for(lambda: (board.table("table-1") or {}).get("seq") == last, 5)
        assert [t["table_id"] for t in board.tables()] == ["table-1"]
        assert wait_for(lambda: "refused table table-3" in caplog.text, 5)
        assert wait_for(lambda: "refused the scoreboard" in caplog.text, 5)
        assert not wrong.publisher.connected
        assert not anonymous.connected
        for secret in (TABLE_PW, BOARD_PW, "not-the-password"):
            assert secret not in caplog.text
            assert secret not in str(board.tables())
    finally:
        for t in (good, rogue, wrong):
            t.close()
        sub.close()
        anonymous.close()


def test_tls_with_a_ca_file(tmp_path: Path, game_data: Any) -> None:
    """mqtts:// with the club's CA: the table publishes; without the CA it cannot connect."""
    from tests.publish.broker import make_certificates

    d = tmp_path / "tls"
    d.mkdir()
    ca, cert, key = make_certificates(d)
    broker = Mosquitto(d, tls=(ca, cert, key)).start()
    url = broker.url
    assert url.startswith("mqtts://")
    conn = Connection(parse_broker_url(url), ca_file=ca)
    board = Scoreboard()
    sub = Subscriber(conn, board, "tls-board").start()
    table = TestTable(tmp_path, url, game_data, conn=conn)
    untrusted = Subscriber(Connection(parse_broker_url(url)), Scoreboard(), "no-ca").start()
    try:
        assert sub.wait_connected(5)
        table.play(seed=2)
        assert table.publisher.flush(10)
        last = table.last_seq
        assert wait_for(lambda: (board.table("table-1") or {}).get("seq") == last, 5)
        assert not untrusted.connected  # the system CAs do not vouch for this broker
    finally:
        table.close()
        sub.close()
        untrusted.close()
        broker.stop()
