"""The hostile messages of ``toptable bench events``' flood: malformed and forged
messages from a rogue table, sent while other tables play."""

from __future__ import annotations

import json
import random
import threading
from collections.abc import Callable, Iterator

import paho.mqtt.client as mqtt

from controller.publish.client import make_client
from controller.publish.settings import Connection

# ---------------------------------------------------------------- hostile messages
ROGUE = "rogue"


def _state(table: str, seq: int, **extra: object) -> dict[str, object]:
    return {"schema": 1, "table_id": table, "game_id": "g-rogue", "seq": seq, "round": 1,
            "teams": [{"seat": 0, "player": "Mallory", "warriors_left": 3, "endurance_left": 9,
                       "warriors": []}], **extra}  # fmt: skip


def messages(count: int, seed: int = 27) -> Iterator[tuple[str, bytes]]:
    """``count`` hostile (topic, payload) pairs, in a repeatable order."""
    rng = random.Random(seed)
    state, events, online = (f"toptable/{ROGUE}/{k}" for k in ("state", "events", "online"))
    junk = json.dumps({"schema": 1, "junk": [rng.random() for _ in range(3000)]}).encode()
    kinds: list[Callable[[int], tuple[str, bytes]]] = [
        lambda i: (state, bytes(rng.getrandbits(8) for _ in range(200))),
        lambda i: (state, b"{not json " + str(i).encode()),
        lambda i: (state, json.dumps({"schema": 99, "table_id": ROGUE}).encode()),
        lambda i: (state, b'{"schema":1,"table_id":"rogue","seq":NaN,"sent_at":Infinity}'),
        lambda i: (events, b'{"schema":1,"table_id":"rogue","game_id":"g","seq":'
                   + b"9" * 5000 + b',"kind":"k"}'),
        lambda i: (state, b"[" * 5000 + b"]" * 5000),
        lambda i: (state, junk[:60_000]),
        lambda i: (state, json.dumps(_state("table-1", 5)).encode()),  # another table's id
        lambda i: (events, json.dumps({"schema": 1, "table_id": ROGUE, "game_id": "g-rogue",
                                       "seq": rng.randrange(10**6), "kind": "k"}).encode()),
        lambda i: (state, json.dumps(_state(ROGUE, rng.randrange(10**6), over=True,
                                            winners=["Mallory"])).encode()),
        lambda i: (f"toptable/junk-{i}/online", json.dumps(
            {"schema": 1, "table_id": f"junk-{i}", "status": "online", "instance": "ab12"}).encode()),
        lambda i: (f"toptable/junk-{i}/events", json.dumps(
            {"schema": 1, "table_id": f"junk-{i}", "game_id": "g", "seq": 1, "kind": "k"}).encode()),
        lambda i: (f"toptable/a/b/{i}", b"{}"),
        lambda i: (online, b"maybe"),
    ]  # fmt: skip
    for i in range(count):
        yield kinds[i % len(kinds)](i)


class Flood:
    """Sends :func:`messages` as fast as the connection takes them, from a thread."""

    def __init__(self, conn: Connection, count: int) -> None:
        self.count = count
        self.sent = 0
        self.done = threading.Event()
        self._client = make_client(conn, "toptable-bench-flood")
        self._thread = threading.Thread(target=self._run, name="flood", daemon=True)
        self._conn = conn

    def start(self) -> Flood:
        """Connect and flood in the background."""
        b = self._conn.broker
        self._client.connect(b.host, b.port)
        self._client.loop_start()
        self._thread.start()
        return self

    def _run(self) -> None:
        try:
            for topic, payload in messages(self.count):
                info = self._client.publish(topic, payload, qos=0)
                if info.rc == mqtt.MQTT_ERR_SUCCESS:
                    self.sent += 1
                if self.sent % 200 == 0:
                    while self._client.want_write():  # let the socket take them
                        threading.Event().wait(0.002)
        finally:
            self.done.set()

    def close(self) -> None:
        """Disconnect."""
        self.done.wait(120)
        self._client.disconnect()
        self._client.loop_stop()
