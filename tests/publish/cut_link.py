"""A TCP relay between a client and the broker, for cutting the client's link on purpose.

:meth:`CutLink.hold` stops passing the broker's bytes to the client (so its PUBACKs
never arrive and what it published stays in flight) while the client's bytes still
reach the broker; :meth:`CutLink.cut` then hangs up every connection relayed (the
client sees its link lost) and lets the next ones through whole.
"""

from __future__ import annotations

import contextlib
import select
import socket
import threading


class CutLink:
    """Relays connections on a loopback port to ``127.0.0.1:upstream_port``."""

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self._server = socket.create_server(("127.0.0.1", 0))
        self._server.settimeout(0.1)
        self.port = int(self._server.getsockname()[1])
        self._holding = threading.Event()
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._open: list[socket.socket] = []
        self.connections = 0
        self._thread = threading.Thread(target=self._accept, name="cut-link", daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        """mqtt://127.0.0.1:PORT"""
        return f"mqtt://127.0.0.1:{self.port}"

    def hold(self) -> None:
        """From now on the broker's bytes to the clients are dropped (until :meth:`cut`)."""
        self._holding.set()

    def cut(self) -> None:
        """Hang up every connection relayed now; later ones pass whole."""
        with self._lock:
            socks, self._open = self._open, []
            self._holding.clear()
        for sock in socks:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """Stop relaying and hang up (idempotent)."""
        self._stop.set()
        self.cut()
        self._thread.join(2)
        self._server.close()

    def _accept(self) -> None:
        while not self._stop.is_set():
            try:
                client, _ = self._server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=2)
            except OSError:
                client.close()
                continue
            with self._lock:
                self._open += [client, upstream]
                self.connections += 1
            threading.Thread(target=self._relay, args=(client, upstream), daemon=True).start()

    def _relay(self, client: socket.socket, upstream: socket.socket) -> None:
        try:
            while not self._stop.is_set():
                readable, _, _ = select.select([client, upstream], [], [], 0.1)
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    if sock is client:
                        upstream.sendall(data)
                    elif not self._holding.is_set():
                        client.sendall(data)
        except OSError:
            return
        finally:
            client.close()
            upstream.close()
