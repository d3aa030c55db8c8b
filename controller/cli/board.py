"""``toptable board sim|watch|stress|map``."""

from __future__ import annotations

import argparse
import glob
import json
import logging
import os
import queue
import stat
import sys
import time
import tomllib
from dataclasses import replace
from pathlib import Path
from typing import Any, TextIO

from controller.cli.flags import SEED, ExistingFile, FlagError, Number, OutputFile, Text, Whole
from controller.core.errors import DataError, TopTableError
from controller.core.events import Event
from controller.core.quoting import printable, short_repr
from controller.gamedata import DEMO_DIR
from controller.gamedata.board import MAX_SENSORS
from hardware.board.errors import BoardError, SimulatorError
from hardware.board.events import (
    BoardResynced,
    LinkLost,
    LinkRestored,
    SensorChanged,
    SensorFlickering,
)
from hardware.board.settings import EXAMPLE_SENSORS

DEFAULT_BOARD = DEMO_DIR / "board.toml"
SECONDS = Number(0, 86_400)
"""A time limit (0: none)."""
EVERY = Number(0, 3_600)
"""A fault's period in the stress test (0: never)."""
FRACTION = Number(0, 0.5, below=True)
"""A fraction of the bytes on the wire: at 0.5 and above, no frame gets through."""


def register(sub: Any) -> None:
    """Add the ``board`` subcommands."""
    board = sub.add_parser("board", help="the sensor board: simulator, watch, stress test, mapping")
    bsub = board.add_subparsers(dest="board_command", metavar="ACTION", required=True)

    p = bsub.add_parser(
        "sim", help="run the simulated board on a pseudo-terminal; commands on stdin"
    )
    p.add_argument(
        "--sensors",
        type=Whole(1, MAX_SENSORS),
        default=EXAMPLE_SENSORS,
        help=f"sensor count, 1..{MAX_SENSORS} (default {EXAMPLE_SENSORS})",
    )
    p.add_argument(
        "--link",
        metavar="PATH",
        type=OutputFile(link=True),
        help="also make a symlink PATH to the pseudo-terminal",
    )
    p.set_defaults(func=cmd_sim)

    p = bsub.add_parser("watch", help="follow a board and print each change")
    p.add_argument("--port", required=True, metavar="PATH", type=Text("a serial port"),
                   help="serial port, e.g. /dev/ttyACM0")  # fmt: skip
    p.add_argument("--json", action="store_true", help="one JSON object per line")
    p.add_argument("--count", type=Whole(0, 10**9), default=0,
                   help="stop after this many lines (0: never)")  # fmt: skip
    p.add_argument("--seconds", type=SECONDS, default=0.0,
                   help="stop after this long (0: never)")  # fmt: skip
    p.set_defaults(func=cmd_watch)

    p = bsub.add_parser("stress", help="firmware sim + host link through a fault-injecting relay")
    p.add_argument("--quick", action="store_true",
                   help="a short run: 1,000 events, unplug every 3 s, reset every 7 s")  # fmt: skip
    p.add_argument("--events", type=Whole(1, 10_000_000),
                   help="token events of the faulty run (default 10000)")  # fmt: skip
    p.add_argument("--corrupt", type=FRACTION, help="fraction of bytes corrupted (default 0.01)")
    p.add_argument("--drop", type=FRACTION, help="fraction of bytes dropped (default 0.005)")
    p.add_argument("--unplug-every", type=EVERY, metavar="S", help="0: never (default 10)")
    p.add_argument("--reset-every", type=EVERY, metavar="S", help="0: never (default 30)")
    p.add_argument("--rate", type=Number(0, 10_000, above=True),
                   help="token events per second (default 100)")  # fmt: skip
    p.add_argument("--latency-events", type=Whole(0, 1_000_000),
                   help="events of the clean run (default 1000)")  # fmt: skip
    p.add_argument("--seed", type=SEED, help="default 1")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_stress)

    p = bsub.add_parser("map", help="mapping wizard: place a token on each space as prompted")
    p.add_argument("--port", required=True, metavar="PATH", type=Text("a serial port"))
    p.add_argument("--board", type=ExistingFile(text=True), default=DEFAULT_BOARD,
                   help="layout file (board.toml)")  # fmt: skip
    p.add_argument("--out", type=OutputFile(), default=Path("sensors.toml"),
                   help="where to save the map")  # fmt: skip
    p.add_argument("--timeout", type=SECONDS, default=0.0,
                   help="give up after this long (0: never)")  # fmt: skip
    p.set_defaults(func=cmd_map)


# -- sim ----------------------------------------------------------------------------
SIM_HELP = "commands: place S | lift S | reset | unplug [SECONDS] | state | quit"
MAX_UNPLUG_S = 3600.0  # an hour unplugged at most (time.sleep overflows on inf)


def run_sim_commands(sim: Any, lines: TextIO, out: TextIO) -> None:
    """Apply ``place S``, ``lift S``, ``reset``, ``unplug [S]``, ``state``, ``quit`` lines."""
    for raw in lines:
        words = raw.split()
        if not words or words[0].startswith("#"):
            continue
        cmd, args = words[0].lower(), words[1:]
        try:
            if cmd in ("place", "lift") and len(args) == 1:
                sim.set(int(args[0]), cmd == "place")
                print(f"{cmd} {int(args[0])}", file=out, flush=True)
            elif cmd == "reset" and not args:
                # a Pico's reset drops its USB port too: the host opens it anew and leaves
                # the board its grace second (a ping on the open port read as a Ctrl-C)
                sim.unplug()
                sim.reset()
                sim.replug()
                print(f"reset: boot {sim.boot} (its USB port dropped and back)", file=out,
                      flush=True)  # fmt: skip
            elif cmd == "unplug" and len(args) <= 1:
                seconds = float(args[0]) if args else 1.0
                if not 0 <= seconds <= MAX_UNPLUG_S:  # (NaN too) checked before it is pulled
                    raise ValueError(f"seconds: expected 0..{MAX_UNPLUG_S:g}")
                sim.unplug()
                print(f"unplugged for {seconds:g} s", file=out, flush=True)
                time.sleep(seconds)
                sim.replug()
                print(f"plugged in again: {sim.path}", file=out, flush=True)
            elif cmd == "state" and not args:
                print(f"occupied: {sorted(sim.occupied())}", file=out, flush=True)
            elif cmd in ("quit", "exit"):
                return
            else:
                print(f"? {short_repr(raw.strip())}: {SIM_HELP}", file=out, flush=True)
        except (ValueError, SimulatorError) as exc:
            print(f"? {short_repr(raw.strip())}: {exc}", file=out, flush=True)


def cmd_sim(args: argparse.Namespace) -> int:
    """Run the simulator until ``quit`` or end of input."""
    from hardware.board.sim import SimBoard

    if args.link is not None:
        _free_for_link(args.link)
    try:
        sim = SimBoard.pico(args.sensors, args.link)
    except SimulatorError as exc:
        raise TopTableError(str(exc)) from None
    with sim:
        where = f"{sim.path} -> {sim._slave_name}" if args.link else sim.path
        print(f"simulated board ({args.sensors} sensors) on {where}", flush=True)
        print(SIM_HELP, flush=True)
        run_sim_commands(sim, sys.stdin, sys.stdout)
    return 0


def _free_for_link(link: Path) -> None:
    """Make ``link``'s folder; refuse a file there that is not a link (the simulator
    replaces its link as the board is plugged again and removes it on quit).

    Raises:
        TopTableError: something other than a link is at ``link``, or its folder cannot
            be made.
    """
    if link.exists() and not link.is_symlink():
        raise TopTableError(
            f"{link}: a file is there, and --link would replace it; name a new path"
        )
    try:
        link.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TopTableError(f"{link}: cannot make its folder: {exc.strerror or exc}") from None


# -- watch ----------------------------------------------------------------------------
def describe(ev: Event, occupied: frozenset[int]) -> dict[str, Any] | None:
    """The JSON object ``watch --json`` prints for an event (None: not printed)."""
    if isinstance(ev, SensorChanged):
        return {
            "seq": ev.seq,
            "occupied": sorted(occupied),
            "sensor": ev.sensor,
            "change": "place" if ev.occupied else "lift",
            "boot": ev.boot,
            "resync": ev.resync,
        }
    if isinstance(ev, LinkLost):
        return {"event": "link_lost", "reason": ev.reason}
    if isinstance(ev, LinkRestored):
        return {
            "event": "link_restored",
            "firmware": ev.firmware,
            "protocol": ev.protocol,
            "sensors": ev.sensors,
            "boot": ev.boot,
        }
    if isinstance(ev, BoardResynced):
        return {
            "event": "resynced",
            "seq": ev.seq,
            "boot": ev.boot,
            "occupied": sorted(ev.occupied),
            "changed": ev.changed,
            "reason": ev.reason,
        }
    if isinstance(ev, SensorFlickering):
        return {"event": "flickering", "sensor": ev.sensor, "changes": ev.changes}
    return None


def check_serial_port(port: str) -> None:
    """Refuse a ``--port`` that names no serial port: nothing there, or a file or folder
    (a board never answers there: the command would wait for it).

    Raises:
        FlagError: the port is missing, no character device, or one that is no terminal
            (``/dev/null``, a camera: the board would be waited for forever).
    """
    present = ", ".join(glob.glob("/dev/ttyACM*")) or "none"
    shown = printable(port)  # a /dev/serial/by-id/ name is 70 characters: kept whole
    try:
        mode = os.stat(port).st_mode
    except FileNotFoundError:
        raise FlagError(
            f"argument --port: {shown}: no such serial port; is the board plugged in? "
            f"serial ports present: {present}"
        ) from None
    except OSError as exc:  # a name too long, a folder not searchable, a loop of links...
        raise FlagError(
            f"argument --port: {shown}: cannot be looked at ({exc.strerror or exc}); "
            f"expected a serial port, e.g. /dev/ttyACM0; serial ports present: {present}"
        ) from None
    if not stat.S_ISCHR(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a file"
        raise FlagError(
            f"argument --port: {shown} is {kind}, not a serial port; "
            f"serial ports present: {present}"
        )
    if _opens_as_no_terminal(port):
        raise FlagError(
            f"argument --port: {shown} is a device but not a serial port (no terminal); "
            f"serial ports present: {present}"
        )


def _opens_as_no_terminal(port: str) -> bool:
    """Whether ``port`` opens, and is then no terminal (a serial port is one). A port that
    does not open (busy, not allowed) is left to the link, which says why."""
    try:
        fd = os.open(port, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return False
    try:
        return not os.isatty(fd)
    finally:
        os.close(fd)


def cmd_watch(args: argparse.Namespace) -> int:
    """Print board events and the link's health until interrupted (or --count / --seconds).

    Exit 1 when the board never answered; 0 otherwise.

    Raises:
        FlagError: --port names no serial port.
    """
    from hardware.board.health import HealthReport
    from hardware.board.link import BoardLink

    check_serial_port(args.port)
    _quiet_logs()
    q: queue.Queue[Event] = queue.Queue()
    occupied: set[int] = set()
    printed = 0
    end = time.monotonic() + args.seconds if args.seconds > 0 else None
    with BoardLink(args.port, q) as link:
        health = HealthReport(link.stats, WATCH_HEALTH_EVERY_S)
        answered = False
        while end is None or time.monotonic() < end:
            _say_health(health.due(time.monotonic()), link, args.json)
            try:
                ev = q.get(timeout=0.1)
            except queue.Empty:
                continue
            answered = answered or isinstance(ev, LinkRestored)
            if isinstance(ev, SensorChanged):
                (occupied.add if ev.occupied else occupied.discard)(ev.sensor)
            elif isinstance(ev, BoardResynced):
                occupied = set(ev.occupied)
            info = describe(ev, frozenset(occupied))
            if info is None:
                continue
            print(json.dumps(info) if args.json else _human(info), flush=True)
            printed += 1
            if args.count and printed >= args.count:
                break
        _say_health(health.now(time.monotonic()), link, args.json)
        if not answered:
            why = link.last_error or "no answer to the identify handshake"
            print(f"toptable board watch: the board never answered: {why}", file=sys.stderr)
            return 1
    return 0


WATCH_HEALTH_EVERY_S = 1.0


def _say_health(line: str | None, link: Any, as_json: bool) -> None:
    if line is None:
        return
    print(json.dumps({"event": "link_health", **link.stats.trouble()}) if as_json else line,
          flush=True)  # fmt: skip


def _human(info: dict[str, Any]) -> str:
    if "event" not in info:
        tag = " (resync)" if info["resync"] else ""
        return (
            f"#{info['seq']} {info['change']} {info['sensor']}{tag}; occupied: {info['occupied']}"
        )
    rest = ", ".join(f"{k}={printable(str(v), None)}" for k, v in info.items() if k != "event")
    return f"{info['event']}: {rest}"  # the board's text escaped (its firmware's name)


def _quiet_logs() -> None:
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")


# -- stress -------------------------------------------------------------------------------
def cmd_stress(args: argparse.Namespace) -> int:
    """Run the stress test; exit 1 if a correctness target is missed."""
    from hardware.board.stress import StressConfig, format_report, run_stress

    cfg = StressConfig.quick() if args.quick else StressConfig()
    given = {
        name: getattr(args, name)
        for name in ("events", "corrupt", "drop", "unplug_every", "reset_every", "rate",
                     "latency_events", "seed")
        if getattr(args, name) is not None
    }  # fmt: skip
    cfg = replace(cfg, **given)
    logging.getLogger("hardware.board").setLevel(logging.ERROR)
    report = run_stress(cfg)
    print(json.dumps(report.as_dict()) if args.json else format_report(cfg, report))
    return 0 if report.passed() else 1


# -- map --------------------------------------------------------------------------------------
def _check_map_out(out: Path, board: Path) -> None:
    """Refuse an ``--out`` the map would be written over that is no sensor map (the board's
    own layout, any other file of the owner's), before a token is asked for.

    Raises:
        FlagError: naming the file.
    """
    if not out.exists():
        return
    if out.resolve() == board.resolve():
        raise FlagError(f"argument --out: {printable(str(out))} is the board's layout "
                        "(--board); name the sensor map's own file")  # fmt: skip
    try:
        old = tomllib.loads(out.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        old = {}
    if set(old) != {"board", "sensors"}:
        raise FlagError(f"argument --out: {printable(str(out))} is there and is no sensor map; "
                        "name a new file (a map made before is replaced)")  # fmt: skip


def cmd_map(args: argparse.Namespace) -> int:
    """Prompt for each space, learn its sensor from the board, save the map."""
    from controller.board.sensor_map import (
        MappingWizard,
        load_sensor_map,
        partial_map_path,
        save_sensor_map,
        sensor_map_text,
    )
    from controller.gamedata.board import load_board
    from hardware.board.link import BoardLink

    _check_map_out(args.out, args.board)
    check_serial_port(args.port)
    _quiet_logs()
    layout = load_board(args.board)
    partial = partial_map_path(args.out)
    known = load_sensor_map(partial, layout) if partial.exists() else {}
    wizard = MappingWizard(layout, known=known)
    if known:
        print(f"continuing from {partial}: {len(known)} of {len(layout.spaces)} spaces mapped "
              "before (delete it to start over)", flush=True)  # fmt: skip
    q: queue.Queue[Event] = queue.Queue()
    try:
        with BoardLink(args.port, q):
            run_wizard(wizard, q, sys.stdout, args.timeout)
    except (KeyboardInterrupt, BoardError):
        # review 102: every space mapped before a Ctrl-C or the timeout was lost
        if len(wizard.mapping()) > len(known):
            save_sensor_map(partial, layout.name, wizard.mapping())
            print(f"kept the {len(wizard.mapping())} spaces mapped so far in {partial}: "
                  "`toptable board map` again continues from them", file=sys.stderr, flush=True)  # fmt: skip
        raise
    try:
        path = wizard.save(args.out)
    except DataError:
        # the map took a token on every space: shown, so that it is not lost with the file
        print(sensor_map_text(wizard.layout.name, wizard.mapping()), end="", flush=True)
        raise
    partial.unlink(missing_ok=True)
    print(f"saved {len(wizard.mapping())} sensors to {path}", flush=True)
    return 0


def run_wizard(wizard: Any, q: queue.Queue[Event], out: TextIO, timeout: float = 0.0) -> None:
    """Feed the board's live sensor changes to the wizard until every space is mapped.

    Raises:
        BoardError: ``timeout`` (seconds, 0 = none) passed first.
    """
    end = time.monotonic() + timeout if timeout > 0 else None
    print(wizard.prompt(), file=out, flush=True)
    while wizard.current is not None:
        if end is not None and time.monotonic() > end:
            raise BoardError(f"mapping stopped after {timeout:g} s at space {wizard.current}")
        try:
            ev = q.get(timeout=0.1)
        except queue.Empty:
            continue
        if isinstance(ev, SensorChanged) and not ev.resync:
            step = wizard.on_sensor(ev.sensor, ev.occupied)
            if step.message:
                print(step.message, file=out, flush=True)
            if step.done:
                print(wizard.prompt(), file=out, flush=True)
        elif isinstance(ev, LinkLost):
            print(f"board link lost ({ev.reason}); waiting for it", file=out, flush=True)
