"""The scoreboard's session with a real broker: what the broker keeps for it while it is away,
and what it says when the broker refuses one of its subscriptions."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.publish.link import LinkState
from controller.publish.settings import Connection, parse_broker_url
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.subscriber import Subscriber
from tests.publish.broker import HINT, Mosquitto
from tests.publish.table import TestTable
from tests.waiting import wait_for

pytestmark = pytest.mark.timeout(120)


def test_a_scoreboard_away_for_a_while_is_given_every_row_played_meanwhile(
    broker: Mosquitto, tmp_path: Path, game_data: Any
) -> None:
    """While the scoreboard is away (restarted, off the Wi-Fi) the broker keeps the tables'
    events for its session: a persistent one (MQTT 3.1.1 §3.1.2.4) subscribed at QoS 1, as
    mosquitto queues no QoS 0 message for an absent client. Back under its id, it has them."""
    conn = Connection(parse_broker_url(broker.url))
    sub = Subscriber(conn, Scoreboard(), "away-board").start()
    try:
        assert sub.wait_connected(5)
    finally:
        sub.close()
    table = TestTable(tmp_path, broker.url, game_data)
    try:
        table.play(seed=4)
        assert table.publisher.flush(10)  # every event acknowledged: queued by the broker
    finally:
        table.close()
    board = Scoreboard()
    sub = Subscriber(conn, board, "away-board").start()

    def events() -> dict[str, Any]:
        return (board.table(table.table_id) or {}).get("events") or {}

    try:
        assert sub.wait_connected(5)
        assert wait_for(lambda: events().get("last_seq") == table.last_seq, 10), events()
        assert events()["missing_count"] == 0 and events()["lost"] == 0
    finally:
        sub.close()


def _dynamic_security() -> Path:
    """mosquitto's dynamic security plugin (Debian's mosquitto package ships it)."""
    found = sorted(Path("/usr/lib").glob("*/mosquitto_dynamic_security.so"))
    if not found:
        pytest.fail(f"mosquitto_dynamic_security.so is not installed: {HINT}", pytrace=False)
    return found[0]


@pytest.fixture
def online_refused(tmp_path: Path) -> Iterator[Mosquitto]:
    """A broker whose ACL lets anyone subscribe to the tables' states and events, not to their
    online topics. Its ``acl_file`` checks no subscription (mosquitto 2.0's security_default.c
    grants every SUBSCRIBE): the dynamic security plugin does."""
    d = tmp_path / "dynsec"
    d.mkdir()
    allow = [{"acltype": "subscribeLiteral", "topic": f"toptable/+/{kind}", "allow": True}
             for kind in ("state", "events")]  # fmt: skip
    config = d / "dynamic-security.json"
    config.write_text(json.dumps({
        "defaultACLAccess": {"publishClientSend": True, "publishClientReceive": True,
                             "subscribe": False, "unsubscribe": True},
        "clients": [],
        "groups": [{"groupname": "anyone", "roles": [{"rolename": "reader"}]}],
        "roles": [{"rolename": "reader", "acls": allow}],
        "anonymousGroup": "anyone",
    }), encoding="utf-8")  # fmt: skip
    b = Mosquitto(d)
    with b.config.open("a", encoding="utf-8") as f:
        f.write(f"plugin {_dynamic_security()}\nplugin_opt_config_file {config}\n")
    yield b.start()
    b.stop()


def test_a_broker_refusing_one_of_the_subscriptions_is_shown_as_refused(
    online_refused: Mosquitto,
) -> None:
    """A SUBACK answers each topic filter on its own (0x80: refused, MQTT 3.1.1 §3.9.3): one
    refused, and no table's online or offline would ever come: the owner is told to fix
    the ACL rather than shown a scoreboard connected."""
    board = Scoreboard()
    sub = Subscriber(Connection(parse_broker_url(online_refused.url)), board, "sb").start()
    try:
        assert sub.wait_connected(5)
        link = board.link()
        assert link["state"] == LinkState.REFUSED and "ACL" in str(link["problem"]), link
    finally:
        sub.close()
