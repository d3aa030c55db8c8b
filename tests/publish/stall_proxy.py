"""A TCP proxy before a broker that stalls once a client has published N events.

A broker stopped by SIGSTOP when a watcher sees the n-th event is a race: a table that
publishes the rest of its game in one burst has it all acknowledged before the signal
lands. This proxy cuts at the packet instead: it passes the client's packets to the
broker until it has passed ``events`` PUBLISH packets on an ``/events`` topic, then
passes nothing more from the client (as a frozen broker reads nothing), while the
broker's answers still come back. So exactly ``events`` events are acknowledged.

MQTT 3.1.1 framing (§2.2): a fixed header byte (packet type in the high nibble, 3 for
PUBLISH), the remaining length as a base-128 varint, then for PUBLISH the topic as a
two-byte length and its bytes (§3.3.2.1).
"""

from __future__ import annotations

import contextlib
import socket
import threading

PUBLISH = 3


def _packet_end(buf: bytes | bytearray) -> tuple[int, int] | None:
    """(header length, packet length) of the first whole packet in ``buf``, or None."""
    length, multiplier = 0, 1
    for i in range(1, min(len(buf), 5)):
        length += (buf[i] & 0x7F) * multiplier
        if buf[i] & 0x80 == 0:
            header = i + 1
            return (header, header + length) if len(buf) >= header + length else None
        multiplier *= 128
    return None


class StallProxy:
    """Listens on 127.0.0.1 and relays to ``broker_port``; see the module docstring."""

    def __init__(self, broker_port: int, events: int) -> None:
        self.broker_port = broker_port
        self.events = events
        self.passed = 0  # events passed to the broker
        self._server = socket.create_server(("127.0.0.1", 0))
        self.port = self._server.getsockname()[1]
        self._sockets: list[socket.socket] = [self._server]
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._server.accept()
            except OSError:
                return
            broker = socket.create_connection(("127.0.0.1", self.broker_port))
            self._sockets += [client, broker]
            threading.Thread(target=self._upstream, args=(client, broker), daemon=True).start()
            threading.Thread(target=self._relay, args=(broker, client), daemon=True).start()

    def _upstream(self, client: socket.socket, broker: socket.socket) -> None:
        buf = bytearray()
        while chunk := self._recv(client):
            buf += chunk
            while (framed := _packet_end(buf)) is not None:
                header, end = framed
                packet, buf = bytes(buf[:end]), buf[end:]
                if self.passed >= self.events:
                    continue  # stalled: the broker reads nothing more
                if packet[0] >> 4 == PUBLISH:
                    size = int.from_bytes(packet[header : header + 2], "big")
                    topic = packet[header + 2 : header + 2 + size]
                    if topic.endswith(b"/events"):
                        self.passed += 1
                broker.sendall(packet)
        self._close(broker)

    def _relay(self, source: socket.socket, sink: socket.socket) -> None:
        while chunk := self._recv(source):
            try:
                sink.sendall(chunk)
            except OSError:
                return
        self._close(sink)

    @staticmethod
    def _recv(sock: socket.socket) -> bytes:
        try:
            return sock.recv(65536)
        except OSError:
            return b""

    @staticmethod
    def _close(sock: socket.socket) -> None:
        with contextlib.suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        for sock in self._sockets:
            sock.close()
