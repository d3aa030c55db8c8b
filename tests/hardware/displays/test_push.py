"""The real luma.oled drivers against a recording interface: the bytes sent show the frame."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
import pytest
from luma.core.device import dummy
from luma.oled.device import sh1106, ssd1306
from PIL import Image

from hardware.displays.model import Clock
from hardware.displays.push import (
    CountingInterface,
    RecordingInterface,
    ScreenPusher,
    page_bytes,
)
from hardware.displays.screens import render
from hardware.displays.view_json import EXAMPLE_STATE, load_view
from tests.hardware.displays.helpers import Sh1106Ram, Ssd1306Ram, reference_page_bytes

pytestmark = [
    pytest.mark.timeout(30),
    # luma.oled's drivers call Image.getdata(), deprecated in Pillow 13: luma's, not ours
    pytest.mark.filterwarnings("ignore:Image.Image.getdata is deprecated:DeprecationWarning"),
]

VIEW = load_view(EXAMPLE_STATE)


def _tick(seconds: int) -> Image.Image:
    view = dataclasses.replace(VIEW, clock=Clock(round_no=3, rounds=10, seconds_left=seconds))
    return render(view, "turn")


def test_page_bytes_match_the_pixel_by_pixel_oracle() -> None:
    image = render(VIEW, "combat")
    assert page_bytes(image).flatten().tolist() == reference_page_bytes(image)


def test_ssd1306_first_frame_is_the_whole_screen_in_page_bytes() -> None:
    rec = RecordingInterface()
    device = ssd1306(rec, width=128, height=64)
    rec.clear()
    image = render(VIEW, "combat")
    assert ScreenPusher(device).push(image)
    # luma's driver: one window command over the whole screen, then 1024 data bytes
    assert rec.calls == [
        ("command", (0x21, 0, 127, 0x22, 0, 7)),
        ("data", tuple(reference_page_bytes(image))),
    ]


@pytest.mark.parametrize(("height", "pages"), [(64, 8), (32, 4)])
def test_ssd1306_ram_shows_every_frame_pushed(height: int, pages: int) -> None:
    rec = RecordingInterface()
    device = ssd1306(rec, width=128, height=height)
    ram = Ssd1306Ram(128, height)
    pusher = ScreenPusher(device)
    frames = [render(VIEW, name, (128, height)) for name in ("turn", "combat", "options", "turn")]
    for frame in frames:
        rec.clear()
        pusher.push(frame)
        ram.feed(rec.calls)
        assert ram.image().tobytes() == frame.tobytes()
    assert ram.pages == pages


def test_a_clock_tick_sends_only_the_changed_window() -> None:
    rec = RecordingInterface()
    device = ssd1306(rec)
    ram = Ssd1306Ram()
    ram.feed(rec.calls)
    pusher = ScreenPusher(device)
    pusher.push(_tick(1754))
    ram.feed(rec.calls)
    rec.clear()
    assert pusher.push(_tick(1753))  # 29:14 -> 29:13: only the last digit changes
    ram.feed(rec.calls)
    assert ram.image().tobytes() == _tick(1753).tobytes()
    [(kind, cmd), (kind2, data)] = rec.calls
    assert kind == "command" and cmd[0] == 0x21 and cmd[3] == 0x22
    c0, c1, p0, p1 = cmd[1], cmd[2], cmd[4], cmd[5]
    assert (p0, p1) == (4, 5)  # the big clock sits on pages 4-5 (rows 32-47)
    assert kind2 == "data" and len(data) == (c1 - c0 + 1) * (p1 - p0 + 1) < 40


def test_an_unchanged_frame_sends_nothing() -> None:
    rec = RecordingInterface()
    counter = CountingInterface(rec)
    device = ssd1306(counter)
    pusher = ScreenPusher(device)
    pusher.push(_tick(100))
    sent = counter.bytes_sent
    rec.clear()
    assert not pusher.push(_tick(100))
    assert rec.calls == [] and counter.bytes_sent == sent
    assert (pusher.frames_pushed, pusher.frames_skipped) == (1, 1)


def test_counting_interface_counts_payload() -> None:
    counter = CountingInterface(RecordingInterface())
    device = ssd1306(counter)
    init = counter.bytes_sent
    ScreenPusher(device).push(_tick(5))
    assert counter.bytes_sent - init == 6 + 1024
    assert counter.data_bytes >= 2 * 1024  # the clear() at init, then our frame


def test_sh1106_windowed_updates_land_in_ram() -> None:
    rec = RecordingInterface()
    device = sh1106(rec)
    ram = Sh1106Ram()
    ram.feed(rec.calls)
    pusher = ScreenPusher(device)
    for frame in (_tick(1754), _tick(1753), render(VIEW, "teams"), _tick(60)):
        rec.clear()
        pusher.push(frame)
        ram.feed(rec.calls)
        assert ram.image().tobytes() == frame.tobytes()


class Luma315Sh1106(sh1106):  # type: ignore[misc]  # luma is untyped
    """luma.oled 3.12-3.15's sh1106: no ``_page_address_offset``; its ``display()`` starts
    every page at column 2 (``self.command(set_page_address, 0x02, 0x10)``)."""

    def display(self, image: Image.Image) -> None:
        self._page_address_offset = 0x02
        try:
            super().display(image)
        finally:
            del self._page_address_offset  # 3.16.0's attribute, absent before


def _columns(calls: list[tuple[str, tuple[int, ...]]]) -> set[int]:
    """The columns SH1106 page writes start at: (page, low nibble, high nibble) commands."""
    return {cmd[1] & 0x0F | (cmd[2] & 0x0F) << 4 for kind, cmd in calls if kind == "command"}


@pytest.mark.parametrize(
    "make", [Luma315Sh1106, sh1106, lambda s: sh1106(s, page_address_offset=4)]
)
def test_sh1106_partial_updates_start_where_luma_starts_full_frames(make: Any) -> None:
    rec = RecordingInterface()
    device = make(rec)
    pusher = ScreenPusher(device)
    ram = Sh1106Ram()
    ram.feed(rec.calls)
    rec.clear()
    pusher.push(_tick(1754))  # whole: luma's own display()
    [luma_column] = _columns(rec.calls)
    ram.feed(rec.calls)
    rec.clear()
    pusher.push(_tick(1753))  # one digit changed: our window
    ram.feed(rec.calls)
    changed = np.nonzero(page_bytes(_tick(1753)) != page_bytes(_tick(1754)))[1]
    assert _columns(rec.calls) == {luma_column + int(changed.min())}
    ram.OFFSET = luma_column  # a panel showing the columns luma writes to
    assert ram.image().tobytes() == _tick(1753).tobytes()


def test_rotated_ssd1306_gets_the_rotated_frame() -> None:
    rec = RecordingInterface()
    device = ssd1306(rec, rotate=2)
    ram = Ssd1306Ram()
    pusher = ScreenPusher(device)
    for frame in (_tick(10), _tick(9)):
        rec.clear()
        pusher.push(frame)
        ram.feed(rec.calls)
        assert ram.image().tobytes() == frame.rotate(180).tobytes()


def test_other_devices_get_whole_frames_only_when_changed() -> None:
    device = dummy(mode="1")
    pusher = ScreenPusher(device)
    assert pusher.push(_tick(3))
    assert not pusher.push(_tick(3))
    assert pusher.push(_tick(2))
    assert device.image.tobytes() == _tick(2).tobytes()
    pusher.forget()
    assert pusher.push(_tick(2))


def test_simulated_fight_sends_changes_only() -> None:
    from controller.bench.screens import fight, simulate

    views = fight(VIEW, seconds=5, hz=4)
    windowed = simulate(views, 5, windowed=True)
    whole = simulate(views, 5, windowed=False)
    # the clock display changes once a second, not at every 4 Hz tick
    assert windowed["per_display"]["turn"][1] == 5
    assert windowed["payload_per_s"] < whole["payload_per_s"] < 3 * 4 * 1030
