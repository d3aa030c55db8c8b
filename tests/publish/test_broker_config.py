"""The shipped Mosquitto config (``service files mosquitto-toptable.conf``/``.acl``), run for
real: tables write only their own topics, a retained finished state survives a SIGKILL of
the broker, an oversized message is refused without growing the broker."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from controller.publish.client import make_client
from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber
from controller.system.broker_files import BrokerFolder, broker_folder
from controller.system.unit_files import BROKER_CONFIG, shipped_text
from tests.publish.broker import Mosquitto, make_password_file
from tests.publish.table import TestTable
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(120)
PASSWORDS = {"table-1": "pw-table-1", "table-2": "pw-table-2", "scoreboard": "pw-board"}


class ShippedBroker:
    """Mosquitto running the shipped files (Debian's layout, in a temporary folder)."""

    def __init__(self, directory: Path) -> None:
        self.mosquitto = Mosquitto(directory)  # its free port; the config is replaced below
        self.folder: BrokerFolder = broker_folder(directory, self.mosquitto.port)
        self.mosquitto.config = self.folder.config
        make_password_file(self.folder.password_file, PASSWORDS)
        self.directory = directory

    @property
    def url(self) -> str:
        return self.mosquitto.url

    def conn(self, user: str, password: str | None = None) -> Connection:
        f = self.directory / f"password-{user}"
        f.write_text((password or PASSWORDS[user]) + "\n", encoding="utf-8")
        return Connection(parse_broker_url(self.url), user, f)

    def memory_kb(self) -> int:
        """The broker's peak resident memory (VmHWM)."""
        proc = self.mosquitto.proc
        assert proc is not None
        for line in Path(f"/proc/{proc.pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
        raise AssertionError("no VmHWM")


@pytest.fixture
def shipped(tmp_path: Path) -> Iterator[ShippedBroker]:
    d = tmp_path / "shipped"
    d.mkdir()
    b = ShippedBroker(d)
    b.mosquitto.start()
    yield b
    b.mosquitto.stop()


def test_the_shipped_config_has_what_a_crash_and_a_flood_need() -> None:
    lines = {line.split()[0]: line.split()[1:] for line in shipped_text(BROKER_CONFIG).splitlines()
             if line and not line.startswith("#")}  # fmt: skip
    assert lines["persistence"] == ["true"] and 0 < int(lines["autosave_interval"][0]) <= 5
    assert int(lines["message_size_limit"][0]) == 65536
    assert lines["allow_anonymous"] == ["false"]


def test_a_table_writes_only_its_own_topics(
    shipped: ShippedBroker, tmp_path: Path, game_data: Any, caplog: pytest.LogCaptureFixture
) -> None:
    board = Scoreboard()
    sub = Subscriber(shipped.conn("scoreboard"), board, "board").start()
    good = TestTable(tmp_path, shipped.url, game_data, "table-1", conn=shipped.conn("table-1"))
    (tmp_path / "rogue").mkdir()
    rogue = TestTable(tmp_path / "rogue", shipped.url, game_data, "table-2",
                      conn=shipped.conn("table-1"))  # fmt: skip
    try:
        assert sub.wait_connected(5)
        good.play(seed=3)
        rogue.play(seed=4)
        assert good.publisher.flush(10) and rogue.publisher.flush(10)  # acked, then dropped
        assert wait_for(lambda: (board.table("table-1") or {}).get("over") is True, 10)
        assert board.table_ids() == ["table-1"]
        # mosquitto says nothing (SUBACK granted, PUBACKs sent): the rogue table tells by
        # its own "online" never coming back, and the good one does not
        assert wait_for(lambda: "table table-2: the broker did not hand back" in caplog.text, 15)
        assert "set [events] username = table_id" in caplog.text
        assert "table table-1: the broker did not" not in caplog.text
    finally:
        good.close()
        rogue.close()
        sub.close()


def test_two_tables_with_one_id_notice_each_other_under_the_shipped_acl(
    shipped: ShippedBroker, tmp_path: Path, game_data: Any, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.ERROR)
    one = TestTable(tmp_path, shipped.url, game_data, "table-1", conn=shipped.conn("table-1"))
    assert wait_for(lambda: one.publisher.connected, 5)
    (tmp_path / "clone").mkdir()
    clone = TestTable(tmp_path / "clone", shipped.url, game_data, "table-1",
                      conn=shipped.conn("table-1"))  # fmt: skip
    try:
        assert wait_for(lambda: clone.publisher.stats.other_instances >= 1, 10)
        assert wait_for(lambda: one.publisher.stats.other_instances >= 1, 10)
        said = [
            r.getMessage() for r in caplog.records if "another table publishes" in r.getMessage()
        ]
        assert {one.publisher.instance, clone.publisher.instance} <= {
            word.rstrip("):,") for m in said for word in m.split()
        }  # fmt: skip
        assert one.publisher.stats.disconnections == clone.publisher.stats.disconnections == 0
    finally:
        one.close()
        clone.close()


def test_a_finished_state_survives_a_sigkill_of_the_broker(
    shipped: ShippedBroker, tmp_path: Path, game_data: Any
) -> None:
    table = TestTable(tmp_path, shipped.url, game_data, "table-1", conn=shipped.conn("table-1"))
    try:
        final = table.play(seed=5)
        assert table.publisher.flush(10)
    finally:
        table.close()  # the table is gone: nobody will publish its state again
    db = shipped.folder.database
    flushed = db.stat().st_mtime_ns if db.exists() else 0
    assert wait_for(lambda: db.exists() and db.stat().st_mtime_ns > flushed, 10), "never saved"
    shipped.mosquitto.kill()
    shipped.mosquitto.start()
    board = Scoreboard()
    sub = Subscriber(shipped.conn("scoreboard"), board, "late").start()
    try:
        assert wait_for(lambda: (board.table("table-1") or {}).get("over") is True, 10)
        shown = board.table("table-1") or {}
        assert shown["winners"] == [final.players[w] for w in final.winners]
        assert shown["seq"] == table.last_seq
    finally:
        sub.close()


def test_an_oversized_message_is_refused_without_growing_the_broker(
    shipped: ShippedBroker,
) -> None:
    got: list[int] = []
    arrived = threading.Event()
    sub = make_client(shipped.conn("scoreboard"), "reader")

    def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        got.append(len(msg.payload))
        if msg.payload == b"small":
            arrived.set()

    subscribed = threading.Event()
    sub.on_message = on_message
    sub.on_connect = lambda c, *a: c.subscribe("toptable/#", qos=1)
    sub.on_subscribe = lambda *a: subscribed.set()
    sub.connect("127.0.0.1", shipped.mosquitto.port)
    sub.loop_start()
    before = shipped.memory_kb()
    try:
        assert subscribed.wait(5)
        for size in (70 * 1024, 20 * 1024 * 1024):
            big = make_client(shipped.conn("table-1"), f"big-{size}")
            gone = threading.Event()
            big.on_disconnect = lambda *a, gone=gone: gone.set()
            big.connect("127.0.0.1", shipped.mosquitto.port)
            big.loop_start()
            big.publish("toptable/table-1/state", b"x" * size, qos=1)
            assert gone.wait(20), "the broker kept a client that sent an oversized packet"
            big.loop_stop()
        small = make_client(shipped.conn("table-1"), "small")
        small.connect("127.0.0.1", shipped.mosquitto.port)
        small.loop_start()
        small.publish("toptable/table-1/state", b"small", qos=1)
        assert arrived.wait(10)
        small.disconnect()
        small.loop_stop()
        assert got == [5]
        assert shipped.memory_kb() - before < 8 * 1024  # a 20 MB message was never read in
    finally:
        sub.disconnect()
        sub.loop_stop()


def test_a_table_back_from_a_power_cut_is_online_and_no_clone(
    shipped: ShippedBroker, tmp_path: Path, game_data: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """After a power cut the table's new process finds its dead predecessor's retained
    "online" (the broker still holds the dead connection), then that connection's will, a
    retained "offline". It is no cloned card, and the new process says online again."""
    import socket

    caplog.set_level(logging.ERROR)
    board = Scoreboard()
    sub = Subscriber(shipped.conn("scoreboard"), board, "board").start()
    dead = TestTable(tmp_path, shipped.url, game_data, "table-1", conn=shipped.conn("table-1"))
    (tmp_path / "back").mkdir()
    back: TestTable | None = None
    try:
        assert sub.wait_connected(5) and wait_for(lambda: dead.publisher.connected, 5)
        dead.publisher._stop.set()  # the power goes: no DISCONNECT, the broker holds on
        dead.publisher._net.wake()
        dead.publisher._thread.join(5)
        back = TestTable(tmp_path / "back", shipped.url, game_data, "table-1",
                         conn=shipped.conn("table-1"))  # fmt: skip
        back.play(seed=2)
        assert wait_for(lambda: back.publisher.stats.other_instances >= 1, 10)  # the retained
        gone = dead.publisher._client.socket()
        assert isinstance(gone, socket.socket)
        gone.shutdown(socket.SHUT_RDWR)  # the broker gives up on it: its will goes out
        assert back.publisher.flush(10)
        assert wait_for(lambda: (board.table("table-1") or {}).get("online") is True, 10)
        seen: list[bytes] = []
        reader = make_client(shipped.conn("scoreboard"), "reader", clean_session=True)
        reader.on_message = lambda c, u, m: seen.append(bytes(m.payload))
        reader.connect("127.0.0.1", shipped.mosquitto.port)
        reader.subscribe("toptable/table-1/online", qos=1)
        mine = back.publisher.instance

        def last_is_back_online() -> bool:
            reader.loop(0.1)
            return bool(seen) and mine in seen[-1].decode() and '"online"' in seen[-1].decode()

        assert wait_for(last_is_back_online, 10)  # the broker keeps "online", not the will
        reader.disconnect()
        assert "another table publishes" not in caplog.text
    finally:
        if back is not None:
            back.close()
        dead.publisher._net.close(0.1)
        sub.close()


def test_the_scoreboards_queue_is_bounded_in_bytes(shipped: ShippedBroker) -> None:
    """20,000 queued messages of 64 KB from one table's login grew the broker to 1.25 GB
    while the scoreboard was away (review 112): ``max_queued_bytes`` bounds the queue."""
    port = shipped.mosquitto.port
    subscribed = threading.Event()
    away = make_client(shipped.conn("scoreboard"), "queue-reader", clean_session=False)
    away.on_connect = lambda c, *a: c.subscribe("toptable/#", qos=1)
    away.on_subscribe = lambda *a: subscribed.set()
    away.connect("127.0.0.1", port)
    away.loop_start()
    assert subscribed.wait(5)
    away.disconnect()
    away.loop_stop()
    flood = make_client(shipped.conn("table-1"), "flood")
    flood.connect("127.0.0.1", port)
    flood.loop_start()
    sent = [flood.publish("toptable/table-1/events", b"x" * 60_000, qos=1) for _ in range(400)]
    for info in sent:
        info.wait_for_publish(10)
    flood.disconnect()
    flood.loop_stop()
    got: list[int] = []
    back = make_client(shipped.conn("scoreboard"), "queue-reader", clean_session=False)
    back.on_message = lambda c, u, msg: got.append(len(msg.payload))
    back.connect("127.0.0.1", port)
    back.loop_start()
    try:
        wait_for(lambda: False, 3)  # what the broker kept arrives
    finally:
        back.disconnect()
        back.loop_stop()
    assert 0 < len(got) * 60_000 <= 16 * 1024 * 1024 + 60_000  # 24 MB were sent
