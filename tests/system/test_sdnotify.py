"""sd_notify against a real AF_UNIX datagram socket, and a watchdog that stops for a hung loop."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.system.sdnotify import Notifier, Watchdog, notify_address, watchdog_interval
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(20)


class FakeSystemd:
    """The receiving end systemd would hold: a bound SOCK_DGRAM socket."""

    def __init__(self, address: str | bytes) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(address)
        self.sock.settimeout(2.0)

    def receive(self) -> list[str]:
        data = self.sock.recv(4096)
        return data.decode().split("\n")

    def pending(self) -> list[list[str]]:
        """Every datagram waiting now, without blocking."""
        self.sock.setblocking(False)
        got = []
        try:
            while True:
                got.append(self.sock.recv(4096).decode().split("\n"))
        except BlockingIOError:
            pass
        finally:
            self.sock.settimeout(2.0)
        return got

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def systemd_path(tmp_path: Path) -> Iterator[tuple[FakeSystemd, dict[str, str]]]:
    path = str(tmp_path / "notify.sock")
    fake = FakeSystemd(path)
    yield fake, {"NOTIFY_SOCKET": path}
    fake.close()


@pytest.fixture
def systemd_abstract() -> Iterator[tuple[FakeSystemd, dict[str, str]]]:
    name = f"toptable-test-{uuid.uuid4().hex}"
    fake = FakeSystemd(b"\0" + name.encode())
    yield fake, {"NOTIFY_SOCKET": "@" + name}
    fake.close()


def test_address_forms() -> None:
    assert notify_address({}) is None
    assert notify_address({"NOTIFY_SOCKET": ""}) is None
    assert notify_address({"NOTIFY_SOCKET": "/run/systemd/notify"}) == b"/run/systemd/notify"
    assert notify_address({"NOTIFY_SOCKET": "@abc"}) == b"\0abc"
    assert notify_address({"NOTIFY_SOCKET": "vsock:2:1234"}) is None


def test_messages_over_a_path_socket(systemd_path: tuple[FakeSystemd, dict[str, str]]) -> None:
    fake, env = systemd_path
    with Notifier(env) as n:
        assert n.enabled
        assert n.ready("round 1/10, P1 to move")
        assert fake.receive() == ["READY=1", "STATUS=round 1/10, P1 to move"]
        assert n.status("combat:\nGoku vs Jiren")
        assert fake.receive() == ["STATUS=combat: Goku vs Jiren"]
        assert n.watchdog()
        assert fake.receive() == ["WATCHDOG=1"]
        assert n.extend_timeout(1.5)
        assert fake.receive() == ["EXTEND_TIMEOUT_USEC=1500000"]
        assert n.stopping("paused")
        assert fake.receive() == ["STOPPING=1", "STATUS=paused"]


def test_messages_over_an_abstract_socket(
    systemd_abstract: tuple[FakeSystemd, dict[str, str]],
) -> None:
    fake, env = systemd_abstract
    with Notifier(env) as n:
        assert n.ready()
        assert fake.receive() == ["READY=1"]


def test_not_under_systemd_is_a_no_op() -> None:
    n = Notifier({})
    assert not n.enabled
    assert not n.ready("x")
    assert not n.watchdog()
    n.close()
    n.close()


def test_a_vanished_socket_does_not_raise(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    n = Notifier({"NOTIFY_SOCKET": str(tmp_path / "gone.sock")})
    assert not n.ready()
    assert not n.status("again")
    assert sum("cannot notify systemd" in r.message for r in caplog.records) == 1  # warned once
    n.close()


def test_watchdog_interval_parsing() -> None:
    assert watchdog_interval({}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "30000000"}) == 30.0
    assert watchdog_interval({"WATCHDOG_USEC": "0"}) is None
    assert watchdog_interval({"WATCHDOG_USEC": "soon"}) is None
    env = {"WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "4242"}
    assert watchdog_interval(env, pid=4242) == 2.0
    assert watchdog_interval(env, pid=4243) is None  # meant for another process
    assert watchdog_interval({**env, "WATCHDOG_PID": str(os.getpid())}) == 2.0


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_watchdog_pings_only_while_the_loop_heartbeats(
    systemd_path: tuple[FakeSystemd, dict[str, str]],
) -> None:
    fake, env = systemd_path
    clock = Clock()
    wd = Watchdog(Notifier(env), clock=clock, env={"WATCHDOG_USEC": "10000000"})
    assert (wd.interval, wd.period, wd.stale_after) == (10.0, 5.0, 5.0)
    sent = []
    for _ in range(12):  # a healthy loop for 12 s: heartbeats every second
        clock.now += 1.0
        wd.heartbeat()
        sent.append(wd.tick())
    assert sent == [True, False, False, False, False, True, False, False, False, False, True, False]
    assert fake.pending() == [["WATCHDOG=1"]] * 3
    # The loop hangs: heartbeats stop, ticks go on (as the pinger thread would).
    hung = []
    for _ in range(20):
        clock.now += 1.0
        hung.append(wd.tick())
    # One more ping while the last heartbeat (t=112) is still fresh (t=116), then silence.
    assert hung[:4] == [False, False, False, True]
    assert not any(hung[4:])
    assert wd.missed > 0
    # It comes back: pings resume.
    wd.heartbeat()
    assert wd.tick()
    assert wd.missed == 0


def test_hung_loop_alarm_is_logged_once(caplog: pytest.LogCaptureFixture, tmp_path: Path) -> None:
    clock = Clock()
    fake = FakeSystemd(str(tmp_path / "n.sock"))
    try:
        wd = Watchdog(
            Notifier({"NOTIFY_SOCKET": str(tmp_path / "n.sock")}), interval=2.0, clock=clock
        )
        clock.now += 5.0
        assert not wd.tick() and not wd.tick()
        assert sum("main loop silent" in r.message for r in caplog.records) == 1
    finally:
        fake.close()


def test_watchdog_disabled_without_interval_or_socket(
    systemd_path: tuple[FakeSystemd, dict[str, str]],
) -> None:
    _, env = systemd_path
    assert not Watchdog(Notifier(env), env={}).enabled
    assert not Watchdog(Notifier({}), interval=5.0).enabled
    wd = Watchdog(Notifier({}), interval=5.0)
    with wd:
        wd.heartbeat()
        assert wd._thread is None  # nothing started
    with pytest.raises(ValueError):
        Watchdog(Notifier(env), interval=0.0)


def test_pinger_thread_stops_pinging_when_the_loop_hangs(
    systemd_path: tuple[FakeSystemd, dict[str, str]],
) -> None:
    """The pinger thread on the injected clock: a ping per period while the loop beats, then none."""
    fake, env = systemd_path
    clock = Clock()
    wd = Watchdog(Notifier(env), interval=0.5, clock=clock)  # a ping per 0.25 s, stale after 0.25 s

    def one_period(pings: int) -> None:
        """The loop beats as the clock moves on a period: the thread sends ping number ``pings``."""
        clock.now += 0.25
        wd.heartbeat()
        wait_until(lambda: wd.pings == pings, 5, f"watchdog ping {pings}")

    with wd:
        wait_until(lambda: wd.pings == 1, 5, "the first ping, sent as the thread starts")
        for pings in (2, 3, 4):
            one_period(pings)
        clock.now += 0.5  # the loop hangs: no heartbeat for two periods
        wait_until(lambda: wd.missed >= 3, 5, "the pinger thread to hold three pings back")
        assert wd.pings == 4
        assert fake.pending() == [["WATCHDOG=1"]] * 4
        wd.heartbeat()  # the loop is back: pings resume
        wait_until(lambda: wd.pings == 5, 5, "the ping after the loop came back")
        assert wd.missed == 0
    assert wd._thread is None
    wd.stop()  # idempotent


CHILD = """
import time
from controller.system.sdnotify import Notifier, Watchdog
notifier = Notifier()
watchdog = Watchdog(notifier)
assert watchdog.interval == 0.2, watchdog.interval
notifier.ready("table up")
deadline = time.monotonic() + 10
with watchdog:
    while watchdog.pings < 3:    # a healthy loop until systemd has had three pings
        assert time.monotonic() < deadline, "no watchdog pings"
        watchdog.heartbeat()
        time.sleep(0.01)
    notifier.status("hung")
    while watchdog.missed < 2:   # the loop hangs: no heartbeat, until two pings are held back
        assert time.monotonic() < deadline, "the watchdog kept pinging a hung loop"
        time.sleep(0.01)
    notifier.stopping()
"""


def test_a_child_process_under_a_fake_systemd(
    systemd_path: tuple[FakeSystemd, dict[str, str]],
) -> None:
    """The whole exchange as systemd sees it, with the real environment variables.

    ``WATCHDOG_PID=$$`` then ``exec`` makes the variable name the Python process,
    as systemd names the main process.
    """
    fake, env = systemd_path
    child_env = {**os.environ, **env, "WATCHDOG_USEC": "200000"}
    code = subprocess.run(
        ["sh", "-c", 'WATCHDOG_PID=$$ exec "$0" -c "$1"', sys.executable, CHILD],
        env=child_env,
        timeout=15,
        capture_output=True,
        text=True,
    )
    assert code.returncode == 0, code.stderr
    messages = fake.pending()
    assert messages[0] == ["READY=1", "STATUS=table up"]
    assert messages[-1] == ["STOPPING=1"]
    hung_at = messages.index(["STATUS=hung"])
    assert messages[1:hung_at].count(["WATCHDOG=1"]) >= 3
    assert messages[hung_at + 1 : -1].count(["WATCHDOG=1"]) <= 1
