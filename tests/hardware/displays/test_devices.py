"""Opening displays from config: I2C, TCA9548A, emulator; failures name where and go on."""

from __future__ import annotations

import dataclasses
import errno
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from hardware.displays.device_config import DisplayConfig
from hardware.displays.display_board import FAILED_KEPT, DisplayBoard
from hardware.displays.errors import DisplayConfigError, DisplayUnavailableError, UnknownScreenError
from hardware.displays.i2c_bus import BusPool
from hardware.displays.luma_open import open_display, open_displays
from hardware.displays.model import Clock
from hardware.displays.push import RecordingInterface
from hardware.displays.screens import render
from hardware.displays.settings import ScreenConfig, ScreenRole
from hardware.displays.view_json import EXAMPLE_STATE, load_view
from tests.hardware.displays.helpers import FakeSMBus, Sh1106Ram, Ssd1306Ram

pytestmark = [
    pytest.mark.timeout(30),
    # luma.oled's drivers call Image.getdata(), deprecated in Pillow 13: luma's, not ours
    pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning"),
]

VIEW = dataclasses.replace(load_view(EXAMPLE_STATE), faults=(), prompt=None)


def _pool(bus: FakeSMBus) -> BusPool:
    def opener(number: int) -> Any:
        if number != 1:
            raise FileNotFoundError(errno.ENOENT, "No such file", f"/dev/i2c-{number}")
        return bus

    return BusPool(opener)


def test_defaults_are_the_config_schema_defaults_and_where_names_the_wiring() -> None:
    schema = ScreenConfig(role=ScreenRole.TURN)
    cfg = DisplayConfig("main")
    assert (cfg.driver, cfg.interface, cfg.width, cfg.height) == (
        schema.driver.value,
        schema.interface.value,
        schema.width,
        schema.height,
    )
    assert (cfg.bus, cfg.address, cfg.gpio_dc, cfg.gpio_rst) == (
        schema.bus,
        schema.address,
        schema.gpio_dc,
        schema.gpio_reset,
    )
    assert cfg.screen == "turn"
    seat = DisplayConfig("seat0", driver="sh1106", height=32, mux_channel=2, screen="seat:0")
    assert seat.where() == (
        "display 'seat0' (sh1106 128x32) on I2C bus 1 at address 0x3C "
        "behind TCA9548A 0x70 channel 2"
    )


def test_settings_this_package_cannot_use_are_refused() -> None:
    with pytest.raises(DisplayConfigError, match="driver 'ssd1351' is not one of ssd1306"):
        DisplayConfig("a", driver="ssd1351")
    with pytest.raises(DisplayConfigError, match="interface 'usb' is not one of i2c, spi"):
        DisplayConfig("a", interface="usb")
    with pytest.raises(UnknownScreenError, match="scores"):
        DisplayConfig("a", screen="scores")


def test_two_displays_on_one_bus_get_their_own_bytes() -> None:
    bus = FakeSMBus({None: {0x3C, 0x3D}})
    cfgs = [
        DisplayConfig("left", address=0x3C),
        DisplayConfig("right", address=0x3D, screen="teams"),
    ]
    opened, failed = open_displays(cfgs, _pool(bus))
    assert failed == [] and [d.config.name for d in opened] == ["left", "right"]
    bus.writes.clear()
    with DisplayBoard(opened) as board:
        assert board.update(VIEW) == 2
        assert {a for a, _, _ in bus.writes} == {0x3C, 0x3D}
        assert all(len(data) <= 32 for _, _, data in bus.writes)
        assert board.update(VIEW) == 0  # nothing changed: nothing sent
    assert all(d.closed for d in opened)


def test_tca9548a_selects_the_channel_before_each_transfer() -> None:
    # two displays with the same address, on channels 0 and 3 of a mux at 0x71
    bus = FakeSMBus({0: {0x3C}, 3: {0x3C}}, muxes={0x71})
    cfgs = [
        DisplayConfig("a", mux_address=0x71, mux_channel=0),
        DisplayConfig("b", mux_address=0x71, mux_channel=3, screen="teams"),
    ]
    opened, failed = open_displays(cfgs, _pool(bus))
    assert failed == []
    bus.mux_writes.clear()
    board = DisplayBoard(opened)
    board.update(VIEW)
    # each display's frame: a command then the data, each preceded by its channel mask
    assert bus.mux_writes == [(0x71, 0b0001)] * 2 + [(0x71, 0b1000)] * 2


def test_missing_display_is_named_and_the_others_go_on() -> None:
    bus = FakeSMBus({None: {0x3C}})
    cfgs = [DisplayConfig("left", address=0x3C), DisplayConfig("right", address=0x3D)]
    opened, failed = open_displays(cfgs, _pool(bus))
    assert [d.config.name for d in opened] == ["left"]
    [error] = failed
    assert "display 'right' (ssd1306 128x64) on I2C bus 1 at address 0x3D" in str(error)
    assert "no answer" in str(error) and "i2cdetect" in str(error)


def test_missing_bus_permission_and_mux_errors() -> None:
    bus = FakeSMBus({None: {0x3C}})
    _, [no_bus] = open_displays([DisplayConfig("x", bus=7)], _pool(bus))
    assert "I2C bus 7 not found (/dev/i2c-7)" in str(no_bus)

    def denied(number: int) -> Any:
        raise PermissionError(errno.EACCES, "Permission denied", f"/dev/i2c-{number}")

    _, [perm] = open_displays([DisplayConfig("y")], BusPool(denied))
    assert "display 'y'" in str(perm) and "permission denied on I2C bus 1" in str(perm)
    assert "'i2c' group" in str(perm)
    _, [mux] = open_displays([DisplayConfig("z", mux_channel=1)], _pool(bus))
    assert "TCA9548A multiplexer not answering on I2C bus 1 at address 0x70" in str(mux)
    assert "display 'z'" in str(mux)


class _FailingDataBus(FakeSMBus):
    """A bus whose screen takes its commands but whose data writes fail with EIO, as the
    Pi's I2C controller reports a transfer it could not finish (a clock-stretch timeout,
    a loose or long wire), not a NACK (EREMOTEIO)."""

    def write_i2c_block_data(self, address: int, register: int, data: Sequence[int]) -> None:
        if register == 0x40:  # SSD1306 data, after the commands
            raise OSError(errno.EIO, "Input/output error")
        super().write_i2c_block_data(address, register, data)


def test_an_io_error_setting_a_screen_up_points_at_the_wiring() -> None:
    """luma.core 2.6.0 lets an I2C data write's OSError through as it is: EIO is the bus failing
    the screen, said as no answer, with the wiring and address hint."""
    _, [error] = open_displays([DisplayConfig("left")], _pool(_FailingDataBus({None: {0x3C}})))
    assert "display 'left'" in str(error) and "Input/output error" in str(error)
    assert "no answer" in str(error) and "i2cdetect" in str(error)


def test_spi_without_hardware_names_port_and_pins() -> None:
    cfg = DisplayConfig("spi", interface="spi", gpio_dc=23, gpio_rst=24)
    with pytest.raises(
        DisplayUnavailableError, match=r"SPI port 0 device 0 \(DC GPIO23, RST GPIO24\)"
    ):
        open_display(cfg, BusPool())


def test_a_display_that_drops_off_mid_game_is_removed() -> None:
    bus = FakeSMBus({None: {0x3C, 0x3D}})
    opened, _ = open_displays(
        [DisplayConfig("left", address=0x3C), DisplayConfig("right", address=0x3D)], _pool(bus)
    )
    board = DisplayBoard(opened)
    board.update(VIEW)
    bus.present[None].discard(0x3D)  # unplugged
    later = dataclasses.replace(VIEW, clock=Clock(round_no=3, rounds=10, seconds_left=1000))
    board.update(later)
    assert [d.config.name for d in board.displays] == ["left"]
    [error] = board.failed
    assert "display 'right'" in str(error) and "0x3D" in str(error)


def test_a_connector_that_flaps_all_evening_keeps_only_its_last_failures() -> None:
    """A display dropping off and coming back again and again is said each time, but only
    the last FAILED_KEPT failures are kept: the list does not grow for the whole evening."""
    bus = FakeSMBus({None: {0x3C, 0x3D}})
    board = DisplayBoard.open(
        [DisplayConfig("left", address=0x3C), DisplayConfig("right", address=0x3D)], _pool(bus)
    )
    drops = FAILED_KEPT + 5
    for n in range(drops):
        bus.present[None].discard(0x3D)
        board.update(dataclasses.replace(VIEW, clock=Clock(3, 10, 100 + n)))
        bus.present[None].add(0x3D)
        assert board.reopen() == ["right"]
    assert len(board.failed) == FAILED_KEPT
    assert all("display 'right'" in str(e) for e in board.failed)
    board.close()


def test_open_display_with_a_recording_serial_interface() -> None:
    rec = RecordingInterface()
    display = open_display(DisplayConfig("bench"), BusPool(), serial=rec)
    ram = Ssd1306Ram()
    display.update(VIEW)
    ram.feed(rec.calls)
    assert ram.image().tobytes() == render(VIEW, "turn").tobytes()
    assert display.bytes_sent == sum(len(p) for _, p in rec.calls)
    assert display.last_screen == "turn"


def test_dummy_and_capture_emulator(tmp_path: Path) -> None:
    dummy_display = open_display(DisplayConfig("d", driver="dummy", height=32), BusPool())
    dummy_display.update(VIEW)
    assert dummy_display.device.image.tobytes() == render(VIEW, "turn", (128, 32)).tobytes()
    assert dummy_display.bytes_sent == 0
    template = str(tmp_path / "frame_{0:03}.png")
    cap = open_display(DisplayConfig("c", driver="capture", output=template), BusPool())
    cap.update(VIEW)
    cap.update(VIEW)  # unchanged: no second PNG
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frame_001.png"]


def test_missing_displays_become_faults_and_come_back_when_replugged(
    caplog: pytest.LogCaptureFixture,
) -> None:
    bus = FakeSMBus({None: {0x3C}})
    cfgs = [DisplayConfig("left", address=0x3C), DisplayConfig("right", address=0x3D)]
    board = DisplayBoard.open(cfgs, _pool(bus))
    assert [d.config.name for d in board.displays] == ["left"]
    [fault] = board.faults()
    assert fault.source == "display" and "display 'right'" in fault.message
    assert board.reopen() == []  # still absent
    bus.present[None].add(0x3D)  # plugged back in
    assert board.reopen() == ["right"]
    assert board.faults() == () and board.update(VIEW) == 2
    # it drops off again mid-game: said in the log as it happens, missing again, then back
    bus.present[None].discard(0x3D)
    with caplog.at_level(logging.WARNING, logger="hardware.displays.display_board"):
        board.update(dataclasses.replace(VIEW, clock=Clock(round_no=3, rounds=10, seconds_left=9)))
    [said] = [r.getMessage() for r in caplog.records]
    assert said.startswith("display 'right' stopped answering: display 'right' (ssd1306")
    assert [f.message.split(" (")[0] for f in board.faults()] == ["display 'right'"]
    bus.present[None].add(0x3D)
    assert board.reopen() == ["right"]
    board.close()


def test_a_mux_that_stops_answering_is_named_with_the_display() -> None:
    bus = FakeSMBus({0: {0x3C}}, muxes={0x70})
    board = DisplayBoard.open([DisplayConfig("seat0", mux_channel=0)], _pool(bus))
    board.update(VIEW)
    bus.muxes.clear()  # the mux lost power
    board.update(dataclasses.replace(VIEW, clock=Clock(round_no=3, rounds=10, seconds_left=5)))
    [error] = board.failed
    assert str(error).startswith(
        "display 'seat0' (ssd1306 128x64) on I2C bus 1 at address 0x3C behind TCA9548A 0x70 "
        "channel 0: TCA9548A multiplexer not answering on I2C bus 1 at address 0x70"
    )
    assert board.displays == []


def test_a_screen_that_lost_power_is_lit_and_drawn_again_by_a_refresh() -> None:
    """luma.oled 3.16.0 sends the init sequence and DISPLAYON only in ``ssd1306.__init__``:
    a screen reset by a power blip stayed dark, its memory blank, while every write to it
    succeeded. A refresh sends the same sequence again, without luma's blank frame, and
    the last view whole."""
    rec = RecordingInterface()
    board = DisplayBoard([open_display(DisplayConfig("bench"), BusPool(), serial=rec)])
    board.update(VIEW)
    start = len(rec.calls)
    board.update(VIEW)
    assert len(rec.calls) == start  # nothing changed, nothing sent
    ram = Ssd1306Ram()  # the power-on reset: a blank memory, the panel off
    assert board.refresh() == 1
    again = rec.calls[start:]
    ram.feed(again)
    assert ram.image().tobytes() == render(VIEW, "turn").tobytes()
    commands = [c for kind, payload in again if kind == "command" for c in payload]
    assert 0xAF in commands and 0x8D in commands  # display on, its charge pump
    assert sum(len(p) for kind, p in again if kind == "data") == 128 * 64 // 8  # no blank


def test_a_refresh_lights_one_screen_in_turn() -> None:
    """A whole frame of every screen at once holds the loop (some 400 ms for four at
    100 kHz): each refresh takes the next screen."""
    recs = [RecordingInterface(), RecordingInterface()]
    board = DisplayBoard(
        [
            open_display(DisplayConfig(name), BusPool(), serial=r)
            for name, r in zip("ab", recs, strict=True)
        ]
    )
    board.update(VIEW)
    sent = [len(r.calls) for r in recs]
    assert board.refresh() == 1 and len(recs[0].calls) > sent[0] and len(recs[1].calls) == sent[1]
    sent = [len(r.calls) for r in recs]
    assert board.refresh() == 1 and len(recs[0].calls) == sent[0] and len(recs[1].calls) > sent[1]


def test_an_sh1106_display_is_driven_as_an_sh1106() -> None:
    """``driver = "sh1106"`` opens luma's sh1106 driver: its page addressing lands the frame
    in the 132-column RAM (an SSD1306's window commands would scramble it)."""
    rec = RecordingInterface()
    display = open_display(DisplayConfig("seat", driver="sh1106"), BusPool(), serial=rec)
    display.update(VIEW)
    ram = Sh1106Ram()
    ram.feed(rec.calls)
    assert ram.image().tobytes() == render(VIEW, "turn").tobytes()


def test_a_display_without_alerts_keeps_the_fight_through_a_question_and_faults() -> None:
    """A combat display (``alerts = false``) keeps showing the fight while a prompt and
    faults take over the others."""
    full = load_view(EXAMPLE_STATE)  # an open question and an active fault
    assert full.prompt is not None and full.faults
    fight = open_display(
        DisplayConfig("fight", driver="dummy", screen="combat", alerts=False), BusPool()
    )
    turn = open_display(DisplayConfig("turn", driver="dummy"), BusPool())
    fight.update(full)
    turn.update(full)
    assert (fight.last_screen, turn.last_screen) == ("combat", "prompt")
    assert fight.device.image.tobytes() == render(full, "combat").tobytes()


def test_displays_on_one_bus_share_one_open_bus() -> None:
    """Each I2C bus is opened once for all its displays, and closed with the board."""
    bus = FakeSMBus({None: {0x3C, 0x3D}})
    opened: list[int] = []

    def opener(number: int) -> Any:
        opened.append(number)
        return bus

    board = DisplayBoard.open(
        [DisplayConfig("left", address=0x3C), DisplayConfig("right", address=0x3D)],
        BusPool(opener),
    )
    assert len(board.displays) == 2 and opened == [1]
    board.close()
    assert bus.closed


def test_a_board_opened_with_a_display_missing_reports_it_as_failed() -> None:
    """What failed as the board opened is in ``failed`` (as a display that drops off later
    is), naming the display."""
    board = DisplayBoard.open(
        [DisplayConfig("left", address=0x3C), DisplayConfig("right", address=0x3D)],
        _pool(FakeSMBus({None: {0x3C}})),
    )
    [error] = board.failed
    assert "display 'right'" in str(error) and "0x3D" in str(error)
    board.close()


def test_a_missing_display_says_why_it_is_missing_now_not_why_it_was() -> None:
    """A display retried that fails for another reason (its bus found, now refused) is
    shown with the new reason: the fault tells the owner what to fix now."""
    errors: list[OSError] = [
        FileNotFoundError(errno.ENOENT, "No such file", "/dev/i2c-1"),
        PermissionError(errno.EACCES, "Permission denied", "/dev/i2c-1"),
    ]

    def opener(number: int) -> Any:
        raise errors.pop(0)

    board = DisplayBoard.open([DisplayConfig("x")], BusPool(opener))
    assert "I2C bus 1 not found" in str(board.missing_by_name["x"])
    assert board.reopen() == []
    [fault] = board.faults()
    assert "permission denied on I2C bus 1" in fault.message and "not found" not in fault.message


def test_a_refresh_before_any_view_lights_the_screen_and_draws_no_frame() -> None:
    """Before the first view there is nothing to draw: the screen gets its start-up
    commands, no frame, and the refresh says none was sent."""
    rec = RecordingInterface()
    board = DisplayBoard([open_display(DisplayConfig("bench"), BusPool(), serial=rec)])
    rec.clear()
    assert board.refresh() == 0
    assert 0xAF in [c for kind, payload in rec.calls if kind == "command" for c in payload]
    assert [k for k, _ in rec.calls if k == "data"] == []


def test_a_screen_mounted_upside_down_stays_so_after_a_refresh() -> None:
    """A refresh sends the start-up commands again with the display's own ``rotate``: a
    screen mounted upside down (``rotate = 2``) is not redrawn the wrong way up."""
    rec = RecordingInterface()
    board = DisplayBoard([open_display(DisplayConfig("flip", rotate=2), BusPool(), serial=rec)])
    board.update(VIEW)
    start = len(rec.calls)
    assert board.refresh() == 1
    ram = Ssd1306Ram()
    ram.feed(rec.calls[start:])
    assert ram.image().tobytes() == render(VIEW, "turn").rotate(180).tobytes()
