"""The camera thread at the table: what a live camera's first still tray is, and a reading
that fails in a way nobody planned for (review "throws" f05, review "threads" f01)."""

from __future__ import annotations

import queue
from typing import Any

import pytest
from numpy.typing import NDArray

from controller.core.events import Event
from controller.core.symbols import Symbol
from vision.events import CameraLost, CameraRestored, ThrowSettled
from vision.reading import reader as reader_module
from vision.reading.model import FaceModel
from vision.reading.reader import CameraWorker, DiceReader
from vision.settings import CameraSource
from vision.sources.source import CameraConfig
from vision.synth.scenes import Renderer, Settings

WIDTH, HEIGHT = 640, 480


def _drain(q: queue.Queue[Event]) -> list[Event]:
    out = []
    while not q.empty():
        out.append(q.get_nowait())
    return out


class _Frames:
    """Gives its frames in order, then ends the recording."""

    name = "frames"

    def __init__(self, frames: list[NDArray[Any]]) -> None:
        self.frames = frames

    def read(self) -> NDArray[Any] | None:
        return self.frames.pop(0) if self.frames else None

    def close(self) -> None:
        pass


def _run(
    model: FaceModel, scripts: list[list[NDArray[Any]]], baseline_at_open: bool
) -> list[Event]:
    q: queue.Queue[Event] = queue.Queue()
    ticks = iter(range(1000))
    worker = CameraWorker(
        CameraConfig(kind=CameraSource.V4L2, device="/dev/video0"),
        DiceReader(model, q, expect=2),
        retry_s=0.01,
        opener=lambda c: _Frames(scripts.pop(0) if scripts else []),  # then it ends
        clock=lambda: float(next(ticks)),
        baseline_at_open=baseline_at_open,
    )
    with worker:
        assert worker.finished.wait(20)
    return _drain(q)


@pytest.mark.timeout(30)
def test_a_live_cameras_first_still_tray_is_no_throw(model: FaceModel) -> None:
    """The daemon restarted mid-game: the dice lying in the tray were read or entered
    already; its first still frames were taken for a throw (a second, identical one)."""
    r = Renderer(Settings(width=WIDTH, height=HEIGHT), seed=5)
    lying = r.render(r.place([Symbol.STAR, Symbol.KICK]))
    thrown = r.render(r.place([Symbol.PUNCH, Symbol.SPHERE]))
    frames = [lying] * 6 + [thrown] * 6
    events = _run(model, [list(frames)], baseline_at_open=True)
    throws = [e for e in events if isinstance(e, ThrowSettled)]
    assert len(throws) == 1 and throws[0].moved
    assert sorted(f or "" for f in throws[0].faces) == ["punch", "sphere"]
    # a recording is read from its first frame: its first still tray is a throw
    events = _run(model, [list(frames)], baseline_at_open=False)
    assert len([e for e in events if isinstance(e, ThrowSettled)]) == 2


@pytest.mark.timeout(30)
def test_a_reading_that_fails_unplanned_is_a_lost_camera_tried_again(
    model: FaceModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A MemoryError (or a bug) while reading a frame ended the camera thread unheard: no
    CameraLost, so the table never offered the dice by hand and waited for ever. One that
    comes again on each reopening keeps the camera lost (it was said back at each, and
    the dice being entered by hand were wiped: review diff14 f01)."""
    r = Renderer(Settings(width=WIDTH, height=HEIGHT), seed=5)
    empty = r.render([])
    thrown = r.render(r.place([Symbol.PUNCH, Symbol.SPHERE]))
    feed = DiceReader.feed
    failures = [MemoryError] * 3

    def failing(self: DiceReader, frame: NDArray[Any], timestamp: float) -> Any:
        if failures:
            raise failures.pop()
        return feed(self, frame, timestamp)

    monkeypatch.setattr(DiceReader, "feed", failing)
    scripts = [[empty], [empty], [empty], [empty] * 5 + [thrown] * 6]
    events = _run(model, scripts, baseline_at_open=False)
    kinds = [type(e) for e in events]
    assert kinds == [CameraLost, CameraRestored, ThrowSettled, CameraLost]  # then it ended
    lost = events[0]
    assert isinstance(lost, CameraLost) and "MemoryError" in lost.reason


@pytest.mark.timeout(30)
def test_a_reading_that_always_fails_keeps_the_camera_lost(
    model: FaceModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The frames before the tray settles went through, the camera was said back, then the
    read failed again: lost and back every retry, the dice entered by hand wiped each time
    (review diff15 f06)."""
    empty = Renderer(Settings(width=WIDTH, height=HEIGHT), seed=5).render([])

    def broken(*args: Any, **kw: Any) -> Any:
        raise IndexError("list index out of range")

    monkeypatch.setattr(reader_module, "read_frame", broken)
    events = _run(model, [[empty] * 6 for _ in range(3)], baseline_at_open=False)
    assert [type(e) for e in events] == [CameraLost]
