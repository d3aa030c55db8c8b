"""The scoreboard's HTTP side: JSON API, SSE stream, headers, binding."""

from __future__ import annotations

import http.client
import json
import logging
import socket
import struct
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from controller.game.simulate import play_game
from controller.game.state import GameConfig, GameState, Length
from controller.publish.messages import encode, online_message, state_message
from controller.scoreboard import server as server_module
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.server import DEFAULT_HOST, ScoreboardServer
from tests.waiting import wait_until


@pytest.fixture(scope="module")
def final(game_data: Any) -> GameState:
    config = GameConfig(("Ann", "<b>Bob</b>"), Length.ROUNDS5, game_id="g1")
    return play_game(config, game_data, 2, None).state


@pytest.fixture
def served() -> Iterator[tuple[Scoreboard, ScoreboardServer]]:
    board = Scoreboard()
    server = ScoreboardServer(board, "127.0.0.1", 0).start()
    yield board, server
    server.close()


def _connection(server: ScoreboardServer) -> http.client.HTTPConnection:
    host, port = server.server_address[:2]
    return http.client.HTTPConnection(str(host), int(port), timeout=5)


def _get(server: ScoreboardServer, path: str) -> tuple[int, dict[str, str], bytes]:
    c = _connection(server)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, {k.lower(): v for k, v in r.getheaders()}, body


def test_defaults_to_loopback() -> None:
    assert DEFAULT_HOST == "127.0.0.1"


def test_api(served: tuple[Scoreboard, ScoreboardServer], final: GameState) -> None:
    board, server = served
    board.handle("toptable/t2/state", encode(state_message(final, "t2", seq=5)))
    board.handle("toptable/t1/online", online_message("t1", True, "ab12"))  # no state: not shown
    status, headers, body = _get(server, "/api/tables")
    assert status == 200 and headers["content-type"] == "application/json"
    tables = json.loads(body)
    assert [t["table_id"] for t in tables] == ["t2"]
    assert tables[0]["winners"] == [final.players[w] for w in final.winners]
    status, _, body = _get(server, "/api/standings")
    (dice,) = json.loads(body)
    rows = dice["rows"]
    assert status == 200 and {r["player"] for r in rows} == {"Ann", "<b>Bob</b>"}
    assert {r["player_id"] for r in rows} == {"t2/Ann", "t2/<b>Bob</b>"}
    assert rows[0]["won"] == 1
    status, _, body = _get(server, "/api/status")
    assert status == 200 and json.loads(body)["link"]["state"] == "connecting"


def test_page_and_headers(served: tuple[Scoreboard, ScoreboardServer]) -> None:
    _, server = served
    status, headers, body = _get(server, "/")
    assert status == 200 and b"/static/app.js" in body
    assert "script-src 'self'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    for path in ("/static/app.js", "/static/style.css", "/static/favicon.svg"):
        assert _get(server, path)[0] == 200
    assert _get(server, "/static/../server.py")[0] == 404
    assert _get(server, "/nothing")[0] == 404
    js = _get(server, "/static/app.js")[2].decode()
    assert "innerHTML" not in js and "insertAdjacentHTML" not in js


def test_stream_sends_a_snapshot_then_updates(
    served: tuple[Scoreboard, ScoreboardServer], final: GameState
) -> None:
    board, server = served
    c = _connection(server)
    c.request("GET", "/api/stream")
    r = c.getresponse()
    assert r.status == 200 and r.getheader("content-type", "").startswith("text/event-stream")

    def read_event() -> tuple[str, dict[str, Any]]:
        name, data = "", ""
        while True:
            line = r.fp.readline().decode().rstrip("\n")
            if line.startswith("event: "):
                name = line[7:]
            elif line.startswith("data: "):
                data = line[6:]
            elif line == "" and name:
                return name, json.loads(data)

    name, data = read_event()
    assert name == "snapshot" and data["tables"] == []
    threading.Timer(
        0.1, lambda: board.handle("toptable/t1/state", encode(state_message(final, "t1", seq=3)))
    ).start()
    name, data = read_event()
    assert name == "update" and [t["table_id"] for t in data["tables"]] == ["t1"]
    assert data["standings"][0]["rows"][0]["player"] == final.players[final.winners[0]]
    assert data["ids"] == ["t1"] and data["link"]["state"] == "connecting"
    # a state that changes no figure of the standings: the update leaves them out
    threading.Timer(
        0.1, lambda: board.handle("toptable/t1/state", encode(state_message(final, "t1", seq=4)))
    ).start()
    name, data = read_event()
    assert name == "update" and data["tables"][0]["seq"] == 4 and "standings" not in data
    c.close()


def test_a_page_that_stops_reading_its_stream_frees_its_slot(
    served: tuple[Scoreboard, ScoreboardServer], final: GameState
) -> None:
    """A page that stops reading (a phone asleep, a frozen tab) would block its stream's
    writes for ever and hold one of the live pages' slots (64, then 503 for everyone):
    a write blocked ``stall_s`` ends the stream."""
    import socket
    import time

    board, server = served
    server.stall_s = 0.5
    host, port = server.server_address[:2]
    page = socket.socket()
    page.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    page.connect((str(host), int(port)))
    page.sendall(b"GET /api/stream HTTP/1.1\r\nHost: x\r\n\r\n")  # and never reads again
    wait_until(lambda: server.streams == 1, 5, "the page's stream to start")
    deadline = time.monotonic() + 30
    seq = 0
    while server.streams and time.monotonic() < deadline:
        seq += 1
        board.handle("toptable/t1/state", encode(state_message(final, "t1", seq=seq)))
        time.sleep(0.002)
    assert server.streams == 0, "the stalled page still holds its slot"
    page.close()


def _kept_alive(server: ScoreboardServer) -> socket.socket:
    """A client that asked for the page over a kept-alive connection and went silent."""
    c = _connection(server)
    c.request("GET", "/static/app.js")
    r = c.getresponse()
    assert r.status == 200 and r.read() and not r.will_close
    assert c.sock is not None
    return c.sock


def test_a_silent_kept_alive_connection_is_closed(
    served: tuple[Scoreboard, ScoreboardServer],
) -> None:
    """A phone that left the Wi-Fi sends no FIN: its kept-alive connection held a thread and
    a socket for the rest of the evening (review 109)."""
    _, server = served
    server.idle_s = 0.5
    client = _kept_alive(server)
    client.settimeout(10)
    assert client.recv(1) == b"", "the idle connection was not closed"
    client.close()


def test_a_client_that_resets_is_no_traceback(
    served: tuple[Scoreboard, ScoreboardServer],
    capfd: pytest.CaptureFixture[str],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """socketserver printed a 20-line traceback to stderr for each reset connection."""
    _, server = served
    with caplog.at_level(logging.DEBUG, logger="controller.scoreboard.server"):
        client = _kept_alive(server)
        client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        client.close()  # a reset, not a FIN
        wait_until(lambda: any("went away" in r.getMessage() for r in caplog.records), 10,
                   "the reset to be noticed")  # fmt: skip
    assert "Traceback" not in capfd.readouterr().err


def test_a_page_refused_a_stream_is_let_go(
    served: tuple[Scoreboard, ScoreboardServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The 503 of "too many live pages" closes its connection (it held a thread)."""
    monkeypatch.setattr(server_module, "MAX_STREAMS", 0)
    _, server = served
    c = _connection(server)
    c.request("GET", "/api/stream")
    r = c.getresponse()
    assert r.status == 503 and json.loads(r.read()) == {"error": "too many live pages"}
    assert c.sock is not None and c.sock.recv(1) == b""


def _stream_from(server: ScoreboardServer, source: str) -> http.client.HTTPResponse:
    """A live page's stream asked from the address ``source`` (its answer's head read)."""
    host, port = server.server_address[:2]
    c = http.client.HTTPConnection(str(host), int(port), timeout=5, source_address=(source, 0))
    c.request("GET", "/api/stream")
    return c.getresponse()


def test_one_address_cannot_take_every_live_page(
    served: tuple[Scoreboard, ScoreboardServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A guest's laptop opening every stream left the room's screen a 503 (review 112)."""
    monkeypatch.setattr(server_module, "STREAMS_PER_ADDRESS", 2)
    _, server = served
    guest = [_stream_from(server, "127.0.0.2") for _ in range(2)]
    assert [r.status for r in guest] == [200, 200]
    assert _stream_from(server, "127.0.0.2").status == 503
    assert _stream_from(server, "127.0.0.1").status == 200  # the room's screen


def test_one_address_cannot_hold_every_connection(
    served: tuple[Scoreboard, ScoreboardServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """1,019 slow connections from one laptop used up the server's files (review 112)."""
    monkeypatch.setattr(server_module, "CONNECTIONS_PER_ADDRESS", 3)
    _, server = served
    host, port = server.server_address[:2]
    slow = [socket.create_connection((str(host), int(port)), 5, ("127.0.0.2", 0)) for _ in range(4)]
    slow[-1].settimeout(5)
    assert slow[-1].recv(1) == b""  # the fourth is closed at once
    assert _get(server, "/api/tables")[0] == 200  # from another address
    for s in slow:
        s.close()


def test_head_of_the_stream_is_its_headers_alone(
    served: tuple[Scoreboard, ScoreboardServer],
) -> None:
    _, server = served
    c = _connection(server)
    c.request("HEAD", "/api/stream")
    r = c.getresponse()
    assert r.status == 200 and r.read() == b"" and server.streams == 0
    assert c.sock is not None and c.sock.recv(1) == b""


def test_head_of_the_page_is_its_headers_alone_and_the_connection_goes_on(
    served: tuple[Scoreboard, ScoreboardServer],
) -> None:
    """RFC 9110 9.3.2: no content answers a HEAD; the page's bytes sent after its headers
    would be read as the answer to the next request on the kept-alive connection."""
    _, server = served
    answer = _raw(server, b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n"
                  b"GET /api/status HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")  # fmt: skip
    head, rest = answer.split(b"\r\n\r\n", 1)
    page = server.files["/"][0]
    assert head.startswith(b"HTTP/1.1 200 ") and f"Content-Length: {len(page)}".encode() in head
    assert rest.startswith(b"HTTP/1.1 200 "), rest[:80]
    assert "link" in json.loads(rest.split(b"\r\n\r\n", 1)[1])


def test_an_error_answer_carries_the_security_headers(
    served: tuple[Scoreboard, ScoreboardServer],
) -> None:
    """send_error's answers (400, 414, 431, 501...) carried no CSP (review 112)."""
    _, server = served
    c = _connection(server)
    c.request("BREW", "/")
    r = c.getresponse()
    headers = {k.lower(): v for k, v in r.getheaders()}
    assert r.status == 501 and headers["content-security-policy"] == server_module.CSP
    assert headers["x-content-type-options"] == "nosniff"


def _raw(server: ScoreboardServer, request: bytes) -> bytes:
    host, port = server.server_address[:2]
    with socket.create_connection((str(host), int(port)), 5) as client:
        client.sendall(request)
        answer = b""
        while chunk := client.recv(4096):
            answer += chunk
    return answer


@pytest.mark.parametrize(
    "request_bytes",
    [
        b"GET /api/tables\r\n\r\n",
        b"GARBLED\r\n\r\n",
        b"GET / HTTP/1.1 extra\r\n\r\n",
        b"GET /api/tables HTTP/0.9\r\nHost: x\r\n\r\n",
        b"GET /api/tables HTTP/0.9\r\n\r\n",
    ],
    ids=["version-less", "one-word", "four-words", "http-0.9", "http-0.9-no-host"],
)
def test_a_garbled_request_line_gets_a_status_line(
    served: tuple[Scoreboard, ScoreboardServer], request_bytes: bytes
) -> None:
    """http.server answered these as HTTP/0.9: a body with no status line or headers."""
    _, server = served
    answer = _raw(server, request_bytes)
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
    assert b"Content-Security-Policy: " in answer


def test_an_http11_request_without_host_is_refused(
    served: tuple[Scoreboard, ScoreboardServer],
) -> None:
    """RFC 9112 3.2: a server MUST answer 400 to an HTTP/1.1 request lacking Host."""
    _, server = served
    assert _raw(server, b"GET /api/tables HTTP/1.1\r\n\r\n").startswith(b"HTTP/1.1 400 ")
    for version in (b"HTTP/1.1", b"HTTP/1.0"):  # nor two (RFC 9112 3.2)
        twice = b"GET /api/tables " + version + b"\r\nHost: a\r\nHost: b\r\n\r\n"
        assert _raw(server, twice).startswith(b"HTTP/1.1 400 ")
    for version in (b"HTTP/1.0", b"HTTP/1.00"):  # leading zeros ignored (RFC 2145 3.1)
        answer = _raw(server, b"GET /api/tables " + version + b"\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 200 ") and answer.endswith(b"[]")
