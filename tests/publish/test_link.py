"""No silent failures (issue 27): the link to the broker in words, and what a table delivered.

A publisher says why it has no broker (unreachable, a password refused, a certificate that
does not verify); at the end a table waits a bounded time for its outbox and says how many
of its events the broker took, and where the rest wait.
"""

from __future__ import annotations

import logging
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from controller.publish.link import Link, LinkState, connack_refusal
from controller.publish.outbox import AckMark
from controller.publish.publisher import Publisher
from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber
from tests.publish.broker import Mosquitto, free_port, make_certificates, make_password_file
from tests.publish.stall_proxy import StallProxy
from tests.publish.table import TestTable
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(120)


def _password(tmp_path: Path, text: str) -> Path:
    f = tmp_path / f"pw-{text}"
    f.write_text(text + "\n", encoding="utf-8")
    return f


def test_an_unreachable_broker_is_said_so() -> None:
    url = f"mqtt://127.0.0.1:{free_port()}"
    with Publisher(Connection(parse_broker_url(url)), "t1") as publisher:
        publisher.start()
        status = publisher.wait_link(10)
    assert status.state is LinkState.UNREACHABLE and status.broker == url
    assert status.problem == "Connection refused"


def test_a_refused_password_is_a_refusal(tmp_path: Path) -> None:
    d = tmp_path / "b"
    d.mkdir()
    pw = make_password_file(d / "passwd", {"t1": "right"})
    broker = Mosquitto(d, password_file=pw).start()
    conn = Connection(parse_broker_url(broker.url), "t1", _password(tmp_path, "wrong"))
    board = Scoreboard()
    try:
        with Publisher(conn, "t1") as publisher:
            publisher.start()
            status = publisher.wait_link(10)
        assert status.state is LinkState.REFUSED and status.problem == "Not authorized"
        sub = Subscriber(conn, board, "board").start()  # the scoreboard says it too
        try:
            assert wait_for(lambda: board.link()["state"] == "refused", 10)
            assert board.link()["problem"] == "Not authorized"
            assert "wrong" not in str(board.link())
        finally:
            sub.close()
    finally:
        broker.stop()


def test_a_certificate_that_does_not_verify_is_a_refusal(tmp_path: Path) -> None:
    d = tmp_path / "tls"
    d.mkdir()
    broker = Mosquitto(d, tls=make_certificates(d)).start()
    other = tmp_path / "other-ca"
    other.mkdir()
    wrong_ca = make_certificates(other)[0]
    try:
        conn = Connection(parse_broker_url(broker.url), ca_file=wrong_ca)
        with Publisher(conn, "t1") as publisher:
            publisher.start()
            status = publisher.wait_link(10)
        assert status.state is LinkState.REFUSED
        assert status.problem is not None and status.problem.startswith("TLS: ")
        assert "certificate does not verify (self-signed certificate" in status.problem
    finally:
        broker.stop()


def test_a_table_that_ends_while_the_broker_is_down_says_what_waits(
    broker: Mosquitto, tmp_path: Path, game_data: Any
) -> None:
    table = TestTable(tmp_path, broker.url, game_data)
    half = 0

    def down_midway(seq: int) -> None:
        nonlocal half
        if seq == 30:
            assert table.publisher.flush(10)
            half = table.publisher.stats.acked
            broker.kill()

    try:
        table.play(seed=3, after=down_midway)
        delivery = table.publisher.finish(0.5)  # bounded: the broker does not come back
    finally:
        table.game.close()
    total = table.last_seq
    assert delivery.total == total and half <= delivery.delivered < total
    assert delivery.text() == (
        f"{delivery.delivered} of {total} events delivered; the rest wait in "
        f"{table.game.journal.path} (`--resume` sends them); broker: {delivery.problem}"
    )
    assert delivery.problem is not None  # "connection lost (...)", or "Connection refused"
    # --resume: the next publisher of this journal sends the rest
    broker.start()
    again = Publisher(Connection(parse_broker_url(broker.url)), "table-1")
    again.attach(table.game.journal.path, table.game.journal.game_id)
    again.start()
    done = again.finish(10)
    assert done.complete and done.text() == f"{total} of {total} events delivered"
    assert AckMark(table.game.journal.path, table.game.journal.game_id).value == total


def _demo(tmp_path: Path, url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "controller.cli", "demo", "--mode", "challengers", "--fast",
           "--seed", "2", "--out", str(tmp_path / "out"), "--journal", str(tmp_path / "c.sqlite"),
           "--mqtt", url, "--table-id", "c1", *extra]  # fmt: skip
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def _actions(journal: Path) -> int:
    with sqlite3.connect(journal) as conn:
        return int(conn.execute("SELECT count(*) FROM events").fetchone()[0])


@pytest.mark.parametrize("refusal", ["unreachable", "password"])
def test_a_demo_without_its_broker_says_why_and_exits_2_before_playing(
    refusal: str, tmp_path: Path
) -> None:
    extra: tuple[str, ...] = ()
    if refusal == "unreachable":
        url, why = f"mqtt://127.0.0.1:{free_port()}", "unreachable: Connection refused"
        broker = None
    else:
        d = tmp_path / "b"
        d.mkdir()
        broker = Mosquitto(d, password_file=make_password_file(d / "pw", {"c1": "right"}))
        url, why = broker.start().url, "refused: Not authorized"
        extra = ("--username", "c1", "--password-file", str(_password(tmp_path, "wrong")))
    try:
        done = _demo(tmp_path, url, *extra)
    finally:
        if broker is not None:
            broker.stop()
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == (
        f"toptable: error: broker {url} {why}; nothing was played"
    )
    assert "wrong" not in done.stderr and "Traceback" not in done.stderr
    assert _actions(tmp_path / "c.sqlite") == 0


@pytest.mark.parametrize("mode", ["topdice", "challengers"])
def test_a_demo_refused_by_its_broker_may_be_run_again(mode: str, tmp_path: Path) -> None:
    """The journal a refused demo made in its output folder is its own: the same command
    run again (the broker started, the password mended) replaced it; it was refused as
    "a game the demo did not start" (review 108)."""
    url = f"mqtt://127.0.0.1:{free_port()}"
    cmd = [sys.executable, "-m", "controller.cli", "demo", "--mode", mode, "--fast", "--out",
           str(tmp_path / "out"), "--mqtt", url, "--table-id", "t1"]  # fmt: skip
    for _ in range(2):
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 2, done.stderr
        last = done.stderr.splitlines()[-1]
        assert (
            last
            == f"toptable: error: broker {url} unreachable: Connection refused; nothing was played"
        )


def test_a_demo_that_ends_while_its_broker_is_frozen_says_what_waits_and_resume_sends_it(
    broker: Mosquitto, tmp_path: Path
) -> None:
    # The broker stalls once two events reached it (a proxy cuts at the packet: the demo
    # publishes the rest of its game in one burst, which a SIGSTOP would come too late for).
    proxy = StallProxy(broker.port, events=2)
    try:
        done = _demo(tmp_path, proxy.url)
    finally:
        proxy.close()
    journal = tmp_path / "c.sqlite"
    total = _actions(journal)
    assert done.returncode == 1, done.stderr
    line = done.stderr.splitlines()[-1]
    delivered = int(line.split()[2])
    assert delivered == proxy.passed == 2 < total
    assert line.startswith(
        f"toptable demo: {delivered} of {total} events delivered; the rest wait in {journal} "
        "(`--resume` sends them)"
    )
    again = _demo(tmp_path, broker.url, "--resume")
    assert again.returncode == 0, again.stderr
    assert f"  events: {total} of {total} events delivered" in again.stdout.splitlines()


def test_a_connection_closed_on_purpose_is_no_outage(
    broker: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    """Review 99: paho 2.2.0 calls on_disconnect after the client's own disconnect():
    every demo's end, and the scoreboard's stop, warned that the broker could not be
    reached ("Normal disconnection"), and counted a disconnection."""
    conn = Connection(parse_broker_url(broker.url))
    with caplog.at_level("INFO"):
        sub = Subscriber(conn, Scoreboard(), "board").start()
        with Publisher(conn, "t1") as publisher:
            publisher.start()
            assert publisher.wait_link(10).state is LinkState.CONNECTED
        assert wait_for(lambda: sub.connected, 10)
        sub.close()
    assert publisher.stats.disconnections == 0
    said = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert not [m for m in said if "cannot reach" in m or "connection lost" in m], said


def test_two_scoreboards_of_one_client_id_are_said(
    broker: Mosquitto, caplog: pytest.LogCaptureFixture
) -> None:
    """Review 105: the broker drops the older of two connections with one client id (MQTT
    3.1.1 §3.1.4); two scoreboards of one id took each other's place over and over (17 in
    20 s) and neither said why."""
    conn = Connection(parse_broker_url(broker.url))
    with caplog.at_level("WARNING"):
        first = Subscriber(conn, Scoreboard(), "same-id").start()
        second = Subscriber(conn, Scoreboard(), "same-id").start()
        try:
            said = wait_for(
                lambda: any("is another client using its id 'same-id'" in r.getMessage()
                            for r in caplog.records), 60)  # fmt: skip
        finally:
            first.close()
            second.close()
    assert said


def test_an_outage_is_timed_on_the_monotonic_clock(caplog: pytest.LogCaptureFixture) -> None:
    """A Pi's network and NTP come together at boot: the wall clock steps by days in the
    middle of an outage, which lasted what the monotonic clock says (review 109)."""
    wall, mono = [1_764_000_000.0], [50.0]
    link = Link("table t1", "mqtt://club:1883", wall=lambda: wall[0], clock=lambda: mono[0])
    with caplog.at_level(logging.WARNING, logger="controller.publish.link"):
        link.unreachable("[Errno 101] Network is unreachable")
        mono[0] += 40
        wall[0] += 6 * 86400 + 22 * 3600 + 40
        link.connected()
        link.lost("a reset")
        mono[0] += 90
        wall[0] -= 3600
        link.connected()
    again = [r.getMessage() for r in caplog.records if "again after" in r.getMessage()]
    assert [m.split("again after ")[1] for m in again] == ["40 s", "90 s"]
    assert link.status().since == wall[0]  # the status still tells the wall time


def test_a_broker_that_restarts_is_no_refusal() -> None:
    """MQTT 3.1.1's CONNACK 3, "Server unavailable" (paho 2.x's name), mends by itself: the
    link retries, and a table that ends meanwhile still flushes (review tests3 p12); a bad
    password or client id is a refusal, not retried."""
    assert not connack_refusal("Server unavailable") and not connack_refusal("Server busy")
    assert connack_refusal("Not authorized") and connack_refusal("Bad user name or password")


def test_a_refusal_whose_reason_changes_is_said_and_shown_again(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """A refusal is logged once per reason, not per retry, and a new reason (the password
    mended, the client id now refused) is logged and shown in the status."""
    seen: list[str | None] = []
    link = Link("table t1", "mqtt://club:1883", on_change=lambda s: seen.append(s.problem))
    with caplog.at_level(logging.WARNING, logger="controller.publish.link"):
        link.refused("Not authorized")
        link.refused("Not authorized")  # the next retry's same answer
        link.refused("Client identifier not valid")
    assert link.status().state is LinkState.REFUSED
    assert link.status().problem == "Client identifier not valid"
    assert seen == ["Not authorized", "Client identifier not valid"]
    assert [r.getMessage() for r in caplog.records] == [
        "broker mqtt://club:1883 refused table t1: Not authorized",
        "broker mqtt://club:1883 refused table t1: Client identifier not valid",
    ]


def test_an_outage_says_how_many_events_the_broker_has_not_acknowledged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A table resumed with its broker away says how many of its events still wait (those
    after the acknowledged mark), not how many the journal holds."""
    from controller.game.events import FirstPlayerChosen
    from controller.game.journal import Journal

    path = tmp_path / "j.sqlite"
    with Journal.create(path, {"mode": "tournament"}) as journal:
        for seat in (0, 1, 0, 1, 0):
            journal.append(FirstPlayerChosen(seat=seat))
        game_id = journal.game_id
    mark = AckMark(path, game_id)
    mark.advance(3)  # the broker had taken rows 1-3 before the table stopped
    mark.save()
    url = "mqtt://127.0.0.1:1"  # nothing listens there (no free_port() hands it out)
    with (
        caplog.at_level(logging.WARNING, logger="controller.publish.link"),
        Publisher(Connection(parse_broker_url(url)), "t1") as publisher,
    ):
        publisher.attach(path, game_id)
        publisher.start()
        assert publisher.wait_link(10).state is LinkState.UNREACHABLE
    said = [r.getMessage() for r in caplog.records if "cannot reach" in r.getMessage()]
    assert said == [
        f"table t1 cannot reach its broker {url} (Connection refused); 2 events of the game "
        f"wait in {path}, sent once it is back; it keeps trying"
    ]
