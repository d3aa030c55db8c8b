"""``toptable bench screens``: render time per screen, and the bytes a simulated fight sends.

1. Every screen of the example state is rendered many times (128x64); the
   median per screen is printed (target: 5 ms or less).
2. A 60 s fight is simulated (time is simulated, nothing sleeps) on three
   SSD1306 128x64 displays driven by the real luma.oled driver over luma's
   real ``i2c`` interface on a counting bus: the turn screen (with a running
   mm:ss clock), the combat screen and the options screen, updated at 4 Hz,
   with a new throw every 3 s. It prints the bytes sent per second and the
   share of a 400 kHz I2C bus they use, against pushing every frame whole.
"""

from __future__ import annotations

import argparse
import dataclasses
import random
import statistics
import time
import warnings
from typing import Any

from controller.core.symbols import ATTACK_SYMBOLS, Symbol
from hardware.displays.device_config import DisplayConfig
from hardware.displays.i2c_bus import BusPool
from hardware.displays.luma_open import TableDisplay, open_display
from hardware.displays.model import AttackOption, TableView
from hardware.displays.push import ScreenPusher
from hardware.displays.screens import render, screen_names
from hardware.displays.view_json import EXAMPLE_STATE, load_view

I2C_HZ = 400_000
BITS_PER_BYTE = 9  # 8 data bits + ACK
RENDER_TARGET_MS = 5.0
FULL_FRAME_BYTES = 6 + 1024  # window command + 128x64 / 8


class CountingBus:
    """An smbus2-like bus that counts I2C transactions and the bytes on the wire."""

    def __init__(self) -> None:
        self.transactions = 0
        self.wire_bytes = 0

    def write_i2c_block_data(self, address: int, register: int, data: list[int]) -> None:
        """Count one write: address byte, control byte, payload."""
        self.transactions += 1
        self.wire_bytes += 2 + len(data)

    def write_byte(self, address: int, value: int) -> None:
        """Count one single-byte write (a mux channel select)."""
        self.transactions += 1
        self.wire_bytes += 2

    def close(self) -> None:
        """Nothing to release."""


def bench_render(view: TableView, repeats: int) -> dict[str, float]:
    """Median milliseconds to render each screen of ``view`` at 128x64."""
    out: dict[str, float] = {}
    for name in screen_names(view):
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            render(view, name)
            times.append((time.perf_counter() - t0) * 1000)
        out[name] = statistics.median(times)
    return out


def fight(view: TableView, seconds: int, hz: int, seed: int = 7) -> list[TableView]:
    """The views of a simulated fight: a clock ticking down, a throw every 3 s."""
    if view.combat is None:
        raise ValueError("the fight simulation needs a view with a combat")
    rng = random.Random(seed)
    combat = view.combat
    views = []
    for tick in range(seconds * hz):
        now = tick / hz
        if tick and tick % (3 * hz) == 0:
            dice = tuple(rng.choice(list(Symbol)) for _ in combat.dice)
            total = sum(rng.randint(2, 5) for d in dice if d in ATTACK_SYMBOLS)
            roll = combat.roll_no % combat.rolls_max + 1
            hit = 0 if roll > 1 else rng.randint(3, 12)
            defender = dataclasses.replace(
                combat.defender,
                endurance_left=max(0, combat.defender.endurance_left - hit),
            )
            combat = dataclasses.replace(
                combat,
                dice=dice,
                roll_no=roll,
                defender=defender,
                options=(AttackOption("Symbol sum", total, best=True), *combat.options[1:]),
            )
        clock = dataclasses.replace(view.clock, seconds_left=1754 - int(now))
        views.append(dataclasses.replace(view, clock=clock, combat=combat, prompt=None, faults=()))
    return views


def simulate(views: list[TableView], seconds: int, windowed: bool) -> dict[str, Any]:
    """Push ``views`` to three SSD1306s (0x3C, behind a TCA9548A on channels 0-2) on one
    counting bus; return the byte figures. ``windowed=False`` sends changed frames whole."""
    bus = CountingBus()
    pool = BusPool(lambda number: bus)
    displays: list[TableDisplay] = []
    for i, screen in enumerate(("turn", "combat", "options")):
        d = open_display(DisplayConfig(f"d{i}", mux_channel=i, screen=screen), pool)
        d.pusher = ScreenPusher(d.device, windowed=windowed)
        displays.append(d)
    start_payload = sum(d.bytes_sent for d in displays)
    start_wire, start_tx = bus.wire_bytes, bus.transactions
    for view in views:
        for d in displays:
            d.update(view)
    payload = sum(d.bytes_sent for d in displays) - start_payload
    wire = bus.wire_bytes - start_wire
    tx = bus.transactions - start_tx
    wire_s = (wire * BITS_PER_BYTE + tx * 2) / I2C_HZ  # + start/stop per transaction
    return {
        "payload_per_s": payload / seconds,
        "wire_per_s": wire / seconds,
        "bus_share": wire_s / seconds,
        "per_display": {d.config.screen: (d.bytes_sent, d.pusher.frames_pushed) for d in displays},
    }


def main(argv: list[str]) -> int:
    """Print the figures; return 0 (1 if the median render time misses the target)."""
    parser = argparse.ArgumentParser(prog="toptable bench screens")
    parser.add_argument("--quick", action="store_true", help="fewer repeats, 10 s fight")
    args = parser.parse_args(argv)
    with warnings.catch_warnings():
        # luma.oled's drivers call Image.getdata(), which Pillow 13 deprecates: not our figures.
        warnings.filterwarnings("ignore", category=DeprecationWarning, module="luma")
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    view = load_view(EXAMPLE_STATE)
    repeats = 20 if args.quick else 200
    medians = bench_render(view, repeats)
    for name, ms in medians.items():
        print(f"render {name:<8} 128x64: median {ms:.2f} ms")
    overall = statistics.median(medians.values())
    verdict = "ok" if max(medians.values()) <= RENDER_TARGET_MS else "OVER TARGET"
    print(
        f"render one screen: median {overall:.2f} ms, slowest {max(medians.values()):.2f} ms "
        f"(target <= {RENDER_TARGET_MS:.0f} ms: {verdict}; {repeats} runs each)"
    )
    seconds, hz = (10, 4) if args.quick else (60, 4)
    views = fight(view, seconds, hz)
    frame_ms = (FULL_FRAME_BYTES + 2 * 33) * BITS_PER_BYTE / I2C_HZ * 1000
    print(
        f"one full 128x64 frame on I2C at {I2C_HZ // 1000} kHz: {FULL_FRAME_BYTES} payload bytes, "
        f"~{frame_ms:.0f} ms on the wire"
    )
    for label, windowed in (("changed windows only", True), ("changed frames whole", False)):
        r = simulate(views, seconds, windowed)
        per = ", ".join(
            f"{s} {b / seconds:.0f} B/s in {n} pushes" for s, (b, n) in r["per_display"].items()
        )
        print(
            f"{seconds} s simulated fight, 3 displays, {hz} Hz updates, {label}: "
            f"{r['payload_per_s']:.0f} B/s payload, {r['wire_per_s']:.0f} B/s on the wire "
            f"({100 * r['bus_share']:.1f}% of the bus) [{per}]"
        )
    every = 3 * hz * FULL_FRAME_BYTES
    full_share = 3 * hz * frame_ms / 1000
    print(
        f"without change detection (every tick, whole frames): {every} B/s payload, "
        f"{100 * full_share:.0f}% of the bus: 4 Hz on 3 displays is feasible even so "
        f"(whole-frame ceiling ~{1000 / (3 * frame_ms):.0f} Hz)"
    )
    return 0 if verdict == "ok" else 1
