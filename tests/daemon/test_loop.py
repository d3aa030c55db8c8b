"""The table loop: typed dispatch on one thread, heartbeats, a bad handler is not fatal."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from controller.core.events import Event
from controller.daemon.loop import ClockThread, TableLoop


@dataclass(frozen=True)
class Ping(Event):
    n: int


@dataclass(frozen=True)
class LoudPing(Ping):
    pass


@dataclass(frozen=True)
class Boom(Event):
    pass


def test_dispatch_by_type_and_nearest_base() -> None:
    loop = TableLoop()
    seen: list[tuple[str, int]] = []
    loop.on(Ping, lambda e: seen.append(("ping", e.n)))  # type: ignore[attr-defined]
    loop.post(Ping(1))
    loop.post(LoudPing(2))
    assert loop.drain() == 2
    assert seen == [("ping", 1), ("ping", 2)]
    loop.on(LoudPing, lambda e: seen.append(("loud", e.n)))  # type: ignore[attr-defined]
    loop.post(LoudPing(3))
    loop.drain()
    assert seen[-1] == ("loud", 3)


def test_a_failing_handler_is_counted_and_the_loop_goes_on(
    caplog: pytest.LogCaptureFixture,
) -> None:
    loop = TableLoop()
    seen: list[int] = []

    def explode(_: Event) -> None:
        raise RuntimeError("bug")

    loop.on(Boom, explode)
    loop.on(Ping, lambda e: seen.append(e.n))  # type: ignore[attr-defined]
    loop.post(Boom())
    loop.post(Ping(5))
    loop.drain()
    assert loop.failures == 1
    assert seen == [5]
    assert "handling Boom failed" in caplog.text


@pytest.mark.timeout(10)
def test_run_on_its_thread_until_stopped_with_heartbeats() -> None:
    loop = TableLoop(idle_wakeup_s=0.01)
    beats: list[int] = []
    idle: list[int] = []
    loop.set_heartbeat(lambda: beats.append(1))
    loop.on_idle(lambda: idle.append(1))
    done = threading.Event()
    loop.on(Ping, lambda e: done.set())
    thread = threading.Thread(target=loop.run)
    thread.start()
    loop.post(Ping(1))
    assert done.wait(5)
    loop.stop()
    thread.join(5)
    assert not thread.is_alive()
    assert len(beats) >= 1 and loop.handled == 1


@pytest.mark.timeout(10)
def test_clock_thread_posts_ticks() -> None:
    loop = TableLoop()
    clock = ClockThread(loop.post, lambda t: Ping(int(t)), hz=200).start()
    try:
        first = loop.events.get(timeout=5)
    finally:
        clock.stop()
    assert isinstance(first, Ping)
