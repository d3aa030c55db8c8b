"""Send only what changed: compare each frame with the last one pushed.

:class:`ScreenPusher` keeps the display RAM contents it last sent (as SSD1306
page bytes: 8 vertical pixels per byte, least significant bit on top). A frame
whose bytes equal the last one sends nothing (a clock tick that changes no
pixel costs nothing). Otherwise, on an SSD1306 or SH1106 driven by luma.oled,
it sends only the window of pages and columns that changed, with the
controller's own addressing commands; any other device gets the whole frame
through its ``display()``. :class:`CountingInterface` counts the bytes that go
to the bus; :class:`RecordingInterface` is a serial interface that keeps every
call, for tests and the benchmark.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image

# SSD1306 / SH1106 command bytes used for windowed writes.
SSD1306_COLUMNADDR = 0x21
SSD1306_PAGEADDR = 0x22
SH1106_SET_PAGE = 0xB0
SH1106_LOW_COLUMN = 0x00
SH1106_HIGH_COLUMN = 0x10
# Where an SH1106's 128 visible columns start in its 132-column RAM. luma.oled 3.16.0
# keeps it in ``sh1106._page_address_offset`` (default 0x02, "Make page_address_offset
# configurable for SH1106 displays"); 3.12-3.15 have no such attribute and hardcode
# ``self.command(set_page_address, 0x02, 0x10)`` in ``sh1106.display()``.
LUMA_SH1106_COLUMN_OFFSET = 0x02


def page_bytes(image: Image.Image) -> NDArray[np.uint8]:
    """The display RAM for a 1-bit ``image``: shape (height // 8, width), LSB = top row.

    Raises:
        ValueError: the image height is not a multiple of 8.
    """
    w, h = image.size
    if h % 8:
        raise ValueError(f"image height {h} is not a multiple of 8")
    lit = np.asarray(image.convert("1"), dtype=np.uint8).reshape(h // 8, 8, w)
    weights = (1 << np.arange(8, dtype=np.uint8)).reshape(1, 8, 1)
    packed: NDArray[np.uint8] = (lit * weights).sum(axis=1).astype(np.uint8)
    return packed


class CountingInterface:
    """Wraps a luma serial interface and counts the command and data bytes sent through it."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.command_bytes = 0
        self.data_bytes = 0
        self.transfers = 0
        self.released = False
        self.keep_lines = False  # cleanup leaves the interface's pins as they are

    @property
    def bytes_sent(self) -> int:
        """Command plus data bytes so far (the payload, without I2C addressing)."""
        return self.command_bytes + self.data_bytes

    def command(self, *cmd: int) -> None:
        """Send command bytes and count them."""
        self.inner.command(*cmd)
        self.command_bytes += len(cmd)
        self.transfers += 1

    def data(self, data: Sequence[int]) -> None:
        """Send data bytes and count them."""
        self.inner.data(data)
        self.data_bytes += len(data)
        self.transfers += 1

    def cleanup(self) -> None:
        """Clean up the wrapped interface, once (later calls do nothing); with
        ``keep_lines``, not at all: its pins stay driven until the process exits."""
        if self.released:
            return
        self.released = True
        if not self.keep_lines:
            self.inner.cleanup()


@dataclass
class RecordingInterface:
    """A serial interface that sends nowhere and records every call, in order.

    ``calls`` holds ``("command", (bytes...))`` and ``("data", (bytes...))``.
    """

    calls: list[tuple[str, tuple[int, ...]]] = field(default_factory=list)
    cleaned_up: bool = False

    def command(self, *cmd: int) -> None:
        """Record command bytes."""
        self.calls.append(("command", tuple(int(c) for c in cmd)))

    def data(self, data: Sequence[int]) -> None:
        """Record data bytes."""
        self.calls.append(("data", tuple(int(b) for b in data)))

    def cleanup(self) -> None:
        """Record that the interface was cleaned up."""
        self.cleaned_up = True

    def clear(self) -> None:
        """Forget the calls recorded so far."""
        self.calls.clear()


def _kind(device: Any) -> str:
    """'ssd1306', 'sh1106' or 'other': how :class:`ScreenPusher` may address ``device``."""
    try:
        from luma.oled.device import sh1106, ssd1306
    except ImportError:  # pragma: no cover - luma.oled is a dependency
        return "other"
    if isinstance(device, ssd1306):
        return "ssd1306"
    if isinstance(device, sh1106):
        return "sh1106"
    return "other"


class ScreenPusher:
    """Pushes frames to one luma device, sending only what changed since the last push.

    ``windowed=False`` sends every changed frame whole (through ``display()``).
    """

    def __init__(self, device: Any, windowed: bool = True) -> None:
        self.device = device
        self.kind = _kind(device) if windowed else "other"
        self._last: NDArray[np.uint8] | None = None
        self._last_image: bytes | None = None
        self.frames_pushed = 0
        self.frames_skipped = 0

    def forget(self) -> None:
        """Forget what the display shows (after a reset or reconnect): the next push is whole."""
        self._last = None
        self._last_image = None

    def push(self, image: Image.Image) -> bool:
        """Show ``image`` (the device's size and mode); return False if nothing had to be sent.

        Raises:
            luma.core.error.Error, OSError: from the device (e.g. it left the bus).
        """
        if self.kind == "other":
            raw = image.tobytes()
            if raw == self._last_image:
                self.frames_skipped += 1
                return False
            self.device.display(image)
            self._last_image = raw
            self.frames_pushed += 1
            return True
        native = self.device.preprocess(image)
        ram = page_bytes(native)
        last = self._last
        if last is not None and np.array_equal(ram, last):
            self.frames_skipped += 1
            return False
        if last is None:
            self.device.display(image)
        else:
            self._send_window(ram, last)
        self._last = ram
        self.frames_pushed += 1
        return True

    def _send_window(self, ram: NDArray[np.uint8], last: NDArray[np.uint8]) -> None:
        pages, cols = np.nonzero(ram != last)
        p0, p1 = int(pages.min()), int(pages.max())
        c0, c1 = int(cols.min()), int(cols.max())
        window = ram[p0 : p1 + 1, c0 : c1 + 1]
        if self.kind == "ssd1306":
            start = int(getattr(self.device, "_colstart", 0))
            self.device.command(
                SSD1306_COLUMNADDR, start + c0, start + c1, SSD1306_PAGEADDR, p0, p1
            )
            self.device.data(window.flatten().tolist())
            return
        # the column luma's own display() starts each page at, so both land alike
        offset = int(getattr(self.device, "_page_address_offset", LUMA_SH1106_COLUMN_OFFSET))
        col = offset + c0
        for i, page in enumerate(range(p0, p1 + 1)):
            self.device.command(
                SH1106_SET_PAGE | page,
                SH1106_LOW_COLUMN | (col & 0x0F),
                SH1106_HIGH_COLUMN | (col >> 4),
            )
            self.device.data(window[i].tolist())
