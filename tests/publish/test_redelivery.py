"""A table's link cut with events in flight: each event reaches a subscriber twice at most.

paho-mqtt 2.2.0 keeps every QoS 1 message not acknowledged and sends them all again
(dup) on the next CONNACK (``_messages_reconnect_reset_out``, ``_handle_connack``);
the publisher sends again from its acknowledged mark on every connection. Both would
put each row in flight at the cut on the wire twice more. Real Mosquitto, real paho,
the table's link relayed through :class:`~tests.publish.cut_link.CutLink`.
"""

from __future__ import annotations

import json
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion

from tests.publish.broker import Mosquitto
from tests.publish.cut_link import CutLink
from tests.publish.table import TestTable
from tests.waiting import wait_for, wait_until

pytestmark = pytest.mark.timeout(90)

ACKED = 20  # every event up to this one acknowledged; then the broker's answers are held
CUT = 30  # events ACKED+1..CUT delivered, their PUBACKs lost; then the link is cut


def test_events_in_flight_at_a_cut_arrive_twice_at_most(
    broker: Mosquitto, tmp_path: Path, game_data: Any
) -> None:
    seen: Counter[int] = Counter()
    lock = threading.Lock()
    subscribed = threading.Event()

    def on_message(client: mqtt.Client, userdata: Any, msg: mqtt.MQTTMessage) -> None:
        with lock:
            seen[int(json.loads(msg.payload)["seq"])] += 1

    sub = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="count-deliveries")
    sub.on_message = on_message
    sub.on_subscribe = lambda c, u, mid, reasons, props: subscribed.set()
    sub.connect("127.0.0.1", broker.port)
    sub.subscribe("toptable/table-1/events", qos=1)
    sub.loop_start()
    link = CutLink(broker.port)
    table = TestTable(tmp_path, link.url, game_data)
    publisher = table.publisher

    def after(seq: int) -> None:
        if seq == ACKED:
            wait_until(lambda: publisher.stats.acked == ACKED, 10, f"PUBACKs up to {ACKED}")
            link.hold()
        elif seq == CUT:
            wait_until(lambda: seen[CUT] == 1, 10, f"event {CUT} at the subscriber")
            assert publisher.stats.acked == ACKED  # ACKED+1..CUT are in flight
            link.cut()

    try:
        assert subscribed.wait(5), "no SUBACK from the broker"
        assert wait_for(lambda: publisher.connected, 5)
        table.play(seed=6, after=after)
        last = table.last_seq
        assert last > CUT, "the game was too short for the cut"
        assert publisher.flush(20), publisher.stats
        # the replay after the cut goes back REPLAY (32) rows before the mark: all of 1..CUT
        expected = {seq: 2 if seq <= CUT else 1 for seq in range(1, last + 1)}
        wait_for(lambda: sum(seen.values()) >= sum(expected.values()), 10)
        with lock:
            got = dict(seen)
        assert publisher.stats.connections == 2 and link.connections == 2
        assert got == expected, {s: n for s, n in got.items() if n != expected.get(s)}
    finally:
        table.close()
        link.close()
        sub.loop_stop()
        sub.disconnect()
