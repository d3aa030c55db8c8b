"""``toptable scoreboard --mqtt URL [--host H] [--port P]``: serve the evening's scoreboard."""

from __future__ import annotations

import argparse
import contextlib
import logging
import os
import signal
import sys
import threading
from contextlib import ExitStack
from pathlib import Path
from typing import Any

from controller.cli.events import add_broker_arguments, connection_from
from controller.cli.flags import PORT, Checked, FlagError, Host, Number, OutputDir
from controller.publish.settings import check_client_id
from controller.scoreboard.evening import Evening
from controller.scoreboard.model import EXPIRE_S, Scoreboard
from controller.scoreboard.server import DEFAULT_HOST, DEFAULT_PORT, ScoreboardServer
from controller.scoreboard.standings import Ranking
from controller.scoreboard.subscriber import Subscriber, default_client_id, end_old_session

log = logging.getLogger(__name__)

SWITCH_INTERVAL_S = 0.001


def default_state_dir() -> Path:
    """``$STATE_DIRECTORY`` (systemd's ``StateDirectory=``), else ``~/.local/state/toptable``."""
    state = os.environ.get("STATE_DIRECTORY", "").split(":")[0]
    if state:
        return Path(state)
    return Path(os.environ.get("XDG_STATE_HOME") or Path.home() / ".local" / "state") / "toptable"


def register(sub: Any) -> None:
    """Add ``scoreboard``."""
    p = sub.add_parser("scoreboard", help="serve the evening's live scoreboard of every table")
    add_broker_arguments(p, required=True, verb="listen to the tables on")
    p.add_argument(
        "--host",
        default=DEFAULT_HOST,
        type=Host(),
        help=f"address to serve on (default {DEFAULT_HOST}; 0.0.0.0 for the whole LAN)",
    )
    p.add_argument("--port", type=PORT, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    p.add_argument(
        "--client-id",
        type=Checked(check_client_id),
        help="MQTT client id (default: toptable-scoreboard-HOSTNAME)",
    )
    p.add_argument(
        "--state-dir",
        type=OutputDir(),
        help="where the evening is kept (evening.sqlite; default $STATE_DIRECTORY, "
        "else ~/.local/state/toptable)",
    )
    p.add_argument(
        "--new-evening",
        action="store_true",
        help="start a new evening: the last one's file is moved aside (never deleted); "
        "the games the broker still holds from before are shown, not counted",
    )
    p.add_argument(
        "--rank",
        choices=[r.value for r in Ranking],
        default=Ranking.GAME.value,
        help="game: a ranking per game (the dice game, each companion mode; default); "
        "kind: dice games and companion games apart; all: one ranking",
    )
    p.add_argument(
        "--expire-min",
        type=Number(0, 7 * 24 * 60, above=True),
        default=EXPIRE_S / 60,
        metavar="MIN",
        help=f"a table silent this long leaves the page (default {EXPIRE_S / 60:g})",
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
    """Serve until Ctrl-C or SIGTERM.

    Raises:
        EveningError: the evening's file cannot be used (exit 2, one line).
    """
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    # The MQTT thread checks message after message; under a flood it would keep the GIL
    # for the default 5 ms slices and each page request would wait out many of them. A
    # 1 ms slice keeps /api answers within tens of milliseconds (toptable bench events).
    sys.setswitchinterval(SWITCH_INTERVAL_S)
    conn = connection_from(args)
    with ExitStack() as stack:  # what was opened is closed, whatever fails after it
        evening = Evening.in_directory(args.state_dir or default_state_dir(), new=args.new_evening)
        stack.callback(evening.close)  # (a port in use left the evening locked and saving)
        board = Scoreboard(
            evening=evening.start(), ranking=Ranking(args.rank), expire_s=args.expire_min * 60
        )
        server = listen(board, args.host, args.port)
        stack.callback(server.close)
        client_id = args.client_id or default_client_id()
        if evening.new:
            end_old_session(conn, client_id)
        subscriber = Subscriber(conn, board, client_id).start()
        stack.callback(subscriber.close)
        done = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: done.set())
        print(f"toptable scoreboard: {server.url} (tables from {conn.broker.url}; "
              f"evening in {evening.path})", flush=True)  # fmt: skip
        with contextlib.suppress(KeyboardInterrupt):
            done.wait()
    return 0
