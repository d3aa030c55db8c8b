"""What the demo keeps of the table as it plays: its screens for a GIF, the throws' latency.

:class:`ScreenRecorder` is a view sink after the displays (any kind of table): it
keeps every distinct picture of the screens, side by side. :class:`LatencyProbe`
is a handler of the loop after the table's: from the frame the camera thread found
a throw settled in (the event's time stamp) to the screens having drawn it.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from PIL import Image

from hardware.displays.companion import CompanionView
from hardware.displays.display_board import DisplayBoard
from hardware.displays.model import TableView
from vision.events import ThrowSettled

MAX_GIF_FRAMES = 600


class ScreenRecorder:
    """Keeps every distinct picture of the table's screens, side by side, for a GIF (a view
    sink after the displays; any kind of table)."""

    def __init__(self, displays: DisplayBoard, limit: int = MAX_GIF_FRAMES) -> None:
        self.displays = displays
        self.limit = limit
        self.frames: list[Image.Image] = []
        self.pictures = 0  # distinct pictures shown, before any thinning for the GIF
        self._last: bytes = b""

    def update(self, view: TableView | CompanionView) -> None:
        """Grab the displays' pictures (after the displays drew ``view``)."""
        images = [getattr(d.device, "image", None) for d in self.displays.displays]
        shown = [im for im in images if im is not None]
        if not shown:
            return
        width = sum(im.width for im in shown) + 4 * (len(shown) - 1)
        sheet = Image.new("1", (width, max(im.height for im in shown)))
        x = 0
        for im in shown:
            sheet.paste(im.convert("1"), (x, 0))
            x += im.width + 4
        raw = sheet.tobytes()
        if raw == self._last:
            return
        self._last = raw
        self.pictures += 1
        self.frames.append(sheet)
        if len(self.frames) > self.limit:
            self.frames = self.frames[::2]  # keep the whole game, at half the rate

    def save(self, path: Path, scale: int = 2) -> Path | None:
        """Write the animated GIF (None if nothing was shown)."""
        if not self.frames:
            return None
        big = [
            f.convert("L").resize((f.width * scale, f.height * scale), Image.Resampling.NEAREST)
            for f in self.frames
        ]
        path.parent.mkdir(parents=True, exist_ok=True)
        big[0].save(path, save_all=True, append_images=big[1:], duration=250, loop=0)
        return path


class LatencyProbe:
    """Times each settled throw from the frame the camera thread found it settled in to the
    screens having drawn it: a handler of the loop, run after the table's (which draws)."""

    def __init__(self, clock: Any = time.monotonic) -> None:
        self.clock = clock  # the camera worker's clock (its events' timestamps)
        self.samples_ms: list[float] = []

    def on_settled(self, event: ThrowSettled) -> None:
        """The table has taken (and drawn) ``event``."""
        self.samples_ms.append((self.clock() - event.timestamp) * 1000)

    def figures(self) -> dict[str, float]:
        """Median, 95th percentile and worst latency in ms (empty if nothing was thrown)."""
        if not self.samples_ms:
            return {}
        xs = sorted(self.samples_ms)
        return {
            "median": round(xs[len(xs) // 2], 1),
            "p95": round(xs[min(len(xs) - 1, int(len(xs) * 0.95))], 1),
            "max": round(xs[-1], 1),
        }
