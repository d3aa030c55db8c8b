"""LEDs and buzzer driven from the table state, recorded by MockPin and checked whole."""

from __future__ import annotations

import dataclasses
import time

import pytest
from gpiozero.pins.mock import MockFactory

from controller.table.entry import FaultSource
from hardware.controls import ControlsConfig, TableOutputs
from hardware.controls.outputs import eliminations
from hardware.displays.model import Clock, Fault, SeatView
from hardware.displays.view_json import EXAMPLE_STATE, load_view
from tests.waiting import wait_until

pytestmark = pytest.mark.timeout(20)

BASE = dataclasses.replace(
    load_view(EXAMPLE_STATE), faults=(), clock=Clock(round_no=9, seconds_left=3)
)
CONFIG = ControlsConfig(beep_s=0.02, led_seats=ControlsConfig().led_seats[:3])
ANA, BEN, CHLOE = CONFIG.led_seats  # the default pins (the [controls] defaults)
BUZZER, LINK, CAMERA = CONFIG.buzzer or 0, CONFIG.led_link or 0, CONFIG.led_camera or 0


def _states(factory: MockFactory, pin: int) -> list[bool]:
    return [bool(s.state) for s in factory.pin(pin).states]


def _wait_states(factory: MockFactory, pin: int, count: int) -> None:
    wait_until(lambda: len(factory.pin(pin).states) >= count, 5, f"{count} states of GPIO{pin}")


def test_a_game_drives_leds_and_buzzer(factory: MockFactory) -> None:
    def seats(ben_left: int) -> tuple[SeatView, ...]:
        return (
            BASE.seats[0],
            dataclasses.replace(BASE.seats[1], warriors_left=ben_left),
            BASE.seats[2],
        )

    views = [
        BASE,  # Ana's turn, all healthy
        dataclasses.replace(BASE, seat=1, clock=Clock(9, seconds_left=2)),  # Ben's turn
        dataclasses.replace(
            BASE,
            seat=1,
            faults=(Fault("board", "Board unplugged"),),
            clock=Clock(9, seconds_left=1),
        ),
        dataclasses.replace(BASE, seat=1, seats=seats(3), clock=Clock(9, seconds_left=1)),  # KO
        dataclasses.replace(BASE, seat=2, seats=seats(3), clock=Clock(9, seconds_left=0)),  # time
    ]
    with TableOutputs(CONFIG, factory) as outputs:
        assert outputs.failed == []
        for i, view in enumerate(views):
            outputs.show(view)
            if i == 3:  # let the elimination beep finish before the alarm
                _wait_states(factory, BUZZER, 3)
        _wait_states(factory, BUZZER, 9)
        assert _states(factory, ANA) == [False, True, False]  # Ana lit, then not
        assert _states(factory, BEN) == [False, True, False]  # Ben lit for views 1-3
        assert _states(factory, CHLOE) == [False, True]  # Chloé lit at the end
        assert _states(factory, LINK) == [False, True, False, True]  # link: fault, then fixed
        assert _states(factory, CAMERA) == [False, True]  # camera healthy throughout
        # one long beep (elimination), then three short ones (time is up)
        assert _states(factory, BUZZER) == [False, True] * 4 + [False]
    assert _states(factory, ANA)[-1] is False


@pytest.mark.parametrize(
    ("source", "link_lit", "camera_lit"),
    [
        (FaultSource.BOARD, False, True),  # the link is down
        ("board:link", False, True),  # up, with garbled frames or resyncs in the last minute
        (FaultSource.CAMERA, True, False),  # gone, or reading with the wrong dice model
        (FaultSource.CAMERA_VIEW, True, True),  # it works; the dice look unlike calibration
        (FaultSource.RULES, True, True),
        ("display:left", True, True),
        ("controls:buzzer", True, True),
    ],
)
def test_the_link_and_camera_leds_go_dark_on_their_devices_faults(
    factory: MockFactory, source: str, link_lit: bool, camera_lit: bool
) -> None:
    """The fault sources the table and its devices name (FaultSource, TableDevices.faults)
    darken the LED of the device they name, and only that one."""
    with TableOutputs(CONFIG, factory) as outputs:
        outputs.show(dataclasses.replace(BASE, faults=(Fault(source, "what is wrong"),)))
        assert outputs.link_led is not None and outputs.camera_led is not None
        assert (outputs.link_led.value, outputs.camera_led.value) == (link_lit, camera_lit)


def test_missing_pins_and_idempotent_close(factory: MockFactory) -> None:
    cfg = dataclasses.replace(CONFIG, buzzer=None, led_link=None, led_camera=None)
    outputs = TableOutputs(cfg, factory)
    outputs.show(BASE)
    assert outputs.buzzer is None and outputs.failed == []
    outputs.close()
    outputs.close()


def test_a_table_restarted_after_its_time_ran_out_sounds_the_alarm_once(
    factory: MockFactory,
) -> None:
    """The time a table is down counts (docs/decisions/game-clock.md): a restart can find the
    45 minutes run out with nobody told. Its first view at 0:00 gives the three short beeps;
    the views after it, still at 0:00, none."""
    timed_out = dataclasses.replace(BASE, clock=Clock(9, seconds_left=0))
    ben = BASE.seats[1]
    knocked_out = (BASE.seats[0], dataclasses.replace(ben, warriors_left=ben.warriors_left - 1))
    with TableOutputs(CONFIG, factory) as outputs:
        outputs.show(timed_out)  # the first view since the start
        _wait_states(factory, BUZZER, 7)
        outputs.show(dataclasses.replace(timed_out, seat=1))  # still 0:00: no alarm
        time.sleep(10 * CONFIG.beep_s)  # (only to see that nothing more sounds)
        assert len(_states(factory, BUZZER)) == 7
        outputs.show(dataclasses.replace(timed_out, seat=1, seats=(*knocked_out, *BASE.seats[2:])))
        _wait_states(factory, BUZZER, 9)
        # three short beeps, then only the elimination's long one
        assert _states(factory, BUZZER) == [False, True] * 4 + [False]


def test_a_warrior_put_back_is_no_elimination() -> None:
    """An elimination undone (the warrior back on the board) sounds nothing; a warrior
    lost at one seat while one comes back at another is still one elimination."""
    ana, ben = BASE.seats[0], BASE.seats[1]
    before = dataclasses.replace(BASE, seats=(ana, ben))
    back = dataclasses.replace(
        BASE, seats=(ana, dataclasses.replace(ben, warriors_left=ben.warriors_left + 1))
    )
    assert eliminations(before, back) == 0
    swap = dataclasses.replace(
        back, seats=(dataclasses.replace(ana, warriors_left=ana.warriors_left - 1), back.seats[1])
    )
    assert eliminations(before, swap) == 1


def test_an_elimination_is_one_long_beep(factory: MockFactory) -> None:
    """The elimination's beep lasts four beep units (told apart from the clock's short
    ones); the buzzer is held on at least that long."""
    cfg = dataclasses.replace(CONFIG, beep_s=0.05)
    ben = BASE.seats[1]
    knocked_out = (BASE.seats[0], dataclasses.replace(ben, warriors_left=ben.warriors_left - 1))
    with TableOutputs(cfg, factory) as outputs:
        outputs.show(BASE)
        outputs.show(dataclasses.replace(BASE, seats=(*knocked_out, *BASE.seats[2:])))
        _wait_states(factory, BUZZER, 3)
        on, off = factory.pin(BUZZER).states[1:3]
        assert (on.state, off.state) == (True, False)
        assert off.timestamp >= 3 * cfg.beep_s  # how long it was on (gpiozero waits 4 units)
