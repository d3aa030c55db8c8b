"""``toptable bench events``' targets and how its figures are printed, each beside its
target (the runs themselves: :mod:`controller.bench.scoreboard`)."""

from __future__ import annotations

import os
from typing import Any

API_P99_MS = 250.0
PAGE_P99_MS = 500.0
RSS_MB = 120.0
CPU_POINTS = 1.0
FLOOD_API_P99_MS = 50.0


def _ms(value: float) -> str:
    return "n/a" if value != value else f"{value:.0f} ms"


def _verdict(good: bool) -> str:
    return "ok" if good else "MISSED"


def print_load() -> None:
    """The load the figures were taken under (latency figures grow with it)."""
    one, five, _ = os.getloadavg()
    print(f"  [load average {one:.1f} (1 min), {five:.1f} (5 min) on {os.cpu_count()} cores]")


def print_latency(lat: dict[str, Any], pace: float) -> bool:
    """Print the latency run's figures (:func:`~controller.bench.scoreboard.bench_latency`);
    whether all meet their targets."""
    api, page = lat["api"], lat["page"]
    good_api = api["p99"] <= API_P99_MS and lat["delivered"]
    # not measured (no Chromium, or --no-page) is said, not failed; measured and empty fails
    good_page = bool(page["note"]) or (page["n"] > 0 and page["p99"] <= PAGE_P99_MS)
    good_rss = lat["rss_mb"] <= RSS_MB
    print(f"  {lat['tables']} tables at demo speed ({pace} s/event), the shipped broker config, one "
          f"scoreboard: {lat['events']} events in {lat['seconds']} s, "
          f"{'all delivered' if lat['delivered'] else 'NOT all delivered'}")  # fmt: skip
    print(f"  event -> scoreboard API (SSE): p50 {_ms(api['p50'])}, p99 {_ms(api['p99'])}, "
          f"max {_ms(api['max'])} over {api['n']} states "
          f"(target p99 <= {API_P99_MS:g} ms: {_verdict(good_api)})")  # fmt: skip
    print(f"  event -> page drawn in Chromium: p50 {_ms(page['p50'])}, p99 {_ms(page['p99'])}, "
          f"max {_ms(page['max'])} over {page['n']} cards "
          f"(target p99 <= {PAGE_P99_MS:g} ms: {_verdict(good_page)})"
          + (f" [{page['note']}]" if page["note"] else ""))  # fmt: skip
    print(f"  scoreboard peak memory (VmHWM): {lat['rss_mb']:.1f} MB "
          f"(target <= {RSS_MB:g} MB: {_verdict(good_rss)})", flush=True)  # fmt: skip
    return bool(good_api and good_page and good_rss)


def print_cpu(cpu: dict[str, Any]) -> bool:
    """Print the CPU figure; whether it meets its target."""
    good = cpu["added_points"] <= CPU_POINTS and cpu["delivered"]
    print(f"  table CPU over one game at demo speed ({cpu['events']} events, "
          f"{cpu['seconds']} s; median of {cpu['runs']}): {cpu['without_pct']} % without "
          f"publishing, {cpu['with_pct']} % with: {cpu['added_points']:+} points "
          f"(target <= {CPU_POINTS:g}: {_verdict(good)})", flush=True)  # fmt: skip
    return bool(good)


def print_flood(fl: dict[str, Any]) -> bool:
    """Print the flood's figures; whether they meet their targets."""
    good = fl["p99_ms"] <= FLOOD_API_P99_MS and fl["complete"]
    print(f"  {fl['messages']} hostile messages in {fl['seconds']} s while {fl['tables']} "
          f"tables play: /api/tables p99 {_ms(fl['p99_ms'])}, max {_ms(fl['max_ms'])} "
          f"over {fl['polls']} requests; the tables' {fl['events']} events "
          f"{'all arrived, in order' if fl['complete'] else 'did NOT all arrive'}; "
          f"the rogue's {fl['rogue_dropped']} dropped and {fl['rogue_flagged']} flagged, "
          f"{fl['shown']} tables on the page "
          f"(target p99 <= {FLOOD_API_P99_MS:g} ms: {_verdict(good)})", flush=True)  # fmt: skip
    return bool(good)


def print_outage(out: dict[str, Any]) -> bool:
    """Print the outage's figures; whether nothing was lost."""
    good = out["lost"] == 0 and out["final_state_seq"] == out["events"]
    print(f"  broker SIGKILLed for {out['outage_s']} s mid-game ({out['pace']} s/event; "
          f"events {out['killed_at_event']}..{out['back_at_event']} of {out['events']}): "
          f"{out['lost']} lost ({out['duplicates_dropped']} duplicates dropped, "
          f"{out['arrived_ahead_of_a_gap']} arrived ahead of a gap and were put back in "
          f"order) ({_verdict(good)})", flush=True)  # fmt: skip
    return bool(good)
