"""The scoreboard's web server: one page, a JSON API and a Server-Sent Events stream.

Built on the standard library's :class:`http.server.ThreadingHTTPServer`: the
scoreboard serves a handful of phones and one big screen on a club's LAN, and
needs three JSON routes, static files and one push stream; SSE is plain HTTP
that every phone browser's ``EventSource`` reconnects by itself. So no web
framework, no ASGI server, no front-end build: nothing to install on a Pi beyond
paho-mqtt, and nothing more to keep patched.

Routes::

    GET /                 the page (static/index.html, app.js, style.css);
                          /?view=room is the room display (a TV or a projector)
    GET /api/tables       every shown table's latest state (each with table_id and winners)
    GET /api/standings    the evening's rankings (see controller.scoreboard.standings)
    GET /api/status       the scoreboard's own link to the broker
    GET /api/stream       SSE: "snapshot" first, then "update" with the changed tables,
                          the ids of every shown table, the link, and the rankings
                          when a game changed since the last update

Binds to 127.0.0.1 unless told otherwise. Every response carries a strict
Content-Security-Policy (scripts and styles from this server only, no inline
code); the page writes untrusted text with ``textContent`` only.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any

from controller.scoreboard.model import Scoreboard

log = logging.getLogger(__name__)

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080
MAX_STREAMS = 64
STREAMS_PER_ADDRESS = 8
"""Live pages one address may hold: a guest's laptop opening 64 took every slot, and the
room's screen, refused, never asked again (an EventSource gives up after a non-200)."""
MAX_CONNECTIONS = 256
CONNECTIONS_PER_ADDRESS = 32
"""Connections held at once, in all and from one address (beyond: closed at once). Each
holds a thread and a file: 1,019 slow connections from one laptop used up the process's
1,024 files, and every new page timed out."""
KEEPALIVE_S = 15.0
STALL_S = 2 * KEEPALIVE_S
"""A live page whose write blocks this long stopped reading (a phone asleep, a frozen tab):
its stream ends and frees its slot. ``BaseHTTPRequestHandler.timeout`` is None (Python
3.11 ``socketserver.StreamRequestHandler``): without a timeout the write blocks for ever."""
IDLE_S = 60.0
"""A connection kept alive this long with no request is closed (nginx's keepalive_timeout
is 75 s): a phone that left the Wi-Fi or a screen switched off at the wall sends no FIN,
and each such connection held a thread and a socket for the rest of the evening."""
STATIC = {
    "/": ("index.html", "text/html; charset=utf-8"),
    "/static/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/static/style.css": ("style.css", "text/css; charset=utf-8"),
    "/static/favicon.svg": ("favicon.svg", "image/svg+xml"),
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


def _static(name: str) -> bytes:
    return resources.files("controller.scoreboard").joinpath("static", name).read_bytes()


class ScoreboardServer(ThreadingHTTPServer):
    """The HTTP server holding the :class:`Scoreboard` it shows."""

    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, board: Scoreboard, host: str = DEFAULT_HOST, port: int = DEFAULT_PORT):
        self.board = board
        self.stopping = threading.Event()
        self.streams = 0
        self.streams_lock = threading.Lock()
        self.stall_s = STALL_S
        self.idle_s = IDLE_S
        self.held: dict[str, int] = {}  # address -> connections held (under streams_lock)
        self.held_streams: dict[str, int] = {}  # address -> live pages
        self._counted: dict[Any, str] = {}  # connection -> its address, while counted
        self._refused_said: dict[str, float] = {}  # address -> when a refusal was logged
        self.files = {path: (_static(name), ctype) for path, (name, ctype) in STATIC.items()}
        self._thread: threading.Thread | None = None
        super().__init__((host, port), _Handler)

    @property
    def url(self) -> str:
        """http://HOST:PORT/ of the page."""
        host, port = self.server_address[:2]
        host = host.decode() if isinstance(host, bytes) else host
        return f"http://{host}:{port}/"

    def start(self) -> ScoreboardServer:
        """Serve in a background thread."""
        self._thread = threading.Thread(target=self.serve_forever, name="scoreboard-http")
        self._thread.daemon = True
        self._thread.start()
        return self

    def close(self) -> None:
        """Stop serving: streams end within a second (idempotent)."""
        if self.stopping.is_set():
            return
        self.stopping.set()
        if self._thread is not None:
            self.shutdown()
            self._thread.join(5)
        self.server_close()

    def process_request(self, request: Any, client_address: Any) -> None:
        """Serve the connection in a thread of its own, unless it is one too many (in all,
        or from its address): then it is closed at once, and said once a minute."""
        address = str(client_address[0])
        with self.streams_lock:
            mine = self.held.get(address, 0)
            refused = mine >= CONNECTIONS_PER_ADDRESS or len(self._counted) >= MAX_CONNECTIONS
            if not refused:
                self.held[address] = mine + 1
                self._counted[request] = address
        if refused:
            self._say_refused(address)
            super().shutdown_request(request)
            return
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.streams_lock:
            address = self._counted.pop(request, None)
            if address is not None:
                self.held[address] -= 1
                if not self.held[address]:
                    del self.held[address]
        super().shutdown_request(request)

    def _say_refused(self, address: str) -> None:
        now = time.monotonic()
        if now - self._refused_said.get(address, -60.0) >= 60.0:
            self._refused_said[address] = now
            log.warning("the page server refuses connections from %s: it holds %d already "
                        "(at most %d an address, %d in all)", address, self.held.get(address, 0),
                        CONNECTIONS_PER_ADDRESS, MAX_CONNECTIONS)  # fmt: skip

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away (a reset, a broken pipe) is no error: one debug line.
        ``socketserver.BaseServer.handle_error`` printed a traceback to stderr for each."""
        error = sys.exc_info()[1]
        if isinstance(error, (ConnectionError, TimeoutError)):
            log.debug("%s went away: %s", client_address[0], error)
            return
        log.exception("the scoreboard's web server failed answering %s", client_address[0])


class _Handler(BaseHTTPRequestHandler):
    server: ScoreboardServer
    protocol_version = "HTTP/1.1"
    # TCP_NODELAY (socketserver.StreamRequestHandler's switch): a response's headers and
    # body, and each Server-Sent Event, are small writes; with Nagle's algorithm each
    # waited for the browser's delayed ACK of the one before (about 40 ms).
    disable_nagle_algorithm = True
    server_version = "toptable-scoreboard"
    sys_version = ""
    # http.server answers a request of its default version without a status line or
    # headers (Python 3.11 ``send_response_only``): a garbled request line got a bare body
    default_request_version = "HTTP/1.0"

    def parse_request(self) -> bool:
        """The request line and headers read; False (a 400 sent) for a request of no version
        (HTTP/0.9), an HTTP/1.1 request without ``Host`` or any with two (RFC 9112 3.2: a
        server MUST)."""
        if not super().parse_request():
            return False
        version = (0, 9)  # a request line of two words names none
        if len(self.requestline.split()) == 3:  # checked by http.server: HTTP/<digits>.<digits>
            major, minor = self.request_version.removeprefix("HTTP/").split(".")
            version = (int(major), int(minor))
        if version < (1, 0):
            self.request_version = "HTTP/1.0"  # answered with a status line and headers
            self.send_error(HTTPStatus.BAD_REQUEST, "HTTP/1.0 or later required")
            return False
        hosts = len(self.headers.get_all("Host") or ())
        if hosts > 1 or (version >= (1, 1) and not hosts):
            self.send_error(HTTPStatus.BAD_REQUEST, "one Host header required")
            return False
        return True

    def setup(self) -> None:
        super().setup()
        # a read or write that waits longer raises TimeoutError: handle_one_request closes
        self.connection.settimeout(self.server.idle_s)

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _headers(self, status: int, ctype: str, length: int | None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.end_headers()

    def end_headers(self) -> None:
        # on every answer, send_error's too (a 400, 414, 431, 501...)
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def _send(self, status: int, body: bytes, ctype: str) -> None:
        self._headers(status, ctype, len(body))
        if self.command != "HEAD":
            self.wfile.write(body)

    def _json(self, data: Any, status: int = HTTPStatus.OK) -> None:
        self._send(status, _utf8(json.dumps(data, ensure_ascii=False)), "application/json")

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        board = self.server.board
        if path in self.server.files:
            body, ctype = self.server.files[path]
            self._send(HTTPStatus.OK, body, ctype)
        elif path == "/api/tables":
            self._json(board.tables())
        elif path == "/api/standings":
            self._json(board.standings())
        elif path == "/api/status":
            self._json({"link": board.link()})
        elif path == "/api/stream":
            self._stream()
        elif path == "/favicon.ico":
            self._send(HTTPStatus.NO_CONTENT, b"", "text/plain")
        else:
            self._json({"error": "not found"}, HTTPStatus.NOT_FOUND)

    def _stream(self) -> None:
        srv = self.server
        self.close_connection = True
        if self.command == "HEAD":  # its headers, no stream (RFC 9110 9.3.2)
            self._headers(HTTPStatus.OK, "text/event-stream; charset=utf-8", None)
            return
        address = str(self.client_address[0])
        with srv.streams_lock:
            mine = srv.held_streams.get(address, 0)
            full = srv.streams >= MAX_STREAMS or mine >= STREAMS_PER_ADDRESS
            if not full:
                srv.streams += 1
                srv.held_streams[address] = mine + 1
        if full:
            self._json({"error": "too many live pages"}, HTTPStatus.SERVICE_UNAVAILABLE)
            return
        try:
            self.connection.settimeout(srv.stall_s)  # TimeoutError below frees the slot
            self._headers(HTTPStatus.OK, "text/event-stream; charset=utf-8", None)
            board = srv.board
            version, _ = board.wait_changes(-1, 0)
            ranked, rankings = board.standings_now()
            snapshot = {"tables": board.tables(), "standings": rankings, "link": board.link()}
            self._event("snapshot", snapshot)
            quiet_since = time.monotonic()
            while not srv.stopping.is_set():
                new, changed = board.wait_changes(version, 1.0)
                if new != version:
                    version = new
                    tables = [t for t in (board.table(tid) for tid in changed) if t is not None]
                    update = {"tables": tables, "ids": board.table_ids(), "link": board.link()}
                    now, rankings = board.standings_now()
                    if now != ranked:  # the standings only when they changed
                        ranked, update["standings"] = now, rankings
                    self._event("update", update)
                    quiet_since = time.monotonic()
                elif time.monotonic() - quiet_since >= KEEPALIVE_S:
                    self.wfile.write(b": keepalive\n\n")
                    self.wfile.flush()
                    quiet_since = time.monotonic()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            pass  # the page went away
        finally:
            with srv.streams_lock:
                srv.streams -= 1
                srv.held_streams[address] -= 1
                if not srv.held_streams[address]:
                    del srv.held_streams[address]

    def _event(self, name: str, data: Any) -> None:
        text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
        self.wfile.write(_utf8(f"event: {name}\ndata: {text}\n\n"))
        self.wfile.flush()


def _utf8(text: str) -> bytes:
    """``text`` as UTF-8 for the page; what cannot be encoded (a lone surrogate the checks
    let through would be a bug) is replaced, so one value never fails every answer."""
    return text.encode("utf-8", errors="replace")
