"""Buttons and encoder through gpiozero's MockFactory: presses become typed events."""

from __future__ import annotations

import dataclasses
import queue
import time
from typing import Any

import pytest
from gpiozero import LED
from gpiozero.pins.mock import MockFactory

from controller.core.events import Event
from hardware.controls import (
    ButtonName,
    ButtonPressed,
    ButtonRepeated,
    ControlsConfig,
    EncoderTurned,
    TableInputs,
)
from hardware.controls import inputs as inputs_module
from tests.hardware.controls.pins import press
from tests.waiting import posted, wait_until

pytestmark = pytest.mark.timeout(20)

CONFIG = ControlsConfig(hold_seconds=0.15, repeat_s=0.1, bounce_ms=0)
PIN = CONFIG.buttons  # the default pins (the [controls] defaults)
CONFIRM, NEXT, UNDO, MENU = (PIN[b] for b in ButtonName)


def test_events_are_frozen_event_dataclasses() -> None:
    e = ButtonPressed(ButtonName.UNDO, long=True)
    assert isinstance(e, Event)
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.long = False  # type: ignore[misc]


def test_short_press_posts_on_release(factory: MockFactory) -> None:
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(CONFIG, q) as inputs:
        assert inputs.failed == []
        pin = factory.pin(CONFIRM)
        pin.drive_low()
        assert posted(q) == []  # could still become a long press
        pin.drive_high()
        for number in (UNDO, MENU):
            press(factory.pin(number))
        assert posted(q) == [
            ButtonPressed(ButtonName.CONFIRM),
            ButtonPressed(ButtonName.UNDO),
            ButtonPressed(ButtonName.MENU),
        ]


def test_long_press_posts_once_when_held(factory: MockFactory) -> None:
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(CONFIG, q):
        pin = factory.pin(CONFIRM)
        pin.drive_low()
        assert q.get(timeout=2) == ButtonPressed(ButtonName.CONFIRM, long=True)
        pin.drive_high()  # the release after a long press posts nothing more
        assert posted(q) == []


def test_next_repeats_while_held(factory: MockFactory) -> None:
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(CONFIG, q):
        pin = factory.pin(NEXT)
        pin.drive_low()
        got = [q.get(timeout=2), q.get(timeout=2), q.get(timeout=2)]
        pin.drive_high()
        got += posted(q)
    assert got == [
        ButtonPressed(ButtonName.NEXT),
        ButtonRepeated(ButtonName.NEXT, 1),
        ButtonRepeated(ButtonName.NEXT, 2),
    ]


def test_next_repeats_at_its_own_pace_not_after_the_long_press_time(
    factory: MockFactory,
) -> None:
    """NEXT held scrolls every ``repeat_s`` from the start: it does not wait the long-press
    time (here the longest the config allows, 10 s) before its first repeat."""
    cfg = dataclasses.replace(CONFIG, hold_seconds=10.0, repeat_s=0.05)
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(cfg, q):
        pin = factory.pin(NEXT)
        pin.drive_low()
        got = [q.get(timeout=5), q.get(timeout=5)]
        pin.drive_high()
    assert got == [ButtonPressed(ButtonName.NEXT), ButtonRepeated(ButtonName.NEXT, 1)]


def test_encoder_steps_both_ways(factory: MockFactory) -> None:
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(CONFIG, q):
        a, b = factory.pin(CONFIG.encoder_a or 0), factory.pin(CONFIG.encoder_b or 0)
        for first, second in ((a, b), (a, b), (b, a)):  # cw, cw, ccw: quadrature order
            first.drive_low()
            second.drive_low()
            first.drive_high()
            second.drive_high()
    assert posted(q) == [EncoderTurned(1), EncoderTurned(1), EncoderTurned(-1)]


def test_a_pin_in_use_is_named_and_the_rest_work(factory: MockFactory) -> None:
    squatter = LED(CONFIRM)  # something else already holds the confirm pin
    q: queue.Queue[Any] = queue.Queue()
    try:
        with TableInputs(CONFIG, q) as inputs:
            [error] = inputs.failed
            assert str(error) == (
                f"button 'confirm' on GPIO{CONFIRM}: pin already in use (by another device or program)"
            )
            assert set(inputs.buttons) == {ButtonName.NEXT, ButtonName.UNDO, ButtonName.MENU}
            press(factory.pin(UNDO))
            assert posted(q) == [ButtonPressed(ButtonName.UNDO)]
    finally:
        squatter.close()


def test_encoder_and_buttons_optional(factory: MockFactory) -> None:
    cfg = dataclasses.replace(
        CONFIG, confirm=4, next=None, undo=None, menu=None, encoder_a=None, repeat=()
    )
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(cfg, q) as inputs:
        assert inputs.encoder is None and list(inputs.buttons) == [ButtonName.CONFIRM]
    inputs.close()  # idempotent


def test_pull_down_buttons_press_when_driven_high(factory: MockFactory) -> None:
    cfg = dataclasses.replace(CONFIG, pull_up=False, encoder_a=None, encoder_b=None)
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(cfg, q) as inputs:
        assert inputs.failed == []
        press(factory.pin(UNDO), pull_up=False)
        assert posted(q) == [ButtonPressed(ButtonName.UNDO)]


def test_a_button_held_down_past_its_time_is_a_fault_said_once(
    factory: MockFactory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A stuck switch acts once (a long press), then left the button dead without a word:
    held past STUCK_AFTER_S it is a fault, said once in the log, gone on release."""
    monkeypatch.setattr(inputs_module, "STUCK_AFTER_S", 0.2)
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(CONFIG, q) as inputs:
        pin = factory.pin(CONFIRM)
        pin.drive_low()
        assert inputs.stuck() == {}  # a press, so far
        wait_until(lambda: bool(inputs.stuck()), 5, "the button taken for stuck")
        assert list(inputs.stuck()) == ["controls:confirm"]
        assert "button 'confirm' held down" in inputs.stuck()["controls:confirm"]
        said = [r for r in caplog.records if "held down" in r.getMessage()]
        assert len(said) == 1
        pin.drive_high()
        assert inputs.stuck() == {}


def test_a_button_stuck_again_after_its_release_is_said_again(
    factory: MockFactory, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A stuck button freed, then stuck once more (the box put back on it), is a new fault:
    said in the log again, not only the first time ever."""
    monkeypatch.setattr(inputs_module, "STUCK_AFTER_S", 0.2)
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(CONFIG, q) as inputs:
        pin = factory.pin(CONFIRM)
        for _ in range(2):
            pin.drive_low()
            wait_until(lambda: bool(inputs.stuck()), 5, "the button taken for stuck")
            pin.drive_high()
            assert inputs.stuck() == {}
    said = [r for r in caplog.records if "held down" in r.getMessage()]
    assert len(said) == 2


def test_a_stuck_repeating_button_stops_repeating(
    factory: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """NEXT repeats while held; held past STUCK_AFTER_S it is a fault and its repeats stop
    (the cursor spun four times a second for as long as it stayed down)."""
    monkeypatch.setattr(inputs_module, "STUCK_AFTER_S", 0.3)
    q: queue.Queue[Any] = queue.Queue()
    with TableInputs(CONFIG, q) as inputs:
        pin = factory.pin(NEXT)
        pin.drive_low()
        wait_until(lambda: bool(inputs.stuck()), 5, "NEXT taken for stuck")
        posted(q)
        time.sleep(0.35)  # three repeats' time
        assert not [e for e in posted(q) if isinstance(e, ButtonRepeated)]
        pin.drive_high()


class _Button:
    """What _ButtonWatch reads of a gpiozero Button: its callbacks and active_time."""

    active_time: float | None = 1.0
    when_pressed: Any = None
    when_held: Any = None
    when_released: Any = None


@pytest.mark.parametrize("repeat", [False, True])
def test_a_release_at_the_hold_time_is_one_press_not_two(repeat: bool) -> None:
    """gpiozero 2.0.1 calls when_held on its HoldThread and when_released on the pin's
    thread, unordered: a release just at the hold time, before the late when_held, was
    posted as a short press and then as a long one (the next player's move journalled)."""
    posted: list[Any] = []
    button = _Button()
    inputs_module._ButtonWatch(ButtonName.CONFIRM, button, posted.append, repeat)
    button.when_pressed()
    button.when_released()
    button.when_held()  # the HoldThread's wait timed out before the release: late
    assert posted == [ButtonPressed(ButtonName.CONFIRM)]
    posted.clear()
    button.when_pressed()
    button.when_held()  # in time: a long press (or a repeat), and the release adds nothing
    button.when_released()
    assert posted == (
        [ButtonPressed(ButtonName.CONFIRM), ButtonRepeated(ButtonName.CONFIRM, 1)]
        if repeat
        else [ButtonPressed(ButtonName.CONFIRM, long=True)]
    )


def test_with_a_debounce_of_half_the_hold_time_short_and_long_presses_both_work(
    factory: MockFactory,
) -> None:
    """At the longest debounce the config allows (half the hold time) a long press is long
    and a short one short. Each press is 0.25 s or more from the timings it must clear: a
    loaded machine's timer or sleep runs late by up to about 60 ms."""
    q: queue.Queue[Any] = queue.Queue()
    cfg = dataclasses.replace(CONFIG, bounce_ms=500, hold_seconds=1.0)
    with TableInputs(cfg, q) as inputs:
        watch = inputs.buttons[ButtonName.CONFIRM]
        pin = factory.pin(CONFIRM)
        for _ in range(2):
            pin.drive_low()
            time.sleep(1.4)  # 0.4 s past the hold
            pin.drive_high()
            assert q.get(timeout=5) == ButtonPressed(ButtonName.CONFIRM, long=True)
            # the release steady before the next press (else that press is its chatter)
            wait_until(lambda: not watch._steady, 5, "the release settled")
        pin.drive_low()
        time.sleep(0.75)  # 0.25 s past the debounce, 0.25 s short of the hold
        pin.drive_high()
        assert q.get(timeout=5) == ButtonPressed(ButtonName.CONFIRM)
        wait_until(lambda: not watch._steady, 5, "the release settled")
    assert posted(q) == []  # one event a press


class _SettlingButton(_Button):
    """A :class:`_Button` read through the debounce: its level, and close()."""

    is_pressed = True

    def close(self) -> None:
        pass


@pytest.mark.parametrize("repeat", [False, True])
def test_a_hold_that_comes_before_the_press_settles_still_counts(repeat: bool) -> None:
    """gpiozero's HoldThread and the debounce's timer both time from the last raw edge, on
    their own threads: a hold that comes first, the button steadily down, is the long
    press (or the first repeat); it was dropped and the release taken for a short press."""
    posted: list[Any] = []
    button = _SettlingButton()
    watch = inputs_module._ButtonWatch(ButtonName.CONFIRM, button, posted.append, repeat, 30.0)
    try:
        button.when_pressed()  # the raw edge: the debounce's timer starts (30 s: not yet)
        button.when_held()  # the hold comes first
        assert posted == (
            [ButtonPressed(ButtonName.CONFIRM), ButtonRepeated(ButtonName.CONFIRM, 1)]
            if repeat
            else [ButtonPressed(ButtonName.CONFIRM, long=True)]
        )
    finally:
        watch.close()
