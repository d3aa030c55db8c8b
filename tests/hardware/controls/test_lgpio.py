"""The controls over gpiozero's real ``LGPIOFactory`` and a simulated ``lgpio`` below it.

As on a Pi under the unit (``GPIOZERO_PIN_FACTORY=lgpio``): gpiozero 2.0.1 picks
its pin factory itself, and what the pin library raises or reports is what
:mod:`hardware.controls.simulated_lgpio` does as lgpio 0.2.2.0 does (a line held
elsewhere, a chip the user may not open, a debounce not applied, callbacks on lgpio's
thread).
"""

from __future__ import annotations

import dataclasses
import importlib.abc
import importlib.util
import queue
import sys
import threading
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import gpiozero.pins.local
import pytest
from gpiozero import Device

from hardware.controls import (
    ButtonName,
    ButtonPressed,
    ControlsConfig,
    TableInputs,
    TableOutputs,
    simulated_lgpio,
)
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(20)

CONFIG = ControlsConfig(hold_seconds=5.0, bounce_ms=0, encoder_a=None, encoder_b=None)
PIN = CONFIG.buttons
PI_4B = 0xC03114  # /proc/device-tree/system/linux,revision of a Pi 4 Model B


@pytest.fixture
def pi(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """gpiozero's default pin factory as the unit makes it, over the simulated lgpio."""
    simulated_lgpio.reset()
    monkeypatch.setitem(sys.modules, "lgpio", simulated_lgpio)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    monkeypatch.setattr(gpiozero.pins.local, "get_pi_revision", lambda: PI_4B)
    monkeypatch.setattr(Device, "pin_factory", None)
    try:
        yield simulated_lgpio
    finally:
        if Device.pin_factory is not None:
            Device.pin_factory.close()
        sys.modules.pop("gpiozero.pins.lgpio", None)  # bound to the simulation
        simulated_lgpio.reset()


class Events(queue.Queue[Any]):
    """The events queue, remembering the thread each event was posted from."""

    def __init__(self) -> None:
        super().__init__()
        self.threads: list[str] = []

    def put(self, item: Any, block: bool = True, timeout: float | None = None) -> None:
        self.threads.append(threading.current_thread().name)
        super().put(item, block, timeout)


def press(lgpio: Any, pin: int, hold_s: float = 0.0) -> None:
    lgpio.drive(pin, 0)
    time.sleep(hold_s)
    lgpio.drive(pin, 1)


def test_a_pin_another_program_holds_is_named_and_the_rest_work(pi: Any) -> None:
    pi.HELD_ELSEWHERE.add(PIN[ButtonName.CONFIRM])
    events = Events()
    with TableInputs(CONFIG, events) as inputs:
        [error] = inputs.failed
        assert str(error) == (
            f"button 'confirm' on GPIO{PIN[ButtonName.CONFIRM]}: pin already in use (by another "
            "program or a kernel driver: `gpioinfo` names the line's user)"
        )
        assert set(inputs.buttons) == {ButtonName.NEXT, ButtonName.UNDO, ButtonName.MENU}
        press(pi, PIN[ButtonName.UNDO])
        assert events.get(timeout=5) == ButtonPressed(ButtonName.UNDO)
        assert events.threads == ["lgpio-notify"]  # lgpio's thread, not the caller's


def test_an_output_on_a_held_pin_is_named(pi: Any) -> None:
    pi.HELD_ELSEWHERE.add(CONFIG.buzzer)
    with TableOutputs(CONFIG) as outputs:
        [error] = outputs.failed
        assert str(error).startswith(f"buzzer on GPIO{CONFIG.buzzer}: pin already in use")
        assert outputs.link_led is not None


def test_a_gpio_chip_the_user_may_not_open_is_named_for_each_control(pi: Any) -> None:
    pi.CHIPS.clear()
    with TableInputs(CONFIG, Events()) as inputs:
        assert inputs.buttons == {}
        assert str(inputs.failed[0]) == (
            f"button 'confirm' on GPIO{PIN[ButtonName.CONFIRM]}: cannot open the GPIO chip "
            "(/dev/gpiochip*): add the user to the 'gpio' group"
        )
        assert len(inputs.failed) == len(PIN)


def test_the_pin_library_missing_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "lgpio", None)  # import lgpio fails
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    monkeypatch.setattr(Device, "pin_factory", None)
    with TableInputs(CONFIG, Events()) as inputs:
        assert inputs.buttons == {}
        assert "gpiozero's pin library is missing" in str(inputs.failed[0])
        assert "apt install python3-lgpio" in str(inputs.failed[0])


def chatter(lgpio: Any, pin: int, level: int, edges: int = 5, apart_s: float = 0.004) -> None:
    """A switch's contacts bouncing ``apart_s`` apart, ending at ``level``."""
    for i in range(edges):
        lgpio.drive(pin, level if i % 2 == 0 else 1 - level)
        time.sleep(apart_s)
    lgpio.drive(pin, level)


def test_a_bounce_shorter_than_bounce_ms_presses_nothing(pi: Any) -> None:
    events = Events()
    cfg = dataclasses.replace(CONFIG, bounce_ms=50)
    with TableInputs(cfg, events):
        undo = PIN[ButtonName.UNDO]
        chatter(pi, undo, 1)  # contact chatter: back up within 50 ms
        time.sleep(0.2)
        assert events.empty()
        press(pi, undo, hold_s=0.2)  # a real press: steady longer than the debounce
        assert events.get(timeout=5) == ButtonPressed(ButtonName.UNDO)


@pytest.mark.parametrize("button", [ButtonName.UNDO, ButtonName.NEXT])
def test_a_press_whose_contacts_bounce_is_one_press(pi: Any, button: ButtonName) -> None:
    """lgpio 0.2.2.0 reports every edge of the chatter, its debounce set or not (lg issue
    19): one press of CONFIRM or NEXT was taken two to four times."""
    events = Events()
    # the debounce 15 times the chatter's 4 ms (a loaded machine's late sleep is no steady
    # level); NEXT repeats only when held 2 s, so a late settle cannot make it repeat
    cfg = dataclasses.replace(CONFIG, bounce_ms=60, repeat_s=2.0)
    with TableInputs(cfg, events) as inputs:
        watch = inputs.buttons[button]
        chatter(pi, PIN[button], 0)
        wait_until(lambda: watch._steady, 5, "the press settled")
        chatter(pi, PIN[button], 1)
        assert events.get(timeout=5) == ButtonPressed(button)
        wait_until(lambda: not watch._steady, 5, "the release settled")
        time.sleep(0.1)
        assert events.empty()


def test_lgpio_s_debounce_lets_each_edge_of_the_chatter_through(pi: Any) -> None:
    """What the table's own debounce is for: gpiozero's ``bounce_time`` is lgpio's
    ``gpio_set_debounce_micros``, which lgpio 0.2.2.0 does not apply (lg issue 19)."""
    from gpiozero import Button

    presses: list[float] = []
    with Button(PIN[ButtonName.UNDO], bounce_time=0.5) as button:
        button.when_pressed = lambda: presses.append(time.monotonic())
        chatter(pi, PIN[ButtonName.UNDO], 0, apart_s=0.05)  # 100x lgpio's 0.5 ms poll
        time.sleep(0.1)
    assert len(presses) > 1  # up to the five edges' three falls (a busy machine joins some)


class _PipeRefused(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """lgpio 0.2.2.0 imported in a folder its user may not write: ``lgpio.py`` starts its
    notification thread at import, which opens the pipe ``.lgd-nfy<N>`` it could not make."""

    def find_spec(self, name: str, path: Any, target: Any = None) -> Any:
        return importlib.util.spec_from_loader(name, self) if name == "lgpio" else None

    def create_module(self, spec: Any) -> None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        raise FileNotFoundError(2, "No such file or directory", ".lgd-nfy-3")


def test_lgpio_that_cannot_make_its_pipe_is_named_for_each_control(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`toptable run` by hand from a folder it may not write, without LG_WD: a traceback."""
    monkeypatch.delitem(sys.modules, "lgpio", raising=False)
    monkeypatch.delitem(sys.modules, "gpiozero.pins.lgpio", raising=False)
    monkeypatch.setattr(sys, "meta_path", [_PipeRefused(), *sys.meta_path])
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "lgpio")
    monkeypatch.setattr(Device, "pin_factory", None)
    with TableInputs(CONFIG, Events()) as inputs, TableOutputs(CONFIG) as outputs:
        assert inputs.buttons == {} and len(inputs.failed) == len(PIN)
        said = str(inputs.failed[0])
        assert said.startswith(f"button 'confirm' on GPIO{PIN[ButtonName.CONFIRM]}: lgpio cannot")
        assert ".lgd-nfy-3" in said and "set LG_WD" in said
        assert outputs.failed and "set LG_WD" in str(outputs.failed[0])
