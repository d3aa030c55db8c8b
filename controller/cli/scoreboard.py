"""``toptable scoreboard --mqtt URL [--host H] [--port P]``: serve the evening's scoreboard."""

from __future__ import annotations

import argparse
import logging
import signal
import threading
from typing import Any

from controller.cli.events import add_broker_arguments, connection_from
from controller.cli.flags import PORT, FlagError, Host, Text
from controller.scoreboard.model import Scoreboard
from controller.scoreboard.server import DEFAULT_HOST, DEFAULT_PORT, ScoreboardServer
from controller.scoreboard.subscriber import Subscriber

log = logging.getLogger(__name__)


def register(sub: Any) -> None:
    """Add ``scoreboard``."""
    p = sub.add_parser("scoreboard", help="serve the evening's live scoreboard of every table")
    add_broker_arguments(p, required=True)
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        type=Host(),
        help=f"address to serve on (default {DEFAULT_HOST}; 0.0.0.0 for the whole LAN)",
    )
    p.add_argument("--port", type=PORT, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    p.add_argument(
        "--client-id", type=Text(), help="MQTT client id (default: toptable-scoreboard-HOSTNAME)"
    )
    p.set_defaults(func=cmd_scoreboard)


def listen(board: Scoreboard, host: str, port: int) -> ScoreboardServer:
    """The scoreboard's web server, serving.

    Raises:
        FlagError: the address cannot be served (a port in use, an address not this machine's).
    """
    try:
        return ScoreboardServer(board, host, port).start()
    except OSError as exc:
        raise FlagError(
            f"cannot serve on {host}:{port}: {exc.strerror or exc} "
            "(another program there? pick another --port or --host)"
        ) from None


def cmd_scoreboard(args: argparse.Namespace) -> int:
    """Serve until Ctrl-C or SIGTERM."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    conn = connection_from(args)
    board = Scoreboard()
    server = listen(board, args.host, args.port)
    subscriber = Subscriber(conn, board, args.client_id).start()
    done = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: done.set())
    print(f"toptable scoreboard: {server.url} (tables from {conn.broker.url})", flush=True)
    try:
        done.wait()
    except KeyboardInterrupt:
        pass
    finally:
        server.close()
        subscriber.close()
    return 0
