"""The reader the table loop uses: frames in, one typed event per settled throw out."""

from __future__ import annotations

import queue
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
from numpy.typing import NDArray

from controller.core.events import Event
from controller.core.symbols import Symbol
from vision.errors import CameraError, ConfigError
from vision.events import CameraLost, CameraRestored, FrameUnreadable, ThrowSettled, TrayObstructed
from vision.learning.evaluate import match
from vision.reading import read
from vision.reading import reader as reader_module
from vision.reading.evidence import read_boxes
from vision.reading.model import FaceModel
from vision.reading.reader import CameraWorker, DiceReader
from vision.settings import CameraSource
from vision.sources.source import CameraConfig, FolderSource, SyntheticSource, open_source
from vision.synth.scenes import Renderer, Settings
from vision.synth.throws import Throw, render_throws


def _drain(q: queue.Queue[Event]) -> list[Event]:
    out = []
    while not q.empty():
        out.append(q.get_nowait())
    return out


THROWS = [
    Throw((Symbol.KICK, Symbol.PUNCH, Symbol.STAR, Symbol.STAR, Symbol.SPHERE, Symbol.TELEPORT)),
    Throw((Symbol.KICK, Symbol.STRENGTH, Symbol.PUNCH), kept=(0, 2, 3)),  # keeps kick, star, star
    Throw((Symbol.SPHERE,), kept=(0, 1, 2, 3, 4)),
]


# frames of 640x480: what is tested is the reader, not the frame size (rendering 45 frames
# of 1280x960 took three times as long)
WIDTH, HEIGHT = 640, 480


@pytest.mark.timeout(60)
def test_one_event_per_settled_throw_with_kept_dice(model: FaceModel, tmp_path: Path) -> None:
    frames = render_throws(
        THROWS, Renderer(Settings(hard=True, width=WIDTH, height=HEIGHT), seed=21)
    )
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(model, q, expect=6, evidence_dir=tmp_path / "evidence")
    for f in frames:
        reader.feed(f.image, f.t)
    events = _drain(q)
    assert [type(e) for e in events] == [ThrowSettled] * 3
    settled = [f for f in frames if f.settled]
    truths = [settled[0].dice, settled[1 * 8].dice, settled[2 * 8].dice]
    for n, (event, truth) in enumerate(zip(events, truths, strict=True), start=1):
        assert isinstance(event, ThrowSettled)
        assert event.roll_no == n and event.face_set == "top-synthetic"
        # a die pressed against another may be flagged unsure (the table then asks);
        # none is cocked, the count is right, and every face (unsure or not) is right
        assert not event.cocked and not event.count_mismatch and len(event.unsure) <= 1
        pairs = match([d.box() for d in truth], list(event.boxes))
        assert len(pairs) == 6
        assert all(event.faces[j] == truth[i].symbol.value for i, j in pairs)
        assert event.evidence_path is not None and Path(event.evidence_path).is_file()
        # beside the frame, where its dice lay and what was read: a played throw to learn from
        kept_boxes = read_boxes(event.evidence_path)
        assert kept_boxes.size == (WIDTH, HEIGHT) and kept_boxes.read == event.faces
        assert np.allclose(kept_boxes.boxes, event.boxes, atol=0.01)
        # kept dice are the first len(kept) truth dice of the throw
        kept_truth = {i for i in range(len(THROWS[n - 1].kept))}
        assert set(event.kept) == {j for i, j in pairs if i in kept_truth}
        assert set(event.rerolled) == set(range(6)) - set(event.kept)
    assert [e.speed for e in events if isinstance(e, ThrowSettled)] == [
        "lightning", "surprise", "normal"]  # fmt: skip
    first = events[0]
    assert isinstance(first, ThrowSettled)
    assert sorted(s.value for s in first.symbols() if s) == sorted(s.value for s in THROWS[0].faces)


def test_empty_tray_and_hand_give_no_throw(model: FaceModel) -> None:
    r = Renderer(seed=9)
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(model, q, expect=2)
    dice = r.place([Symbol.STAR, Symbol.KICK])
    t = 0.0
    for img in [r.render([])] * 6:  # nothing ever moved, nothing in the tray
        reader.feed(img, t)
        t += 0.03
    assert _drain(q) == []
    hand = r.render(dice, hand=True)
    for img in [r.render([]), hand, hand, hand, hand, hand, hand]:
        reader.feed(img, t)
        t += 0.03
    assert [type(e) for e in _drain(q)] == [TrayObstructed]
    assert reader.state == "obstructed"
    still = r.render(dice)
    for _ in range(6):
        reader.feed(still, t)
        t += 0.03
    events = _drain(q)
    assert len(events) == 1 and isinstance(events[0], ThrowSettled)
    assert sorted(f or "" for f in events[0].faces) == ["kick", "star"]


def test_count_mismatch_reaches_the_event(model: FaceModel) -> None:
    frames = render_throws(
        [Throw((Symbol.KICK, Symbol.STAR))], Renderer(Settings(width=WIDTH, height=HEIGHT), seed=4)
    )
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(model, q, expect=3, keep_frame=True)
    for f in frames:
        reader.feed(f.image, f.t)
    (event,) = _drain(q)
    assert isinstance(event, ThrowSettled)
    assert event.count_mismatch and not event.trustworthy and event.expected == 3
    assert event.frame is not None and event.frame.shape == (HEIGHT, WIDTH, 3)


class _FlakySource:
    """Fails to open once, gives frames, then dies, then ends (scripted)."""

    def __init__(self, script: list[str], frame: NDArray[Any]) -> None:
        self.name = "flaky"
        self.script = script
        self.frame = frame

    def read(self) -> NDArray[Any] | None:
        step = self.script.pop(0) if self.script else "end"
        if step == "die":
            raise CameraError("flaky: the camera gave no frame")
        if step == "end":
            return None
        return self.frame

    def close(self) -> None:
        pass


@pytest.mark.timeout(20)
def test_camera_lost_and_restored_never_raise(model: FaceModel) -> None:
    frame = Renderer(seed=1).render([])
    opens = {"n": 0}
    # back once a frame is read through: the baseline after four still frames
    scripts = [["ok"] * 6 + ["die"], ["ok"] * 6 + ["end"]]

    def opener(config: CameraConfig) -> _FlakySource:
        opens["n"] += 1
        if opens["n"] == 1:
            raise CameraError("/dev/video9: cannot open the camera or video")
        return _FlakySource(scripts.pop(0), frame)

    q: queue.Queue[Event] = queue.Queue()
    config = CameraConfig(kind=CameraSource.V4L2, device="/dev/video9")
    ticks = iter(range(1000))
    worker = CameraWorker(config, DiceReader(model, q), retry_s=0.01, opener=opener,
                          clock=lambda: float(next(ticks)))  # fmt: skip
    with worker:
        assert worker.finished.wait(10)
    events = _drain(q)
    kinds = [type(e) for e in events]
    assert kinds == [CameraLost, CameraRestored, CameraLost, CameraRestored, CameraLost]
    first = events[0]
    assert isinstance(first, CameraLost) and "cannot open" in first.reason
    last = events[-1]
    assert isinstance(last, CameraLost) and last.reason == "end of the recording"
    assert worker.frames == 12


def test_folder_source_holds_frames_and_skips_bad_images(model: FaceModel, tmp_path: Path) -> None:
    scene = Renderer(seed=6).scene(count=3)
    cv2.imwrite(str(tmp_path / "a.png"), scene.image)
    (tmp_path / "b.png").write_bytes(b"broken")
    config = CameraConfig(kind=CameraSource.FOLDER, path=str(tmp_path), hold_frames=5)
    q: queue.Queue[Event] = queue.Queue()
    with CameraWorker(config, DiceReader(model, q, expect=3), clock=lambda: 1.0) as worker:
        assert worker.finished.wait(10)
    events = _drain(q)
    assert [type(e) for e in events] == [ThrowSettled, FrameUnreadable, CameraLost]
    bad = events[1]
    assert isinstance(bad, FrameUnreadable) and "b.png" in bad.reason


def test_sources_from_config(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="camera kind 'usb': expected one of v4l2"):
        CameraConfig(kind="usb")  # type: ignore[arg-type]
    with pytest.raises(
        ConfigError, match=r"camera size 8x960 must be within 160\.\.4096 x 120\.\.4096"
    ):
        CameraConfig(kind=CameraSource.V4L2, width=8)
    with pytest.raises(ConfigError, match="needs 'path'"):
        CameraConfig(kind=CameraSource.FOLDER)
    with pytest.raises(CameraError, match="no such image folder"):
        FolderSource(CameraConfig(kind=CameraSource.FOLDER, path=str(tmp_path / "none")))
    with pytest.raises(CameraError, match="/dev/video99"):
        open_source(CameraConfig(kind=CameraSource.V4L2, device="/dev/video99"))
    with pytest.raises(CameraError, match="no such video file"):
        open_source(CameraConfig(kind=CameraSource.FILE, path=str(tmp_path / "x.avi")))
    cfg = CameraConfig(
        kind=CameraSource.SYNTHETIC, fps=30, dice=2, seed=3, width=WIDTH, height=HEIGHT
    )
    src = open_source(cfg)
    assert isinstance(src, SyntheticSource)
    frames = [src.read() for _ in range(20)]
    assert all(f is not None and f.shape == (HEIGHT, WIDTH, 3) for f in frames)
    assert any(f.settled and len(f.dice) == 2 for f in src.shown)
    src.close()
    src.close()


@pytest.mark.timeout(30)
def test_video_file_source(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10, (320, 240))
    if not writer.isOpened():
        pytest.skip("this OpenCV build cannot write MJPG video")
    for i in range(5):
        writer.write(np.full((240, 320, 3), 40 * i, np.uint8))
    writer.release()
    src = open_source(CameraConfig(kind=CameraSource.FILE, path=str(path)))
    got = [src.read() for _ in range(6)]
    src.close()
    assert [g is not None for g in got] == [True] * 5 + [False]


@pytest.mark.timeout(20)
def test_a_frame_the_pipeline_refuses_is_skipped(model: FaceModel) -> None:
    good = Renderer(seed=1).render([])
    frames = [good, np.zeros((0, 0, 3), np.uint8), good]

    class _Source:
        name = "odd"

        def read(self) -> NDArray[Any] | None:
            return frames.pop(0) if frames else None

        def close(self) -> None:
            pass

    q: queue.Queue[Event] = queue.Queue()
    config = CameraConfig(kind=CameraSource.V4L2, device="/dev/video5")
    with CameraWorker(config, DiceReader(model, q), opener=lambda c: _Source()) as worker:
        assert worker.finished.wait(10)
    kinds = [type(e) for e in _drain(q)]
    assert kinds == [FrameUnreadable, CameraLost]
    assert worker.frames == 3


@pytest.mark.timeout(60)
def test_boxes_that_cannot_be_kept_are_said_once_and_the_throw_goes_on(
    model: FaceModel, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    frames = render_throws(
        THROWS[:1], Renderer(Settings(hard=True, width=WIDTH, height=HEIGHT), seed=21)
    )
    folder = tmp_path / "evidence"
    for n in (1, 2):  # in the way of each throw's boxes, as a full card would be
        (folder / f"throw_{n:05d}.boxes.json").mkdir(parents=True)
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(model, q, expect=6, evidence_dir=folder)
    for _ in range(2):
        reader.new_attack()
        for f in frames:
            reader.feed(f.image, f.t)
    events = _drain(q)
    assert [type(e) for e in events] == [ThrowSettled, ThrowSettled]  # played all the same
    said = [r for r in caplog.records if "cannot keep the dice boxes" in r.getMessage()]
    assert len(said) == 1 and "throw_00001.jpg" in said[0].getMessage()


@pytest.mark.timeout(60)
def test_a_restarted_reader_never_writes_over_earlier_photos(
    model: FaceModel, tmp_path: Path
) -> None:
    frames = render_throws(
        THROWS[:1], Renderer(Settings(hard=True, width=WIDTH, height=HEIGHT), seed=21)
    )
    folder = tmp_path / "evidence"
    kept: dict[str, bytes] = {}
    for _run in range(2):  # the daemon restarted: a new reader on the same folder
        q: queue.Queue[Event] = queue.Queue()
        reader = DiceReader(model, q, expect=6, evidence_dir=folder)
        for f in frames:
            reader.feed(f.image, f.t)
        (event,) = _drain(q)
        assert isinstance(event, ThrowSettled) and event.evidence_path is not None
        assert event.evidence_path not in kept
        kept[event.evidence_path] = Path(event.evidence_path).read_bytes()
    assert {p: Path(p).read_bytes() for p in kept} == kept
    assert sorted(p.suffix for p in folder.iterdir()) == [".jpg", ".jpg", ".json", ".json"]


class _ScriptedSource:
    """Gives its frames in order; ``None`` in the list fails the read as a driver would
    (an OSError, which is no CameraError), and the end of the list ends the recording."""

    def __init__(self, frames: list[NDArray[Any] | None]) -> None:
        self.name = "scripted"
        self.frames = frames

    def read(self) -> NDArray[Any] | None:
        if not self.frames:
            return None
        frame = self.frames.pop(0)
        if frame is None:
            raise OSError(19, "No such device")
        return frame

    def close(self) -> None:
        raise OSError(19, "No such device")  # a vanished device fails its close too


@pytest.mark.timeout(30)
def test_a_camera_back_from_any_failure_reads_no_throw_from_the_dice_already_there(
    model: FaceModel,
) -> None:
    """A source failing with a driver's OSError is a lost camera, retried (it used to end
    the camera thread for good); back, its first frames (brighter: the exposure starts
    over) over the dice entered by hand meanwhile are no throw; the next throw is."""
    r = Renderer(Settings(width=WIDTH, height=HEIGHT), seed=5)
    empty = r.render([])
    dice = r.place([Symbol.STAR, Symbol.KICK])
    lying = r.render(dice)
    brighter = cv2.convertScaleAbs(lying, alpha=1.0, beta=40)
    thrown = r.render(r.place([Symbol.PUNCH, Symbol.SPHERE]))
    hand = r.render(dice, hand=True)
    scripts: list[list[NDArray[Any] | None]] = [
        [empty] * 5 + [None],  # the tray empty, then the camera goes
        # back: the dice lying there are its baseline; a hand passes over them, then a throw
        [brighter, brighter]
        + [lying] * 6
        + [hand, lying]
        + [lying] * 6
        + [empty, thrown]
        + [thrown] * 6,
    ]
    q: queue.Queue[Event] = queue.Queue()
    ticks = iter(range(1000))
    worker = CameraWorker(CameraConfig(kind=CameraSource.SYNTHETIC), DiceReader(model, q, expect=2),
                          retry_s=0.01, opener=lambda c: _ScriptedSource(scripts.pop(0)),
                          clock=lambda: float(next(ticks)))  # fmt: skip
    with worker:
        assert worker.finished.wait(20)
    events = _drain(q)
    kinds = [CameraLost, CameraRestored, ThrowSettled, ThrowSettled, CameraLost]
    assert [type(e) for e in events] == kinds
    lost = events[0]
    assert isinstance(lost, CameraLost) and "No such device" in lost.reason
    again, throw = events[2], events[3]
    # the hand's read: the baseline's dice where they lay (the table takes it for no throw)
    assert isinstance(again, ThrowSettled) and not again.moved and again.roll_no == 0
    assert isinstance(throw, ThrowSettled) and throw.rerolled == (0, 1) and throw.roll_no == 1
    assert sorted(f or "" for f in throw.faces) == ["punch", "sphere"]


@pytest.mark.timeout(30)
def test_a_camera_lost_again_before_its_baseline_was_read_takes_a_new_one(
    model: FaceModel, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Review tests cw03: back, the reading of its baseline failed (the camera lost again);
    the source opened after that must take the tray as it lies for a baseline too, not read
    the next still tray as a throw and only then say the camera is back."""
    r = Renderer(Settings(width=WIDTH, height=HEIGHT), seed=5)
    empty = r.render([])
    lying = r.render(r.place([Symbol.STAR, Symbol.KICK]))
    thrown = r.render(r.place([Symbol.PUNCH, Symbol.SPHERE]))
    scripts: list[list[NDArray[Any] | None]] = [
        [*[empty] * 5, None],
        [*[lying] * 6, None],  # back: its baseline's reading fails, then the device goes
        [*[lying] * 6, empty, thrown, *[thrown] * 6],
    ]
    failures = [MemoryError("no room")]
    real = read.read_frame

    def read_frame(*args: Any, **kw: Any) -> Any:
        if worker.frames > 6 and failures:  # the first read of the second source
            raise failures.pop()
        return real(*args, **kw)

    monkeypatch.setattr(reader_module, "read_frame", read_frame)
    q: queue.Queue[Event] = queue.Queue()
    worker = CameraWorker(CameraConfig(kind=CameraSource.SYNTHETIC), DiceReader(model, q, expect=2),
                          retry_s=0.01, opener=lambda c: _ScriptedSource(scripts.pop(0)))  # fmt: skip
    with worker:
        assert worker.finished.wait(20)
    events = _drain(q)
    assert not failures
    assert [type(e) for e in events] == [CameraLost, CameraRestored, ThrowSettled, CameraLost]
    throw = events[2]
    assert isinstance(throw, ThrowSettled) and throw.roll_no == 1
    assert sorted(f or "" for f in throw.faces) == ["punch", "sphere"]


@pytest.mark.timeout(30)
def test_a_hand_over_the_tray_as_the_camera_comes_back_leaves_the_baseline_for_later(
    model: FaceModel,
) -> None:
    """The first still run after a camera came back is obstructed (a hand over the tray):
    the baseline waits for the next one, so the dice lying there are still no first roll."""
    r = Renderer(Settings(width=WIDTH, height=HEIGHT), seed=5)
    dice = r.place([Symbol.STAR, Symbol.KICK])
    lying, hand = r.render(dice), r.render(dice, hand=True)
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(model, q, expect=2)
    reader.settle.rebase()  # as the camera worker does on CameraRestored
    t = 0.0
    for frame in [hand] * 6 + [lying] * 6 + [hand] + [lying] * 6:
        reader.feed(frame, t)
        t += 0.03
    events = [e for e in _drain(q) if isinstance(e, ThrowSettled)]
    assert len(events) == 1 and events[0].roll_no == 0 and not events[0].moved


@pytest.mark.timeout(30)
def test_a_hand_gone_by_the_next_frame_still_ends_the_wait_for_the_baseline(
    model: FaceModel,
) -> None:
    """The hand over the tray as the camera came back leaves before the next frame (while
    its frame was read): its leaving is motion against that frame, so the dice left are the
    baseline and the throw after them is read (the wait had lasted for ever, the throw
    taken for the baseline)."""
    r = Renderer(Settings(width=WIDTH, height=HEIGHT), seed=5)
    dice = r.place([Symbol.STAR, Symbol.KICK])
    lying, hand = r.render(dice), r.render(dice, hand=True)
    thrown = r.render(r.place([Symbol.PUNCH, Symbol.SPHERE]))
    q: queue.Queue[Event] = queue.Queue()
    reader = DiceReader(model, q, expect=2)
    reader.settle.rebase()
    t = 0.0
    for frame in [hand] * 5 + [lying] * 6 + [r.render([]), thrown] + [thrown] * 6:
        reader.feed(frame, t)
        t += 0.03
    events = [e for e in _drain(q) if isinstance(e, ThrowSettled)]
    assert [sorted(f or "" for f in e.faces) for e in events] == [["punch", "sphere"]]
