"""The firmware's core under real MicroPython (its WebAssembly port) says byte for byte what CPython says.

``transcript.py`` drives ``firmware.core`` through scripted scenarios and prints
every byte sent and received. It runs once under CPython and once under
MicroPython's WebAssembly port (``tools/micropython/run.mjs``, the npm package
pinned in ``tools/micropython/package.json``, installed by ``make test``).
Without node or the package these tests fail, saying how to install them.
"""

from __future__ import annotations

import difflib
import itertools
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware import wire
from tests.firmware.fakes import clock
from tests.paths import REPO

pytestmark = pytest.mark.micropython

TOOLS = REPO / "tools" / "micropython"
RUNNER = TOOLS / "run.mjs"
PORT = TOOLS / "node_modules" / "@micropython" / "micropython-webassembly-pyscript"
DRIVER = Path(__file__).resolve().parent / "transcript.py"
SCENARIOS = (
    "debounce",
    "garbled",
    "acks",
    "resync",
    "wrap",
    "crowd",
    "stall",
    "rehost",
    "vectors",
)
INSTALL = "run `make test` (or `bash tools/micropython/install.sh`) to install them"


def node() -> str:
    """The node executable; fails the test, saying how to install it, when node or the port is missing."""
    found = shutil.which("node")
    if found is None:
        pytest.fail(f"node is not installed: the MicroPython firmware tests need it; {INSTALL}")
    if not (PORT / "micropython.mjs").is_file():
        pytest.fail(f"MicroPython's WebAssembly port is not in {PORT}; {INSTALL}")
    return found


def run_micropython(script: Path, *args: str) -> str:
    """Run ``script`` under the WebAssembly port with the firmware package importable."""
    result = subprocess.run(
        [node(), str(RUNNER), "--lib", str(REPO / "firmware"), str(script), *args],
        capture_output=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return result.stdout.decode()


def run_cpython(script: Path, *args: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    result = subprocess.run(
        [sys.executable, str(script), *args],
        capture_output=True,
        timeout=120,
        check=False,
        env=env,
        cwd=str(REPO),
    )
    assert result.returncode == 0, result.stderr.decode(errors="replace")
    return result.stdout.decode()


@pytest.fixture(scope="module")
def transcripts() -> Iterator[tuple[str, str]]:
    """(CPython's, MicroPython's) transcript of every scenario."""
    yield run_cpython(DRIVER), run_micropython(DRIVER)


def frames_sent(transcript: str, scenario: str) -> list[tuple[int, int, int, bytes]]:
    """The frames the firmware sent in one scenario, decoded by the host's decoder."""
    decoder = wire.Decoder()
    frames = []
    for line in transcript.splitlines():
        name, _ms, what, *rest = line.split(" ")
        if name == scenario and what == "tx":
            frames += decoder.feed(bytes.fromhex(rest[0]))
    assert decoder.bytes_invalid == 0
    return frames


def final_state(transcript: str, scenario: str) -> dict[str, str]:
    for line in transcript.splitlines():
        name, _ms, what, *rest = line.split(" ")
        if name == scenario and what == "end":
            return dict(item.split("=", 1) for item in rest)
    raise AssertionError(f"no end line for {scenario}")


def test_the_port_is_micropython_with_what_main_py_uses(tmp_path: Path) -> None:
    script = tmp_path / "which.py"
    script.write_text(
        "import sys, time, micropython, select\n"
        "print(sys.implementation.name, sys.implementation.version[:2])\n"
        "print(hasattr(sys.stdin, 'buffer'), hasattr(sys.stdout, 'buffer'))\n"
        "print(callable(micropython.kbd_intr), callable(select.poll), select.POLLIN, select.POLLOUT)\n"
        "print(all(hasattr(time, n) for n in ('ticks_ms', 'ticks_add', 'ticks_diff', 'sleep_ms')))\n"
        "room = select.poll()\n"
        "room.register(sys.stdout.buffer, select.POLLOUT)\n"
        "print([event for _, event in room.ipoll(0)])\n"
        "import uselect\n"  # still found, as an alias (firmware/README.md)
        "print(uselect is select)\n"
    )
    lines = run_micropython(script).splitlines()
    assert lines[0].startswith("micropython (1, ")
    assert lines[1:] == ["True True", "True True 1 4", "True", "[4]", "True"]


def test_transcripts_are_byte_identical(transcripts: tuple[str, str]) -> None:
    cpython, micropython = transcripts
    if cpython != micropython:
        diff = difflib.unified_diff(
            cpython.splitlines(), micropython.splitlines(), "CPython", "MicroPython", lineterm=""
        )
        pytest.fail("the transcripts differ:\n" + "\n".join(list(diff)[:40]))
    assert {line.split(" ")[0] for line in cpython.splitlines()} == set(SCENARIOS)
    assert len(cpython.splitlines()) > 150


def test_debounce_scenario_is_not_trivial(transcripts: tuple[str, str]) -> None:
    frames = frames_sent(transcripts[1], "debounce")
    events = [wire.decode_events(f[3]) for f in frames if f[2] == wire.EVENTS]
    # the 5 ms bounce made nothing; then sensor 3, then three changes in one frame, resent
    assert events[:2] == [(7, 1, [(3, 1)]), (7, 2, [(0, 1), (3, 0), (11, 1)])]
    assert len(events) >= 4
    assert final_state(transcripts[1], "debounce")["pending"] == ""
    assert sum(f[2] == wire.HEARTBEAT for f in frames) >= 3


def test_garbled_scenario_is_not_trivial(transcripts: tuple[str, str]) -> None:
    frames = frames_sent(transcripts[1], "garbled")
    pongs = [wire.decode_nonce(f[3]) for f in frames if f[2] == wire.PONG]
    assert pongs == [0x01020304, 0xCAFEF00D, 5]  # not the bad-CRC one nor the version-2 one
    notices = [wire.decode_notice(f[3])[0] for f in frames if f[2] == wire.NOTICE]
    assert notices == [wire.NOTICE_UNKNOWN_TYPE, wire.NOTICE_MALFORMED, wire.NOTICE_MALFORMED]
    end = final_state(transcripts[1], "garbled")
    assert int(end["bad_frames"]) >= 2 and int(end["bytes_invalid"]) > 0
    assert end["wrong_version"] == "2"


def test_ack_scenario_is_not_trivial(transcripts: tuple[str, str]) -> None:
    frames = frames_sent(transcripts[1], "acks")
    events = [wire.decode_events(f[3]) for f in frames if f[2] == wire.EVENTS]
    assert [e[1] for e in events[:3]] == [1, 2, 3]
    assert events[3:] and all(e[1] == 2 and len(e[2]) == 2 for e in events[3:])  # resends of 2..3
    end = final_state(transcripts[1], "acks")
    assert (end["oldest"], end["pending"]) == ("4", "")


def test_resync_scenario_is_not_trivial(transcripts: tuple[str, str]) -> None:
    frames = frames_sent(transcripts[1], "resync")
    idents = [wire.decode_ident(f[3]) for f in frames if f[2] == wire.IDENT]
    assert [i[:3] for i in idents] == [(1, 42, 7), (1, 42, 7)]
    assert [wire.decode_notice(f[3])[0] for f in frames if f[2] == wire.NOTICE] == [3, 3]
    snapshots = [wire.decode_snapshot(f[3]) for f in frames if f[2] == wire.SNAPSHOT]
    assert [s[:3] for s in snapshots] == [(7, 6, 3), (7, 8, 7)]
    assert [i for i, s in enumerate(snapshots[0][3]) if s] == [0, 7, 8, 20, 33, 41]
    assert [wire.decode_nonce(f[3]) for f in frames if f[2] == wire.PONG] == [0xDEADBEEF]


def test_wrap_and_crowd_scenarios_are_not_trivial(transcripts: tuple[str, str]) -> None:
    wrap = [wire.decode_events(f[3]) for f in frames_sent(transcripts[1], "wrap") if f[2] == 0x84]
    assert wrap[0] == (7, 1, [(1, 1), (6, 1)]) and wrap[1] == (7, 3, [(6, 0)])
    crowd = frames_sent(transcripts[1], "crowd")
    sizes = [len(f[3]) - 6 for f in crowd if f[2] == wire.EVENTS]
    assert sizes[:2] == [32, 11] and 8 in sizes  # first sent 32 a frame, resent 8 a frame
    assert final_state(transcripts[1], "crowd")["pending"] == ""


def test_stall_scenario_is_not_trivial(transcripts: tuple[str, str]) -> None:
    frames = frames_sent(transcripts[1], "stall")  # whole frames only: no byte was invalid
    seqs = [f[1] for f in frames]
    skipped = sum((b - a - 1) % 256 for a, b in itertools.pairwise(seqs))
    notices = [wire.decode_notice(f[3]) for f in frames if f[2] == wire.NOTICE]
    assert [code for code, _ in notices] == [wire.NOTICE_FRAMES_DROPPED]
    end = final_state(transcripts[1], "stall")
    assert int(notices[0][1].split()[0]) == skipped == int(end["dropped_frames"]) > 10
    events = [wire.decode_events(f[3]) for f in frames if f[2] == wire.EVENTS]
    got = {seq: e for _, first, evs in events for seq, e in enumerate(evs, first)}
    assert [got[seq] for seq in sorted(got)] == [(s, 1) for s in range(12)]
    assert (end["last_seq"], end["oldest"], end["pending"]) == ("12", "13", "")


def test_rehost_scenario_is_not_trivial(transcripts: tuple[str, str]) -> None:
    lines = [line.split(" ") for line in transcripts[1].splitlines() if line.startswith("rehost ")]
    rx = next(i for i, w in enumerate(lines) if w[2] == "rx")  # the new host's IDENTIFY
    before = sum(len(bytes.fromhex(w[3])) for w in lines[:rx] if w[2] == "tx")
    frames = frames_sent(transcripts[1], "rehost")  # whole frames only: no byte was invalid
    starts = list(itertools.accumulate((wire.OVERHEAD + len(f[3]) for f in frames), initial=0))
    first = next(i for i, at in enumerate(starts) if at >= before)
    assert starts[first - 1] < before < starts[first]  # a frame in flight, finished
    assert frames[first][2] == wire.IDENT  # then the IDENT, nothing queued before it
    end = final_state(transcripts[1], "rehost")
    assert int(end["discarded_frames"]) > 0
    events = [wire.decode_events(f[3]) for f in frames[first:] if f[2] == wire.EVENTS]
    got = {seq: e for _, first_seq, evs in events for seq, e in enumerate(evs, first_seq)}
    assert [got[seq] for seq in sorted(got)] == [(s, 1) for s in range(6)]  # resent to it
    assert (end["last_seq"], end["oldest"], end["pending"]) == ("6", "7", "")


def test_micropython_encodes_and_decodes_the_test_vectors(transcripts: tuple[str, str]) -> None:
    vectors = json.loads((REPO / "firmware" / "test_vectors.json").read_text())
    lines = [line.split(" ") for line in transcripts[1].splitlines() if line.startswith("vectors ")]
    assert [(w[2], w[3], w[4]) for w in lines if w[2] == "crc"] == [
        ("crc", "crc16_check", str(vectors["crc16_check"]["crc"])),
        ("crc", "crc32_check", str(vectors["crc32_check"]["crc"])),
    ]
    frames = [(w[3], w[4], w[5]) for w in lines if w[2] == "vector"]
    assert frames == [(v["name"].replace(" ", "_"), "ok", v["frame"]) for v in vectors["frames"]]


def test_fake_ticks_follow_micropython(tmp_path: Path) -> None:
    """The fakes' ticks_add/ticks_diff give what the real time module gives, wrap-around included."""
    period = clock.TICKS_PERIOD
    adds = [(0, -1), (period - 1, 1), (0, period // 2 - 1), (5, 1 - period // 2), (period - 40, 40)]
    diffs = [(0, period - 1), (period - 1, 0), (period // 2, 0), (0, period // 2), (10, 3)]
    overflows = [period // 2, -(period // 2), period]
    script = tmp_path / "ticks.py"
    script.write_text(
        "import time\n"
        f"for a, d in {adds!r}:\n    print(time.ticks_add(a, d))\n"
        f"for a, b in {diffs!r}:\n    print(time.ticks_diff(a, b))\n"
        f"for d in {overflows!r}:\n"
        "    try:\n        time.ticks_add(0, d)\n        print('ok')\n"
        "    except OverflowError:\n        print('OverflowError')\n"
        "print(time.ticks_add(0, -40))\n"
    )
    want = [str(clock.ticks_add(a, d)) for a, d in adds]
    want += [str(clock.ticks_diff(a, b)) for a, b in diffs]
    for d in overflows:
        with pytest.raises(OverflowError):
            clock.ticks_add(0, d)
        want.append("OverflowError")
    want.append(str(period - 40))  # the wrap scenario's start: really 40 ms before the wrap
    assert run_micropython(script).split() == want
