"""Command-line pieces of publishing: ``--mqtt``/``--table-id`` for the demo, and the
multi-table simulation (``toptable simulate --tables N --mqtt URL``), shared by
:mod:`controller.cli.daemon`, :mod:`controller.cli.game` and :mod:`controller.cli.scoreboard`.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from controller.cli.flag_needs import only_with
from controller.cli.flags import (
    PLAYERS,
    SEED,
    Checked,
    ExistingDir,
    ExistingFile,
    FlagError,
    Number,
    OutputDir,
    Parsed,
    Whole,
)
from controller.core.quoting import short_repr
from controller.game.state import Length
from controller.publish.people import Person, PlayerNameError, parse_people
from controller.publish.settings import (
    PLAIN_WITH_CA,
    Connection,
    EventsSettings,
    check_table_id,
    check_user_name,
    parse_broker_url,
    plain_with_ca,
)
from controller.publish.tables import DEMO_PACE_S, TablesOptions, simulate_tables


def add_broker_arguments(
    p: argparse.ArgumentParser, *, required: bool, verb: str = "publish to"
) -> argparse.Action:
    """``--mqtt URL`` (its help: ``verb`` this broker) and the optional ``--username``,
    ``--password-file``, ``--ca-file`` (which do nothing without ``--mqtt``, and a password
    nothing without a user name: the config refuses that pair too); return ``--mqtt``."""
    mqtt = p.add_argument(
        "--mqtt",
        required=required,
        metavar="URL",
        type=Checked(parse_broker_url),
        help=f"{verb} this broker: mqtt://HOST:PORT or mqtts://HOST:PORT",
    )
    user = p.add_argument("--username", type=Checked(check_user_name), help="broker user name")
    password = p.add_argument(
        "--password-file",
        type=ExistingFile(text=True),
        help="a file holding the broker password (first line; with --username)",
    )
    ca = p.add_argument(
        "--ca-file", type=ExistingFile(text=True), help="CA certificate for TLS, PEM (implies TLS)"
    )
    only_with(p, password, user)
    if not required:
        for option in (user, password, ca):
            only_with(p, option, mqtt)
    return mqtt


def connection_from(args: argparse.Namespace) -> Connection:
    """The broker connection named by :func:`add_broker_arguments`' options.

    Raises:
        BrokerUrlError: a bad --mqtt URL.
        FlagError: --ca-file with a plain (mqtt://) broker.
    """
    broker = parse_broker_url(args.mqtt)
    ca_file = getattr(args, "ca_file", None)
    if plain_with_ca(broker, ca_file):
        raise FlagError(f"--ca-file {PLAIN_WITH_CA}")
    return Connection(
        broker, getattr(args, "username", None), getattr(args, "password_file", None), ca_file
    )


# ---------------------------------------------------------------- toptable demo --mqtt
def people_argument(text: str) -> tuple[Person, ...]:
    """``--names "Ann Lee=ann,Bob"``: the players in seat order, NAME or NAME=PERSON_ID.

    Raises:
        PlayerNameError: a bad entry, a name or person id twice, or not 2..6 players.
    """
    people = parse_people(text.split(","))
    if not 2 <= len(people) <= 6:
        raise PlayerNameError(f"{len(people)} players in {short_repr(text)}: expected 2..6")
    return people


def add_demo_arguments(p: argparse.ArgumentParser) -> None:
    """``toptable demo ... --names NAMES --mqtt mqtt://HOST:PORT --table-id ID``."""
    p.add_argument(
        "--names",
        type=Parsed(people_argument),
        metavar="NAME[=ID],...",
        help="the players, in seat order (their number replaces --players); a person id "
        "makes one person of the same player at several tables on the scoreboard",
    )
    mqtt = add_broker_arguments(p, required=False)
    table_id = p.add_argument(
        "--table-id",
        default="demo",
        type=Checked(check_table_id),
        help="this table's id on the broker (default demo)",
    )
    only_with(p, table_id, mqtt)


def demo_names(args: argparse.Namespace) -> tuple[str, ...]:
    """The players' names ``--names`` gives, in seat order (empty without it)."""
    return tuple(p.name for p in args.names or ())


def demo_settings(args: argparse.Namespace) -> EventsSettings | None:
    """The demo's publishing settings (with ``--names``' person ids), or None without ``--mqtt``.

    Raises:
        BrokerUrlError, TableIdError: a bad --mqtt URL or --table-id.
    """
    if not args.mqtt:
        return None
    return EventsSettings(connection_from(args), check_table_id(args.table_id), args.names or ())


# ---------------------------------------------------------------- toptable simulate --tables
def add_tables_arguments(p: argparse.ArgumentParser, *, standalone: bool) -> argparse.Action:
    """``--tables N --mqtt URL [--pace S] [--journals DIR]`` (``standalone``: with the game
    options ``simulate`` already has: --players, --length, --seed, --data); return
    ``--tables`` (without it, in ``simulate``, the others do nothing: refused)."""
    tables = p.add_argument(
        "--tables", type=Whole(1, 64), metavar="N", help="play N tables at once over MQTT"
    )
    mqtt = add_broker_arguments(p, required=standalone)
    pace = p.add_argument(
        "--pace",
        type=Number(0, 60),
        default=DEMO_PACE_S,
        metavar="S",
        help=f"seconds between a table's events (default {DEMO_PACE_S}: demo speed; 0: flat out)",
    )
    journals = p.add_argument(
        "--journals", type=OutputDir(), help="where the tables' journals go (default: temp)"
    )
    prefix = p.add_argument(
        "--prefix",
        default="table",
        type=Checked(check_table_id),
        help="table ids are PREFIX-1..PREFIX-N",
    )
    if not standalone:
        for option in (mqtt, pace, journals, prefix):
            only_with(p, option, tables)
    if standalone:
        p.add_argument("--players", type=PLAYERS, default=2, metavar="N")
        p.add_argument("--length", choices=[x.value for x in Length], default=Length.ROUNDS5.value)
        p.add_argument("--seed", type=SEED, default=0, help="table i plays seed+i")
        p.add_argument("--data", type=ExistingDir(), help="data directory (default: the demo set)")
        p.add_argument("--json", action="store_true", help="print JSON")
    return tables


def cmd_tables(args: argparse.Namespace) -> int:
    """Play the tables; print one line per table (or JSON); 1 if a table was not delivered."""
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if not args.mqtt:
        raise FlagError("--tables needs --mqtt URL (the broker the tables publish to)")
    conn = connection_from(args)
    options = TablesOptions(
        tables=args.tables or 1,
        players=args.players,
        length=Length(args.length),
        seed=args.seed,
        pace_s=max(0.0, args.pace),
        directory=args.journals,
        data_dir=Path(args.data) if args.data else None,
        prefix=check_table_id(args.prefix),
    )
    runs = simulate_tables(conn, options)
    if getattr(args, "json", False):
        print(json.dumps([
            {"table_id": r.table_id, "game_id": r.game_id, "events": r.events,
             "seconds": round(r.seconds, 2), "winners": list(r.winners), "delivered": r.delivered,
             "journal": str(r.journal)}
            for r in runs
        ]))  # fmt: skip
    else:
        for r in runs:
            print(f"{r.table_id}: {r.events} events in {r.seconds:.1f} s, "
                  f"winner {' & '.join(r.winners) or 'none'}, "
                  f"{'delivered' if r.delivered else 'NOT all delivered'} to {conn.broker.url}")  # fmt: skip
    return 0 if all(r.delivered for r in runs) else 1
