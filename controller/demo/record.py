"""What the demo keeps of the table as it plays: its screens for a GIF, the throws' latency.

:class:`ScreenRecorder` is a view sink after the displays (any kind of table): it
keeps every distinct picture of the screens, side by side. :class:`LatencyProbe`
times each settled throw from the reader's report (its event put on the loop's
queue, which the probe gives the loop) to the screens having drawn it (a handler of
the loop, after the table's, which draws).
"""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path
from typing import Any

from PIL import GifImagePlugin, Image, ImageChops

from controller.core.events import Event
from hardware.displays.companion import CompanionView
from hardware.displays.display_board import DisplayBoard
from hardware.displays.model import TableView
from vision.events import ThrowSettled

MAX_GIF_FRAMES = 600
GIF_FRAME_MS = 250


class ScreenRecorder:
    """Keeps every distinct picture of the table's screens, side by side, for a GIF (a view
    sink after the displays; any kind of table)."""

    def __init__(self, displays: DisplayBoard, limit: int = MAX_GIF_FRAMES) -> None:
        self.displays = displays
        self.limit = limit
        # each picture packed, one bit a pixel (its size, its bytes): Pillow holds a "1"
        # image at a byte a pixel, and 600 sheets of four screens were 19 MB of the demo
        self.frames: list[tuple[tuple[int, int], bytes]] = []
        self.pictures = 0  # distinct pictures shown, before any thinning for the GIF
        self._last: tuple[tuple[int, int], bytes] | None = None

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
        self.record(sheet)

    def record(self, sheet: Image.Image) -> None:
        """Keep ``sheet`` (a picture of the screens, converted to one bit a pixel) unless it
        is the picture kept last."""
        picture = (sheet.size, sheet.convert("1").tobytes())
        if picture == self._last:
            return
        self._last = picture
        self.pictures += 1
        self.frames.append(picture)
        if len(self.frames) > self.limit:
            self.frames = self.frames[::2]  # keep the whole game, at half the rate

    def save(self, path: Path, scale: int = 2) -> Path | None:
        """Write the animated GIF (None if nothing was shown).

        The GIF is written one frame at a time (Pillow 13's ``GifImagePlugin.getheader`` and
        ``getdata``): ``Image.save(save_all=True)`` keeps a full-size copy of every frame until
        it writes the file (``_write_multiple_frames``' ``im_frames``), which made the demo's
        peak memory grow with the length of the game. Each frame after the first holds only
        the part of the screens that changed.

        Raises:
            OSError: the file cannot be written.
        """
        if not self.frames:
            return None
        path.parent.mkdir(parents=True, exist_ok=True)
        first = _enlarged(_unpacked(self.frames[0]), scale)
        header, _ = GifImagePlugin.getheader(first, None, {"loop": 0, "duration": GIF_FRAME_MS})
        with path.open("wb") as gif:
            gif.writelines(header)
            gif.writelines(GifImagePlugin.getdata(first, (0, 0), duration=GIF_FRAME_MS))
            previous = first
            for picture in self.frames[1:]:
                big = _enlarged(_unpacked(picture), scale)
                changed = ImageChops.difference(previous, big).getbbox()
                previous = big
                if changed is None:
                    continue  # equal once enlarged: the previous picture simply stays
                part = big.crop(changed)
                gif.writelines(GifImagePlugin.getdata(part, changed[:2], duration=GIF_FRAME_MS))
            gif.write(b";")  # the GIF trailer
        return path


def _unpacked(picture: tuple[tuple[int, int], bytes]) -> Image.Image:
    size, packed = picture
    return Image.frombytes("1", size, packed)


def _enlarged(frame: Image.Image, scale: int) -> Image.Image:
    """``frame`` in grey levels, each pixel ``scale`` x ``scale`` (screens are small)."""
    return frame.convert("L").resize(
        (frame.width * scale, frame.height * scale), Image.Resampling.NEAREST
    )


class LatencyProbe:
    """Times each settled throw from the reader's report to the screens having drawn it.

    The loop reads its events from :attr:`queue`, which notes when each
    :class:`~vision.events.ThrowSettled` is put on it (the reader's report, on the
    camera's thread); :meth:`on_settled`, registered after the table's handler, takes
    the time once the table has drawn it.
    """

    def __init__(self) -> None:
        self.samples_ms: list[float] = []
        self._reported: dict[float, float] = {}  # the event's frame time -> when it was put
        self._lock = threading.Lock()
        self.queue: queue.Queue[Event] = _Noting(self._noted)

    def _noted(self, event: Event) -> None:
        if isinstance(event, ThrowSettled):
            with self._lock:
                self._reported[event.timestamp] = time.perf_counter()

    def on_settled(self, event: ThrowSettled) -> None:
        """The table has taken (and drawn) ``event``."""
        with self._lock:
            reported = self._reported.pop(event.timestamp, None)
        if reported is not None:
            self.samples_ms.append((time.perf_counter() - reported) * 1000)

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


class _Noting(queue.Queue[Event]):
    """A queue that tells ``noted`` of each event put on it (on the putting thread)."""

    def __init__(self, noted: Any) -> None:
        super().__init__()
        self._noted = noted

    def put(self, item: Event, block: bool = True, timeout: float | None = None) -> None:
        self._noted(item)
        super().put(item, block, timeout)
