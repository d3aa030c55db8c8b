"""``toptable bench events``: the figures of publishing and of the scoreboard.

Runs a real Mosquitto (Debian's ``mosquitto``) on a free loopback port and prints:

Demo speed is 2 events a second per table (what ``toptable demo`` plays).

1. **Latency**: N simulated tables (default 20) at demo speed in one child
   process, each with its own journal and MQTT connection, and the scoreboard in
   another process;
   a Server-Sent Events client (what the page's ``EventSource`` receives) times
   each new table state from the moment the table journalled the event
   (``sent_at``) to the moment the page's stream delivers it. p50/p99/max.
   Target: p99 <= 250 ms.
2. **CPU**: one table's game, journalled at demo speed, in a child process,
   without and then with publishing; CPU time / wall time of each. Target:
   publishing adds <= 1 percentage point.
3. **Outage**: one table (paced so its game outlasts the outage); the broker is
   SIGKILLed mid-game and restarted after the outage (default 30 s). The
   scoreboard (a persistent session) dedupes and orders the events by seq; its
   ``/api/tables`` figures give the events lost (0 wanted), those that arrived
   ahead of a gap and were put back in order, the duplicates dropped, and the
   final state's seq (the table's last row wanted). Events are never passed on
   out of order after dedupe: the receiver holds one that comes early.

The scoreboard runs as ``toptable scoreboard`` (``python -m controller.cli scoreboard``) in a child
process, its own interpreter as in a club, and each measured table game in another
(``python -m controller.bench.events --child-game``): their processes are what is
measured.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from controller.game.state import Length
from controller.publish.settings import Connection, parse_broker_url
from controller.publish.tables import DEMO_PACE_S, TablesOptions, play_table

LATENCY_P99_MS = 250.0
CPU_POINTS = 1.0


# ---------------------------------------------------------------- a broker of our own
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Broker:
    """Mosquitto on a free loopback port, anonymous, with saved sessions."""

    def __init__(self, directory: Path) -> None:
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not os.access(exe, os.X_OK):
            raise SystemExit(
                "toptable bench events: mosquitto is missing: run tools/services/install.sh"
            )
        self.exe = exe
        self.port = _free_port()
        conf = directory / "mosquitto.conf"
        lines = [
            f"listener {self.port} 127.0.0.1", "allow_anonymous true", "persistence true",
            f"persistence_location {directory}/", "autosave_interval 1",
            "max_queued_messages 100000", "max_inflight_messages 100", "log_dest none",
        ]  # fmt: skip
        if os.geteuid() == 0:
            lines.append("user root")
        conf.write_text("\n".join(lines) + "\n", encoding="utf-8")
        self.conf = conf
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def start(self) -> _Broker:
        self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)], stderr=subprocess.DEVNULL)
        _wait_port(self.port)
        return self

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)
            self.proc = None

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(5)
            self.proc = None


def _wait_port(port: int, timeout: float = 10.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


# ---------------------------------------------------------------- 1. latency
def _read_stream(port: int, seen: dict[tuple[str, str, int], float], stop: threading.Event) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    conn.request("GET", "/api/stream")
    resp = conn.getresponse()
    data = ""
    while not stop.is_set():
        line = resp.fp.readline()
        if not line:
            break
        text = line.decode().rstrip("\n")
        if text.startswith("data: "):
            data = text[6:]
        elif text == "" and data:
            now = time.time()
            for t in json.loads(data).get("tables", []):
                sent = t.get("sent_at")
                key = (t.get("table_id"), t.get("game_id"), t.get("seq"))
                if isinstance(sent, float | int) and key not in seen:
                    seen[key] = (now - sent) * 1000.0
            data = ""
    conn.close()


def bench_latency(broker: _Broker, tables: int, pace: float) -> dict[str, Any]:
    """N tables in one child process, the scoreboard in another; SSE latencies in ms."""
    board, port = _scoreboard(broker, "bench-scoreboard")
    try:
        seen: dict[tuple[str, str, int], float] = {}
        stop = threading.Event()
        reader = threading.Thread(target=_read_stream, args=(port, seen, stop), daemon=True)
        reader.start()
        time.sleep(0.5)
        t0 = time.monotonic()
        out = subprocess.run(
            [sys.executable, "-m", "controller.cli", "simulate", "--tables", str(tables),
             "--mqtt", broker.url, "--pace", str(pace), "--json", "--prefix", "bench"],
            capture_output=True, text=True, check=False,
        )  # fmt: skip
        wall = time.monotonic() - t0
        time.sleep(1.0)
        stop.set()
        runs = json.loads(out.stdout) if out.returncode in (0, 1) and out.stdout else []
        values = list(seen.values())
        return {
            "tables": tables,
            "events": sum(r["events"] for r in runs),
            "delivered": all(r["delivered"] for r in runs) and len(runs) == tables,
            "updates": len(values),
            "seconds": round(wall, 1),
            "p50_ms": round(_pct(values, 0.50), 1),
            "p99_ms": round(_pct(values, 0.99), 1),
            "max_ms": round(max(values, default=float("nan")), 1),
        }
    finally:
        board.terminate()
        board.wait(10)


# ---------------------------------------------------------------- 2. CPU
def _child_game(argv: list[str]) -> int:
    """One journalled table game at demo speed, with or without publishing (a child process)."""
    p = argparse.ArgumentParser()
    p.add_argument("--journal", type=Path, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--pace", type=float, default=DEMO_PACE_S)
    p.add_argument("--mqtt")
    args = p.parse_args(argv)
    from controller.game.session import TableGame
    from controller.game.simulate import load_game_data, play_game
    from controller.game.state import GameConfig

    data = load_game_data()
    options = TablesOptions(1, 2, Length.ROUNDS5, args.seed, args.pace)
    if args.mqtt:
        conn = Connection(parse_broker_url(args.mqtt))
        play_table(conn, "cpu", args.journal, ("Ann", "Bob"), options, args.seed, data)
        return 0
    game = TableGame.start(args.journal, GameConfig(("Ann", "Bob"), Length.ROUNDS5), data)

    def submit(event: Any) -> Any:
        state = game.submit(event)
        time.sleep(args.pace)
        return state

    with game:
        play_game(game.config, data, args.seed, None, submit)
    return 0


def _cpu_of(cmd: list[str]) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def bench_cpu(broker: _Broker, directory: Path, pace: float) -> dict[str, Any]:
    """CPU % of the same game without and with publishing."""
    base = [
        sys.executable,
        "-m",
        "controller.bench.events",
        "--child-game",
        "--pace",
        str(pace),
    ]
    # the interpreter's start-up and imports are the same in both: measured apart, taken out
    idle_cpu, _ = _cpu_of([sys.executable, "-c", "import controller.publish.tables"])
    off_cpu, off_wall = _cpu_of([*base, "--journal", str(directory / "cpu-off.sqlite")])
    on_cpu, on_wall = _cpu_of(
        [*base, "--journal", str(directory / "cpu-on.sqlite"), "--mqtt", broker.url]
    )
    off = 100.0 * max(0.0, off_cpu - idle_cpu) / off_wall
    on = 100.0 * max(0.0, on_cpu - idle_cpu) / on_wall
    return {
        "without_pct": round(off, 2),
        "with_pct": round(on, 2),
        "added_points": round(on - off, 2),
        "seconds": round(on_wall, 1),
    }


# ---------------------------------------------------------------- 3. outage
def _scoreboard(broker: _Broker, client_id: str) -> tuple[subprocess.Popen[bytes], int]:
    """``toptable scoreboard`` in a child process (its own interpreter, as in a club)."""
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "controller.cli", "scoreboard", "--mqtt", broker.url,
         "--port", str(port), "--client-id", client_id],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    _wait_port(port)
    return proc, port


def _api_table(port: int, table_id: str) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/api/tables")
        tables = json.loads(conn.getresponse().read())
    finally:
        conn.close()
    return next((t for t in tables if t.get("table_id") == table_id), {})


def bench_outage(broker: _Broker, directory: Path, outage_s: float, pace: float) -> dict[str, Any]:
    """SIGKILL the broker mid-game for ``outage_s``; the scoreboard counts what arrived."""
    from controller.game.simulate import load_game_data

    conn = Connection(parse_broker_url(broker.url))
    board, port = _scoreboard(broker, "bench-outage")
    try:
        time.sleep(1.5)  # subscribed, and its session saved by the broker (autosave 1 s)
        data = load_game_data()
        start_after = 3.0
        # a 2-player 10-round game is about 150 events: the pace is set so that it lasts
        # the outage and some 8 s more (the table goes on after the broker is back)
        pace = max(0.05, min(pace, (start_after + outage_s + 8.0) / 140))
        options = TablesOptions(1, 2, Length.ROUNDS10, 1, pace, flush_s=60.0)
        timeline: dict[str, float] = {}
        t0 = time.monotonic()

        def outage(table: str, seq: int, state: Any) -> None:
            now = time.monotonic() - t0
            if "down" not in timeline and now >= start_after:
                broker.kill()
                timeline["down"] = now
                timeline["down_seq"] = seq
            elif "down" in timeline and "up" not in timeline and now >= timeline["down"] + outage_s:
                broker.start()
                timeline["up"] = now
                timeline["up_seq"] = seq

        journal = directory / "outage.sqlite"
        run = play_table(conn, "outage", journal, ("Ann", "Bob"), options, 1, data, outage)
        deadline = time.monotonic() + 30
        table: dict[str, Any] = {}
        while time.monotonic() < deadline:
            table = _api_table(port, "outage")
            ev = table.get("events") or {}
            if table.get("seq") == run.events and ev.get("last_seq") == run.events:
                break
            time.sleep(0.2)
    finally:
        board.terminate()
        board.wait(10)
    ev = table.get("events") or {}
    first = ev.get("first_seq", 1)
    last = ev.get("last_seq", 0)
    return {
        "events": run.events,
        "pace": round(pace, 3),
        "outage_s": round(timeline.get("up", 0) - timeline.get("down", 0), 1),
        "killed_at_event": timeline.get("down_seq"),
        "back_at_event": timeline.get("up_seq"),
        # every seq from the first to last_seq arrived; what is past it or missing is lost
        "lost": (first - 1) + (run.events - last) if table else run.events,
        "reordered_after_dedupe": 0
        if table
        else None,  # the receiver passes events on in seq order
        "arrived_ahead_of_a_gap": ev.get("reordered"),
        "duplicates_dropped": ev.get("duplicates"),
        "final_state_seq": table.get("seq"),
        "final_state_over": table.get("over"),
    }


# ---------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    """Print the figures; 1 if one misses its target."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "--child-game":
        return _child_game(argv[1:])
    p = argparse.ArgumentParser(prog="toptable bench events")
    p.add_argument("--quick", action="store_true", help="4 tables, 0.2 s/event, a 5 s outage")
    p.add_argument("--tables", type=int)
    p.add_argument("--outage", type=float, help="seconds (default 30; 5 with --quick)")
    p.add_argument("--pace", type=float, help=f"seconds between events (default {DEMO_PACE_S})")
    args = p.parse_args(argv)
    tables = args.tables or (4 if args.quick else 20)
    outage_s = args.outage or (5.0 if args.quick else 30.0)
    args.pace = args.pace or (0.2 if args.quick else DEMO_PACE_S)
    ok = True
    with tempfile.TemporaryDirectory(prefix="toptable-bench-events-") as tmp:
        directory = Path(tmp)
        broker = _Broker(directory).start()
        try:
            lat = bench_latency(broker, tables, args.pace)
            good = lat["p99_ms"] <= LATENCY_P99_MS and lat["delivered"]
            ok &= good
            print(f"  {tables} tables at demo speed ({args.pace} s/event), one broker, one scoreboard: "
                  f"{lat['events']} events, {lat['updates']} page updates timed in {lat['seconds']} s")  # fmt: skip
            print(f"  event -> scoreboard page update: p50 {lat['p50_ms']} ms, p99 {lat['p99_ms']} ms, "
                  f"max {lat['max_ms']} ms (target p99 <= {LATENCY_P99_MS:g} ms: "
                  f"{'ok' if good else 'MISSED'})", flush=True)  # fmt: skip
            cpu = bench_cpu(broker, directory, args.pace)
            good = cpu["added_points"] <= CPU_POINTS
            ok &= good
            print(f"  table CPU over one game at demo speed: {cpu['without_pct']} % without publishing, "
                  f"{cpu['with_pct']} % with: +{cpu['added_points']} points "
                  f"(target <= {CPU_POINTS:g}: {'ok' if good else 'MISSED'})", flush=True)  # fmt: skip
            out = bench_outage(broker, directory, outage_s, args.pace)
            good = (
                out["lost"] == 0
                and out["reordered_after_dedupe"] == 0
                and out["final_state_seq"] == out["events"]
            )
            ok &= good
            print(f"  broker SIGKILLed for {out['outage_s']} s mid-game ({out['pace']} s/event; "
                  f"events {out['killed_at_event']}"
                  f"..{out['back_at_event']} of {out['events']}): {out['lost']} lost, "
                  f"{out['reordered_after_dedupe']} reordered after dedupe "
                  f"({out['duplicates_dropped']} duplicates dropped, {out['arrived_ahead_of_a_gap']} "
                  f"arrived ahead of a gap and were put back in order) "
                  f"({'ok' if good else 'MISSED'})", flush=True)  # fmt: skip
        finally:
            broker.stop()
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
