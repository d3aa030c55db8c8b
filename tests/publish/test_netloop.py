"""The publisher's own network loop does what paho's ``loop_forever`` does (paho-mqtt 2.2.0).

``Client._reconnect_wait`` (what ``loop_forever`` waits before each ``reconnect()``):
the first wait is the minimum delay, each next one doubles up to the maximum, and only
a CONNACK that accepts (``_handle_connack``: ``_reconnect_delay = None``) starts again
from the minimum. A broker that answers every CONNECT with a refusal is a connection
lost before that success, so the waits grow.

``Client._loop``: bytes a TLS socket has already decrypted (``pending()``) are read
without waiting for the socket to become readable again, since ``select`` cannot see
them: several MQTT packets in one TLS record must all arrive.
"""

from __future__ import annotations

import itertools
import socket
import ssl
import struct
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest
from paho.mqtt.enums import CallbackAPIVersion, MQTTErrorCode

from controller.publish.client import RECONNECT_MAX_S, RECONNECT_MIN_S
from controller.publish.link import Link
from controller.publish.netloop import NetLoop
from tests.publish.broker import make_certificates

pytestmark = pytest.mark.timeout(30)

CONNACK_NOT_AUTHORIZED = bytes([0x20, 0x02, 0x00, 0x05])  # MQTT 3.1.1 CONNACK, code 5


@pytest.fixture
def refusing_broker() -> Iterator[int]:
    """A loopback port whose "broker" refuses every CONNECT (code 5) and hangs up."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(2)
                try:
                    conn.recv(1024)  # the CONNECT
                    conn.sendall(CONNACK_NOT_AUTHORIZED)
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        server.close()


def test_refused_connections_are_retried_ever_more_slowly_as_paho_does(
    refusing_broker: int,
) -> None:
    now = [0.0]
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1", protocol=mqtt.MQTTv311)
    attempts: list[float] = []
    reconnect = client.reconnect

    def counted() -> MQTTErrorCode:
        attempts.append(now[0])
        return reconnect()

    client.reconnect = counted  # type: ignore[method-assign]
    link = Link("table t1", f"mqtt://127.0.0.1:{refusing_broker}")
    net = NetLoop(client, "127.0.0.1", refusing_broker, 60, link, clock=lambda: now[0])
    deadline = time.monotonic() + 20
    try:
        while now[0] < 16 and time.monotonic() < deadline:
            net.step(0.01)
            if client.socket() is None:  # refused and closed: the pause runs on the clock
                now[0] += 0.125
    finally:
        net.close(0.1)
    gaps = [b - a for a, b in itertools.pairwise(attempts)]
    # paho's waits: 1, 2, 4, 4 ... s after each loss
    waits = [RECONNECT_MIN_S, 2 * RECONNECT_MIN_S, RECONNECT_MAX_S, RECONNECT_MAX_S]
    assert len(gaps) >= len(waits), attempts
    for gap, wait in zip(gaps, waits, strict=False):
        assert wait <= gap <= wait + 0.25, attempts


def publish_packet(topic: str, payload: bytes) -> bytes:
    """An MQTT 3.1.1 PUBLISH at QoS 0."""
    body = struct.pack("!H", len(topic)) + topic.encode() + payload
    return bytes([0x30, len(body)]) + body


@pytest.fixture
def tls_broker(tmp_path: Path) -> Iterator[tuple[int, Path]]:
    """A TLS "broker" that accepts the CONNECT and sends its CONNACK and three
    messages in one write (one TLS record): (port, CA file)."""
    ca, cert, key = make_certificates(tmp_path)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(10)
    done = threading.Event()

    def serve() -> None:
        raw, _ = server.accept()
        with context.wrap_socket(raw, server_side=True) as conn:
            conn.settimeout(5)
            conn.recv(1024)  # the CONNECT
            burst = bytes([0x20, 0x02, 0x00, 0x00])  # CONNACK: accepted
            for n in range(3):
                burst += publish_packet("toptable/t1/online", b"message %d" % n)
            conn.sendall(burst)
            done.wait(10)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1]), ca
    finally:
        done.set()
        thread.join()
        server.close()


def test_packets_in_one_tls_record_are_all_read_as_paho_does(
    tls_broker: tuple[int, Path],
) -> None:
    port, ca = tls_broker
    client = mqtt.Client(CallbackAPIVersion.VERSION2, client_id="t1", protocol=mqtt.MQTTv311)
    client.tls_set(
        ca_certs=str(ca), cert_reqs=ssl.CERT_REQUIRED, tls_version=ssl.PROTOCOL_TLS_CLIENT
    )
    received: list[bytes] = []
    client.on_message = lambda _client, _userdata, msg: received.append(bytes(msg.payload))
    net = NetLoop(client, "127.0.0.1", port, 60, Link("table t1", f"mqtts://127.0.0.1:{port}"))
    try:
        for _ in range(40):  # 2 s at most
            net.step(0.05)
            if len(received) == 3:
                break
    finally:
        net.close(0.1)
    assert received == [b"message 0", b"message 1", b"message 2"]
