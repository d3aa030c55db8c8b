"""The table loop: typed dispatch on one thread, timers on its clock, heartbeats, a bad
handler or timer is not fatal."""

from __future__ import annotations

import threading
from dataclasses import dataclass

import pytest

from controller.core.events import Event
from controller.daemon.events import Barrier, Tick
from controller.daemon.loop import TableLoop


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
    loop.on(Ping, lambda e: seen.append(("ping", e.n)))
    loop.post(Ping(1))
    loop.post(LoudPing(2))
    assert loop.drain() == 2
    assert seen == [("ping", 1), ("ping", 2)]
    loop.on(LoudPing, lambda e: seen.append(("loud", e.n)))
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
    loop.on(Ping, lambda e: seen.append(e.n))
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
    loop.set_heartbeat(lambda: beats.append(1))
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


class FakeClock:
    """A monotonic clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_timers_fire_in_time_order_on_the_injected_clock() -> None:
    clock = FakeClock()
    loop = TableLoop(clock=clock)
    fired: list[tuple[str, float]] = []
    loop.call_later(2.0, lambda: fired.append(("two", clock.now)))
    loop.call_later(1.0, lambda: fired.append(("one", clock.now)))
    loop.call_at(101.0, lambda: fired.append(("one again", clock.now)))  # same time: set order
    loop.call_every(1.5, lambda: fired.append(("every", clock.now)))
    assert loop.run_timers() == 0
    for step in range(8):
        clock.now = 100.0 + 0.5 * (step + 1)
        loop.run_timers()
    assert fired == [
        ("one", 101.0),
        ("one again", 101.0),
        ("every", 101.5),
        ("two", 102.0),
        ("every", 103.0),
    ]
    assert loop.next_timer() == 104.5


def test_a_late_loop_skips_missed_periods_and_a_cancelled_timer_never_runs() -> None:
    clock = FakeClock()
    loop = TableLoop(clock=clock)
    runs: list[float] = []
    loop.call_every(1.0, lambda: runs.append(clock.now))
    gone = loop.call_later(0.5, lambda: runs.append(-1.0))
    gone.cancel()
    clock.now = 105.2  # five periods late
    assert loop.run_timers() == 1
    assert runs == [105.2]
    assert loop.next_timer() == 106.2
    with pytest.raises(ValueError, match="positive"):
        loop.call_every(0.0, lambda: None)


def test_ticks_come_from_a_loop_timer_and_a_failing_timer_is_counted(
    caplog: pytest.LogCaptureFixture,
) -> None:
    clock = FakeClock()
    loop = TableLoop(clock=clock)
    ticks: list[float] = []
    loop.on(Tick, lambda e: ticks.append(e.now))

    def explode() -> None:
        raise RuntimeError("bug")

    loop.tick_every(0.25)
    loop.call_later(0.3, explode)
    for _ in range(4):
        clock.now += 0.25
        loop.run_once(timeout=0)
    assert ticks == [100.25, 100.5, 100.75, 101.0]
    assert loop.failures == 1
    assert "a timer failed" in caplog.text


@pytest.mark.timeout(10)
def test_run_wakes_for_a_timer_before_the_idle_wakeup() -> None:
    loop = TableLoop(idle_wakeup_s=5.0)
    done = threading.Event()
    loop.call_later(0.05, done.set)
    thread = threading.Thread(target=loop.run)
    thread.start()
    try:
        assert done.wait(2)  # long before the 5 s wake-up
    finally:
        loop.stop()
        loop.post(Barrier())  # ends the idle wait now (stop() alone is seen at the wake-up)
        thread.join(10)
    assert not thread.is_alive()


def test_a_handler_that_halts_the_table_stops_the_loop_once() -> None:
    from controller.core.errors import TableHaltedError

    loop = TableLoop()
    seen: list[int] = []

    def handle(e: Ping) -> None:
        seen.append(e.n)
        if e.n == 2:
            raise TableHaltedError("j.sqlite: cannot append: database or disk is full")

    loop.on(Ping, handle)
    for n in (1, 2, 3):
        loop.post(Ping(n))
    loop.run()  # returns: the halt stopped it
    assert loop.halted == "j.sqlite: cannot append: database or disk is full"
    assert loop.stopping and loop.failures == 0
    assert seen == [1, 2]  # nothing handled after the halt
