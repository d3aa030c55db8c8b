"""``toptable board stress``: the firmware simulator and the host link through a fault-injecting relay.

Two runs. A clean one measures sensor-change-to-host-event latency over the
pseudo-terminal. A faulty one plays token events (each sensor held at least
``dwell`` seconds, as hands do) while the relay corrupts and drops bytes, the
cable is pulled every ``unplug_every`` seconds and the firmware reset every
``reset_every`` seconds; then every real change is matched against what the
host recorded (lost, phantom), the final boards are compared, and every frame
either side accepted is checked against the frames really sent.
"""

from __future__ import annotations

import queue
import random
import tempfile
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from controller.core.events import Event
from firmware import wire
from hardware.board.accounting import percentile, tally
from hardware.board.events import BoardResynced, SensorChanged
from hardware.board.link import BoardLink
from hardware.board.relay import FaultRelay
from hardware.board.settings import EXAMPLE_SENSORS
from hardware.board.sim import SimBoard


@dataclass
class StressConfig:
    """What to run; the defaults are the issue's targets."""

    events: int = 10_000
    corrupt: float = 0.01
    drop: float = 0.005
    unplug_every: float = 10.0
    unplug_for: float = 0.3
    reset_every: float = 30.0
    rate: float = 100.0  # token events per second
    dwell: float = 0.5
    sensors: int = EXAMPLE_SENSORS
    latency_events: int = 1000
    seed: int = 1

    @classmethod
    def quick(cls) -> StressConfig:
        """A short run for a smoke test: 1,000 events, unplug every 3 s, reset every 7 s."""
        return cls(events=1000, unplug_every=3.0, reset_every=7.0, latency_events=200)


@dataclass
class StressReport:
    """The figures ``board stress`` prints."""

    events: int = 0
    lost: int = 0
    phantom: int = 0
    final_board_equal: bool = False
    corrupted_frames_accepted: int = 0
    latency_p50_ms: float = 0.0
    latency_p99_ms: float = 0.0
    latency_max_ms: float = 0.0
    latency_events: int = 0
    resync_after_reconnect_max_s: float = 0.0
    resync_after_reconnect_p50_s: float = 0.0
    resync_after_reset_max_s: float = 0.0
    reconnects: int = 0
    resets: int = 0
    unplugs: int = 0
    from_resync: int = 0
    bytes_sent: int = 0
    bytes_corrupted: int = 0
    bytes_dropped: int = 0
    frames_rejected: int = 0
    duplicates: int = 0
    rtt_ms: float = 0.0
    duration_s: float = 0.0
    lost_examples: list[str] = field(default_factory=list)
    phantom_examples: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        """The report as plain data (for --json)."""
        return asdict(self)

    def passed(self) -> bool:
        """Whether the correctness targets hold (0 lost, 0 phantom, equal board, 0 bad frames)."""
        return (
            self.lost == 0
            and self.phantom == 0
            and self.final_board_equal
            and self.corrupted_frames_accepted == 0
        )


class _Drain(threading.Thread):
    """Collects the link's events with their arrival times."""

    def __init__(self, q: queue.Queue[Event]) -> None:
        super().__init__(name="stress-drain", daemon=True)
        self.q = q
        self.changes: list[SensorChanged] = []
        self.resynced: list[tuple[float, BoardResynced]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                ev = self.q.get(timeout=0.05)
            except queue.Empty:
                continue
            if isinstance(ev, SensorChanged):
                self.changes.append(ev)
            elif isinstance(ev, BoardResynced):
                self.resynced.append((time.monotonic(), ev))


def _wait(pred: Any, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if pred():
            return True
        time.sleep(0.01)
    return bool(pred())


def _play(
    sim: SimBoard, n: int, rate: float, dwell: float, rng: random.Random, hooks: Any = None
) -> None:
    """Make ``n`` token events at ``rate`` per second, each sensor held >= ``dwell`` s."""
    last = [-1e9] * sim.sensors
    period = 1.0 / rate
    next_at = time.monotonic()
    done = 0
    while done < n:
        now = time.monotonic()
        if hooks is not None:
            hooks(now)
        if now < next_at:
            time.sleep(min(next_at - now, 0.005))
            continue
        free = [s for s in range(sim.sensors) if now - last[s] >= dwell]
        if not free:
            time.sleep(0.005)
            continue
        s = rng.choice(free)
        sim.set(s, not sim.matrix[s])
        last[s] = time.monotonic()
        done += 1
        next_at += period


def measure_latency(cfg: StressConfig, workdir: Path) -> tuple[list[float], float]:
    """Clean line: seconds from each sensor change to its host event; and the last RTT in ms."""
    q: queue.Queue[Event] = queue.Queue()
    drain = _Drain(q)
    drain.start()
    rng = random.Random(cfg.seed)
    with SimBoard(cfg.sensors, workdir / "clean") as sim, BoardLink(sim.path, q) as link:
        if not _wait(lambda: drain.resynced, 5):
            raise TimeoutError("the clean link did not come up within 5 s")
        _play(sim, cfg.latency_events, 50.0, 0.1, rng)
        _wait(lambda: link.occupied() == sim.occupied(), 5)
        drain.stop.set()
        drain.join()
        t = tally(sim.truth, drain.changes)
        return t.latencies, link.stats.rtt_ms


def run_faulty(cfg: StressConfig, workdir: Path, report: StressReport) -> None:
    """The faulty run; fills ``report``."""
    q: queue.Queue[Event] = queue.Queue()
    drain = _Drain(q)
    drain.start()
    rng = random.Random(cfg.seed + 1)
    up = FaultRelay(cfg.corrupt, cfg.drop, cfg.seed + 2)
    down = FaultRelay(cfg.corrupt, cfg.drop, cfg.seed + 3)
    sim = SimBoard(
        cfg.sensors, workdir / "faulty", relay_up=up, relay_down=down, record_frames=True
    )
    bad_host = [0]

    def on_frame(frame: tuple[int, int, int, bytes]) -> None:
        version, seq, mtype, payload = frame
        if wire.encode_frame(seq, mtype, payload, version) not in sim.sent_frames:
            bad_host[0] += 1

    replugs: list[float] = []
    resets: list[tuple[float, int]] = []
    start = time.monotonic()
    state = {
        "next_unplug": start + cfg.unplug_every,
        "next_reset": start + cfg.reset_every + cfg.unplug_every / 2,
    }

    def hooks(now: float) -> None:
        if cfg.unplug_every > 0 and now >= state["next_unplug"]:
            sim.unplug()
            time.sleep(cfg.unplug_for)
            sim.replug()
            replugs.append(time.monotonic())
            state["next_unplug"] = now + cfg.unplug_every
        if cfg.reset_every > 0 and now >= state["next_reset"]:
            sim.reset()
            resets.append((time.monotonic(), sim.boot))
            state["next_reset"] = now + cfg.reset_every

    with sim, BoardLink(sim.path, q, on_frame=on_frame, on_send=sim.note_host_frame) as link:
        if not _wait(lambda: drain.resynced, 10):
            raise TimeoutError("the faulty link did not come up within 10 s")
        _play(sim, cfg.events, cfg.rate, cfg.dwell, rng, hooks)
        end = time.monotonic()
        up.enabled = down.enabled = False  # let the last events through quickly
        _wait(lambda: link.occupied() == sim.occupied() and not sim.firmware.pending, 10)
        report.final_board_equal = link.occupied() == sim.occupied()
        drain.stop.set()
        drain.join()
        t = tally(sim.truth, drain.changes, until=end)
        report.events = t.truth
        report.lost = t.lost
        report.phantom = t.phantom
        report.from_resync = t.from_resync
        report.lost_examples = [str(x) for x in t.lost_examples]
        report.phantom_examples = [str(x) for x in t.phantom_examples]
        report.corrupted_frames_accepted = bad_host[0] + sim.bad_host_frames
        report.reconnects = link.stats.reconnects
        report.unplugs = sim.unplugs
        report.resets = sim.resets
        report.bytes_sent = up.bytes_in + down.bytes_in
        report.bytes_corrupted = up.corrupted + down.corrupted
        report.bytes_dropped = up.dropped + down.dropped
        report.frames_rejected = link.stats.bad_frames
        report.duplicates = link.stats.duplicates
        report.duration_s = end - start

    def first_after(t0: float) -> float | None:
        for t, _ev in drain.resynced:
            if t >= t0:
                return t - t0
        return None

    def first_of_boot(t0: float, boot: int) -> float | None:
        for t, ev in drain.resynced:
            if t >= t0 and ev.boot == boot:
                return t - t0
        return None

    after_replug = [d for d in map(first_after, replugs) if d is not None]
    after_reset = [d for d in (first_of_boot(t, b) for t, b in resets) if d is not None]
    if after_replug:
        report.resync_after_reconnect_max_s = max(after_replug)
        report.resync_after_reconnect_p50_s = percentile(after_replug, 50)
    if after_reset:
        report.resync_after_reset_max_s = max(after_reset)


def run_stress(cfg: StressConfig) -> StressReport:
    """Both runs; the report."""
    report = StressReport()
    with tempfile.TemporaryDirectory(prefix="toptable-stress-") as tmp:
        work = Path(tmp)
        if cfg.latency_events > 0:
            lat, rtt = measure_latency(cfg, work)
            report.latency_events = len(lat)
            report.latency_p50_ms = percentile(lat, 50) * 1000
            report.latency_p99_ms = percentile(lat, 99) * 1000
            report.latency_max_ms = max(lat, default=0.0) * 1000
            report.rtt_ms = rtt
        if cfg.events > 0:
            run_faulty(cfg, work, report)
    return report


def format_report(cfg: StressConfig, r: StressReport) -> str:
    """The human-readable figures."""
    ok = "PASS" if r.passed() else "FAIL"
    lines = [
        f"faulty run: {r.events} token events in {r.duration_s:.0f} s, {cfg.corrupt:.1%} bytes corrupted, "
        f"{cfg.drop:.1%} dropped, unplug every {cfg.unplug_every:g} s ({r.unplugs}x), "
        f"reset every {cfg.reset_every:g} s ({r.resets}x)",
        f"  events lost:                 {r.lost}",
        f"  phantom events:              {r.phantom}",
        f"  final board equals truth:    {'yes' if r.final_board_equal else 'NO'}",
        f"  corrupted frames accepted:   {r.corrupted_frames_accepted}",
        f"  bytes sent / corrupted / dropped: {r.bytes_sent} / {r.bytes_corrupted} / {r.bytes_dropped} "
        f"(frames rejected by the host: {r.frames_rejected}, duplicate events: {r.duplicates})",
        f"  changes via snapshot resync: {r.from_resync}",
        f"  resync after reconnect:      max {r.resync_after_reconnect_max_s:.3f} s, "
        f"median {r.resync_after_reconnect_p50_s:.3f} s",
        f"  resync after reset:          max {r.resync_after_reset_max_s:.3f} s",
        f"clean run: {r.latency_events} events, change-to-host-event latency "
        f"p50 {r.latency_p50_ms:.1f} ms, p99 {r.latency_p99_ms:.1f} ms, max {r.latency_max_ms:.1f} ms; "
        f"ping RTT {r.rtt_ms:.1f} ms",
        f"correctness targets: {ok}",
    ]
    for ex in r.lost_examples:
        lines.append(f"  lost e.g. {ex}")
    for ex in r.phantom_examples:
        lines.append(f"  phantom e.g. {ex}")
    return "\n".join(lines)
