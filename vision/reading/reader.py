"""The dice reader the table loop uses: frames in, one event per settled throw out.

:class:`DiceReader` takes frames (BGR arrays) with a time stamp, watches for
the tray to settle (:mod:`vision.reading.settle`), reads the dice once
(:mod:`vision.reading.read`), tells kept from rerolled dice (:mod:`vision.reading.tracking`)
and posts a :class:`~vision.events.ThrowSettled` into the queue it was given (after
an :class:`~vision.events.OutOfDepth` when the frame brings a new warning: the camera
no longer sees the dice as in calibration; a :class:`~vision.events.BackInDepth` once a
read frame brings none again).

:class:`CameraWorker` runs a camera source in its own thread and feeds a
reader; a camera that fails posts :class:`~vision.events.CameraLost`, is
reopened every ``retry_s`` seconds and posts
:class:`~vision.events.CameraRestored` when frames come again. Nothing it
meets in a frame raises into the table loop.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

import cv2
from numpy.typing import NDArray

from controller.core.events import Event
from vision.errors import CameraError, ImageReadError, VisionError
from vision.events import (
    CameraLost,
    CameraRestored,
    FrameUnreadable,
    ThrowSettled,
    TrayObstructed,
)
from vision.reading.depth_watch import DepthWatch
from vision.reading.evidence import ThrowBoxes, write_boxes
from vision.reading.model import FaceModel
from vision.reading.photo_room import room_for_photo
from vision.reading.read import DiceRead, read_frame
from vision.reading.settle import Motion, SettleDetector, SettleParams
from vision.reading.tracking import RollTracker, TrackedDie
from vision.sources.source import CameraConfig, FrameSource, open_source

T = TypeVar("T")
log = logging.getLogger(__name__)
STUCK_AFTER_S = 20.0
"""A camera call lasting longer is wedged (a source's own waits are a few seconds)."""


class DiceReader:
    """Consumes frames; posts one :class:`ThrowSettled` per settled throw into ``events``.

    ``expect`` is the pool size the rules engine knows (None: any count);
    ``evidence_dir`` keeps each settled frame as a JPEG (named in the event), its dice
    boxes beside it (:mod:`vision.reading.evidence`), while the card has room
    (:mod:`vision.reading.photo_room`; ``prune_older_games``: the folders beside
    ``evidence_dir`` are earlier games' photos, deleted to make room, as the table keeps
    them in ``JOURNAL.frames/GAME/``);
    ``keep_frame`` puts the frame itself in the event instead.
    """

    def __init__(
        self,
        model: FaceModel,
        events: queue.Queue[Event],
        expect: int | None = None,
        settle: SettleParams | None = None,
        evidence_dir: str | Path | None = None,
        keep_frame: bool = False,
        prune_older_games: bool = False,
    ) -> None:
        self.model = model
        self.events = events
        self.expect = expect
        self.settle = SettleDetector(settle)
        self.tracker = RollTracker()
        self.evidence_dir = Path(evidence_dir) if evidence_dir is not None else None
        self.keep_frame = keep_frame
        self.prune_older_games = prune_older_games
        self.state = "waiting"  # waiting, moving, settling, empty, obstructed, read
        self.last_read: DiceRead | None = None
        self.quiet_frames = 0  # frames in a row with nothing moving and nothing to read
        self.reads = 0  # frames read through (a settled tray, or its baseline)
        self.depth = DepthWatch(events, self.settle)
        self._count = 0
        self._photo = 0  # the last evidence photo's number tried
        self._boxes_unwritten = False  # a frame's boxes could not be kept (said once)
        self._said_full = False  # photos are not kept for want of room (said once)

    @property
    def warned(self) -> tuple[str, ...]:
        """The out-of-depth warnings posted last (:class:`DepthWatch`)."""
        return self.depth.warned

    def new_attack(self, expect: int | None = None) -> None:
        """The next throw starts a new attack (roll 1); optionally change the pool size."""
        self.tracker.new_attack()
        self.depth.awaiting = True
        if expect is not None:
            self.expect = expect

    def roll_over(self) -> None:
        """No throw is awaited until the next :meth:`new_attack` (the roll is over)."""
        self.depth.awaiting = False

    def feed(self, frame: NDArray[Any], timestamp: float) -> ThrowSettled | None:
        """Take one frame; return (and post) the event when a throw has just settled."""
        motion = self.settle.update(frame)
        self.quiet_frames = self.quiet_frames + 1 if motion is Motion.IDLE else 0
        if motion is Motion.MOVING:
            self.state = "moving"
            return None
        if motion is Motion.SETTLING:
            self.state = "settling"
            return None
        if motion is Motion.IDLE:
            return None
        read = read_frame(frame, self.model, self.expect)
        self.reads += 1
        if motion is Motion.BASELINE:  # the dice a camera back sees: the tracker's last roll
            if read.obstructed:  # a hand over the tray: the still run after it moves is
                self.settle.rebase(after_motion=True)
            else:
                self.depth.baseline(empty=not read.dice)
                self.tracker.lying([TrackedDie(d.center, max(d.box[2], d.box[3]), d.face)
                                    for d in read.dice])  # fmt: skip
            return None
        self.last_read = read
        if read.obstructed:
            self.state = "obstructed"
            self.events.put(TrayObstructed(timestamp))
            return None
        self.depth.judge(read, self.expect, timestamp)
        if not read.dice:
            self.state = "empty"
            return None
        self.state = "read"
        step = self.tracker.step(
            [TrackedDie(d.center, max(d.box[2], d.box[3]), d.face) for d in read.dice]
        )
        self._count += 1
        evidence = self._keep(frame, self.evidence_dir) if self.evidence_dir else None
        if evidence is not None:  # where the dice lay: a played throw can be learned from
            size = (frame.shape[1], frame.shape[0])
            kept = ThrowBoxes(size, tuple(d.box for d in read.dice), read.faces)
            if write_boxes(evidence, kept) is None and not self._boxes_unwritten:
                self._boxes_unwritten = True  # (said once: a full card says it every throw)
                log.warning("cannot keep the dice boxes beside %s: its throw cannot be "
                            "learned from (dice table-photos leaves it out)", evidence)  # fmt: skip
        event = ThrowSettled(
            faces=read.faces,
            boxes=tuple(d.box for d in read.dice),
            confidences=tuple(d.confidence for d in read.dice),
            cocked=tuple(i for i, d in enumerate(read.dice) if d.cocked),
            unsure=tuple(i for i, d in enumerate(read.dice) if d.unsure and not d.cocked),
            expected=self.expect,
            count_mismatch=read.count_mismatch,
            roll_no=step.roll_no,
            kept=step.kept,
            rerolled=step.rerolled,
            speed=step.speed,
            timestamp=timestamp,
            face_set=self.model.face_set,
            evidence_path=evidence,
            frame=frame.copy() if self.keep_frame else None,
        )
        self.events.put(event)
        return event

    def _keep(self, frame: NDArray[Any], folder: Path) -> str | None:
        """Save the settled frame as evidence under a name no earlier photo has (a
        restarted reader never writes over the photos journal rows name); None if it
        cannot be written."""
        ok, jpeg = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 90])
        if not ok:
            return None
        if not room_for_photo(folder, jpeg.nbytes, prune=self.prune_older_games):
            if not self._said_full:  # said once: the card stays full all evening
                self._said_full = True
                log.warning("the card has too little room left: throws' photos are not kept "
                            "(the game plays on; its throws cannot be learned from)")  # fmt: skip
            return None
        made: Path | None = None  # the file this call created
        try:
            folder.mkdir(parents=True, exist_ok=True)
            while True:
                self._photo += 1
                path = folder / f"throw_{self._photo:05d}.jpg"
                try:
                    with path.open("xb") as out:  # exclusive: an existing photo is kept
                        made = path
                        out.write(jpeg.tobytes())
                    return str(path)
                except FileExistsError:
                    continue
        except OSError:
            if made is not None:  # a photo cut short (the card filled) is no photo
                with contextlib.suppress(OSError):
                    made.unlink()
            return None


class CameraWorker:
    """A thread that reads a camera source into a :class:`DiceReader`.

    Use as a context manager or call :meth:`start` and :meth:`stop`.
    ``opener`` (default :func:`~vision.sources.source.open_source`) is injectable for tests.
    """

    def __init__(
        self,
        config: CameraConfig,
        reader: DiceReader,
        retry_s: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
        opener: Callable[[CameraConfig], FrameSource] = open_source,
        pace: bool = False,
        idle_fps: float = 5.0,
        idle_after: int = 30,
        baseline_at_open: bool = False,
    ) -> None:
        self.config = config
        self.reader = reader
        # a live camera's first still tray holds dice already read or entered (the daemon
        # restarted mid-game), not a throw; a recording is read from its first frame
        self.baseline_at_open = baseline_at_open
        # A still, empty or already read tray is looked at idle_fps times a second once it has
        # been quiet for idle_after frames (a camera frame costs a decode and a settle check);
        # the first motion brings the full rate back, long before a throw settles.
        self.idle_fps = idle_fps
        self.idle_after = idle_after
        self.retry_s = retry_s
        self.clock = clock
        self.opener = opener
        self.pace = pace  # sleep 1/fps between frames (recorded and synthetic sources)
        self.frames = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.finished = threading.Event()
        self._is_lost = False
        self._reads_at: int | None = None  # the reader's reads when the camera came back
        self._said: set[str] = set()  # the unexpected failures logged with their traceback
        self._busy_since: float | None = None  # clock() when a camera call began
        self._name = config.device if config.kind == "v4l2" else config.path or config.kind

    @property
    def events(self) -> queue.Queue[Event]:
        """The queue the reader posts into."""
        return self.reader.events

    def start(self) -> CameraWorker:
        """Start the thread (once)."""
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="camera", daemon=True)
            self._thread.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Ask the thread to stop and wait for it; idempotent."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)

    def __enter__(self) -> CameraWorker:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    def stuck_for(self) -> float:
        """Seconds the current camera call (open, read, close) has lasted; 0 between calls.

        Every wait of a source is bounded (a few seconds), so a call that lasts far
        longer is a wedged driver: the daemon stops feeding the systemd watchdog.
        """
        since = self._busy_since
        return 0.0 if since is None else max(0.0, self.clock() - since)

    def _call(self, call: Callable[[], T]) -> T:
        self._busy_since = self.clock()
        try:
            return call()
        finally:
            self._busy_since = None

    def _open(self) -> FrameSource | None:
        try:
            return self._call(lambda: self.opener(self.config))
        except Exception as exc:  # any failure to open is a camera missing, retried
            self._lost(self._why(exc))
            return None

    def _why(self, exc: Exception) -> str:
        """The reason a camera call failed: a source's own CameraError as it says it; any
        other (a driver's OSError, a bug) with its traceback in the log, once a kind."""
        if isinstance(exc, CameraError):
            return str(exc)
        why = f"{exc!r}"
        if why not in self._said:
            self._said.add(why)
            log.warning("camera %s: %s", self._name, why, exc_info=exc)
        return why

    def _close_quietly(self, source: FrameSource) -> None:
        """Close a source (that failed, or at the end); a close that fails is logged."""
        try:
            self._call(source.close)
        except Exception:  # nothing is left to do with it
            log.warning("camera %s: closing it failed", self._name, exc_info=True)

    def _give_up(self, source: FrameSource, exc: Exception) -> None:
        """The camera counts as lost through ``exc`` (the table enters dice by hand): say
        so, close ``source`` and wait before it is opened again."""
        self._lost(self._why(exc))  # first: heard even if close() hangs
        self._close_quietly(source)
        self._stop.wait(self.retry_s)

    def _lost(self, reason: str) -> None:
        self._reads_at = None  # a source opened again sees the tray anew: a new baseline
        if not self._is_lost:
            self._is_lost = True
            self.events.put(CameraLost(self._name, reason, self.clock()))

    def _run(self) -> None:
        source: FrameSource | None = None
        if self.baseline_at_open:
            self.reader.settle.rebase()
        try:
            while not self._stop.is_set():
                if source is None:
                    source = self._open()
                    if source is None:
                        self._stop.wait(self.retry_s)
                        continue
                try:
                    frame = self._call(source.read)
                except ImageReadError as exc:
                    self.events.put(FrameUnreadable(self._name, str(exc), self.clock()))
                    continue
                except Exception as exc:  # any failure of a source is a lost camera
                    # CameraError is the sources' own; anything else (a driver's OSError, a
                    # MemoryError) would end the thread with the camera never retried
                    self._give_up(source, exc)
                    source = None
                    continue
                if frame is None:
                    self._lost("end of the recording")
                    break
                if self._is_lost and self._reads_at is None:
                    self.reader.settle.rebase()  # the tray as it lies now is no throw
                    self._reads_at = self.reader.reads
                self.frames += 1
                try:
                    self.reader.feed(frame, self.clock())
                except (VisionError, cv2.error, ValueError) as exc:
                    # a frame the pipeline cannot take (odd size, corrupt data): skip it
                    self.events.put(FrameUnreadable(self._name, str(exc), self.clock()))
                except Exception as exc:  # the reading failed (a MemoryError, a bug): the
                    # thread would end unheard, the table waiting for dice no one can enter
                    self._give_up(source, exc)
                    source = None
                    continue
                if self._reads_at is not None and self.reader.reads > self._reads_at:
                    # said once a frame was read through (the tray's baseline): a reading
                    # that fails again and again keeps the camera lost, and the dice being
                    # entered by hand meanwhile are kept
                    self._is_lost, self._reads_at = False, None
                    self.events.put(CameraRestored(self._name, self.clock()))
                if self.reader.quiet_frames >= self.idle_after and self.idle_fps > 0:
                    self._stop.wait(1.0 / self.idle_fps)
                elif self.pace:
                    self._stop.wait(1.0 / self.config.fps)
        finally:
            if source is not None:
                self._close_quietly(source)
            self.finished.set()
