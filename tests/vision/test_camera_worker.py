"""The camera thread at the table: what a live camera's first still tray is, and a reading
that fails in a way nobody planned for (review "throws" f05, review "threads" f01)."""

from __future__ import annotations

import queue
from typing import Any

import pytest
from numpy.typing import NDArray

from controller.core.events import Event
from controller.core.symbols import Symbol
from vision.errors import CameraError
from vision.events import CameraLost, CameraRestored, FrameUnreadable, ThrowSettled
from vision.reading import read as read_module
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


@pytest.mark.timeout(30)
def test_a_frame_the_reading_refuses_with_a_value_error_is_skipped_not_a_lost_camera(
    model: FaceModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A frame whose numbers the pipeline refuses (a ValueError: odd data) is one unreadable
    frame; the camera is not said lost for it, and the throw after it is read."""
    r = Renderer(Settings(width=WIDTH, height=HEIGHT), seed=5)
    empty = r.render([])
    thrown = r.render(r.place([Symbol.PUNCH, Symbol.SPHERE]))
    real = read_module.read_frame
    failures = [ValueError("operands could not be broadcast together")]

    def read_frame(*args: Any, **kw: Any) -> Any:
        if failures:
            raise failures.pop()
        return real(*args, **kw)

    monkeypatch.setattr(reader_module, "read_frame", read_frame)
    events = _run(model, [[empty] * 5 + [thrown] * 6], baseline_at_open=False)
    kinds = [type(e) for e in events]
    assert kinds == [FrameUnreadable, ThrowSettled, CameraLost]  # lost: the recording ended
    assert isinstance(events[-1], CameraLost) and events[-1].reason == "end of the recording"


@pytest.mark.timeout(30)
def test_a_camera_lost_says_the_source_s_own_words(model: FaceModel) -> None:
    """The table shows why the camera is lost: a source's CameraError is its message as it
    is (one line for the screen), not the exception's repr."""
    why = "/dev/video9: cannot open it as a V4L2 camera: no such device (unplugged)"

    def opener(config: CameraConfig) -> _Frames:
        raise CameraError(why)

    q: queue.Queue[Event] = queue.Queue()
    worker = CameraWorker(CameraConfig(kind=CameraSource.V4L2, device="/dev/video9"),
                          DiceReader(model, q), retry_s=0.01, opener=opener)  # fmt: skip
    with worker:
        lost = q.get(timeout=10)
    assert isinstance(lost, CameraLost) and lost.reason == why


@pytest.mark.timeout(30)
def test_an_idle_rate_of_zero_never_slows_the_camera(model: FaceModel) -> None:
    """``idle_fps`` 0 turns the idle pace off: a quiet tray is read at the camera's rate,
    through to the end of the recording."""
    empty = Renderer(Settings(width=WIDTH, height=HEIGHT), seed=5).render([])
    q: queue.Queue[Event] = queue.Queue()
    worker = CameraWorker(CameraConfig(kind=CameraSource.V4L2, device="/dev/video0"),
                          DiceReader(model, q), opener=lambda c: _Frames([empty] * 8),
                          idle_fps=0.0, idle_after=2)  # fmt: skip
    with worker:
        assert worker.finished.wait(20)
    events = _drain(q)
    assert worker.frames == 8 and [type(e) for e in events] == [CameraLost]
    assert isinstance(events[0], CameraLost) and events[0].reason == "end of the recording"


@pytest.mark.timeout(30)
def test_a_driver_failure_at_every_retry_is_logged_with_its_traceback_once(
    model: FaceModel, caplog: pytest.LogCaptureFixture
) -> None:
    """A camera that fails to open the same way at every retry fills no log: its traceback
    is logged the first time only."""
    tries = iter(range(4))

    def opener(config: CameraConfig) -> _Frames:
        if next(tries) < 3:
            raise OSError(19, "No such device")
        return _Frames([])  # then it opens, and the recording ends

    q: queue.Queue[Event] = queue.Queue()
    worker = CameraWorker(CameraConfig(kind=CameraSource.V4L2, device="/dev/video0"),
                          DiceReader(model, q), retry_s=0.01, opener=opener)  # fmt: skip
    with worker:
        assert worker.finished.wait(20)
    said = [r for r in caplog.records if "No such device" in r.getMessage()]
    assert len(said) == 1 and said[0].exc_info is not None
