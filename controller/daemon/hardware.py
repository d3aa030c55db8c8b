"""The table's devices for ``toptable run``, opened from the daemon's config.

:class:`TableDevices` opens the camera reader, the board link (to the Pico on a serial
port, or to the firmware simulated behind a pseudo-terminal), the screens, and the
buttons, LEDs and buzzer, all posting typed events into the one ``queue.Queue`` the
table loop reads. Each device is opened from its own config section
(:mod:`controller.config`): the controls take ``[controls]`` as it is; the screens and
the camera source go through their package's one mapping
(:func:`hardware.displays.display_configs`,
:meth:`vision.settings.CameraSettings.source_config`).

Degraded but never stopped: a device that cannot be opened is recorded as a fault
(:meth:`TableDevices.faults`: source -> a message naming the device and its path,
address or pin) and the others carry on. The camera worker reopens a lost camera on its
own (posting ``CameraLost`` / ``CameraRestored``) and the board link reopens its port on
its own (``LinkLost`` / ``LinkRestored``); :meth:`TableDevices.report_missing` posts the
same events for a camera or board missing from the start; :meth:`TableDevices.retry`,
called from a loop timer every few seconds, reopens missing screens (unplugged at start
or failed mid-game) and sets up a camera whose reader could not be (an unreadable face
model), posting ``CameraRestored`` when it is.

A companion mode's table opens neither camera nor board (``dice=False``). The demo's
simulated world stands in for the synthetic camera with its own tray (``tray``: the
frames come when the world throws) and puts a resumed game's tokens on the simulated
board before it starts (``board_tokens``); everything else is opened as ``toptable run``
opens it.

``TableDevices.sinks()`` are the view sinks (the screens; the LEDs and buzzer through
:class:`OutputsSink`); ``new_attack(pool)`` tells the dice reader, from the table's
thread, that the next throw is roll 1 of a new attack or defence.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import tempfile
import threading
import time
from collections.abc import Callable, Collection, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol

from controller.board.sensor_map import apply_sensor_map, load_sensor_map
from controller.config import Config
from controller.core.events import Event
from controller.core.symbols import ALL_SYMBOLS, Symbol
from controller.daemon.camera import HandoffReader, WatchedSource
from controller.gamedata import DEMO_DIR
from controller.gamedata.board import BoardLayout, load_board
from controller.table.controller import ViewSink
from hardware.board.errors import BoardError
from hardware.board.events import LinkLost
from hardware.board.link import BoardLink, open_port
from hardware.board.memory import Record
from hardware.board.settings import BoardBackend
from hardware.board.sim import SimBoard
from hardware.controls.inputs import TableInputs
from hardware.controls.outputs import TableOutputs
from hardware.controls.settings import ControlsBackend
from hardware.displays.device_config import display_configs
from hardware.displays.display_board import DisplayBoard
from hardware.displays.i2c_bus import BusPool
from hardware.displays.model import TableView
from vision.errors import CameraError, VisionError
from vision.events import CameraLost, CameraRestored
from vision.reading.model import FaceModel
from vision.reading.reader import CameraWorker
from vision.settings import LIVE_SOURCES, CameraConfig, CameraSource
from vision.sources.source import FrameSource, open_source

log = logging.getLogger(__name__)

DEMO_BOARD = DEMO_DIR / "board.toml"
"""The bundled example layout, used when ``[board] layout`` is left out."""

CAMERA_RETRY_S = 2.0
"""How often the camera worker tries a lost camera again."""

Opener = Callable[[CameraConfig], FrameSource]


class Tray(Protocol):
    """A simulated world's dice tray, standing in for the configured synthetic camera: it
    makes its frames when the world throws (so the camera thread does not pace them)."""

    def open_source(self, settings: CameraConfig) -> FrameSource:
        """The camera source showing the tray (``settings``: the config's camera)."""
        ...


class OutputsSink:
    """:class:`TableOutputs` as a view sink (its method is ``show``)."""

    def __init__(self, outputs: TableOutputs) -> None:
        self.outputs = outputs

    def update(self, view: TableView) -> None:
        """Set the LEDs and buzzer for ``view``."""
        self.outputs.show(view)


def layout_file(config: Config) -> Path:
    """The board layout the config names, else its data's board.toml, else the example."""
    own = config.table.data_dir / "board.toml" if config.table.data_dir is not None else None
    return config.board.layout or (own if own is not None and own.is_file() else DEMO_BOARD)


def load_layout(config: Config) -> BoardLayout:
    """The board layout of :func:`layout_file` (the game's data's), with its sensor map.

    Raises:
        DataError: the layout or the mapping file is missing or invalid (every problem).
    """
    layout = load_board(layout_file(config))
    if config.board.mapping is not None:
        layout = apply_sensor_map(layout, load_sensor_map(config.board.mapping, layout))
    return layout


class TableDevices:
    """Every device of the table, opened from ``config``; posts events into ``events``.

    ``evidence_dir`` keeps each settled throw's frame (None: not kept);
    ``state_dir`` holds the simulated board's port link (None: a temporary
    folder removed on close); ``record`` is called for each sensor change before
    the board is told it was received (the journal). ``model`` overrides the
    face model, ``camera_opener`` the camera source (tests), ``bus_pool`` the
    I2C buses; ``die_faces`` are the symbols on the table's dice (the data's
    ``[die]``), which a synthetic camera throws. ``dice=False`` (a companion
    mode) opens neither the camera nor the board. ``tray`` is a simulated
    world's tray in place of the synthetic camera; ``board_tokens`` the sensors
    that hold a token when the simulated board starts. A context manager;
    :meth:`close` is idempotent.

    Raises:
        DataError: the board layout or sensor map is unreadable (the table cannot
            know its board; everything else becomes a fault instead).
        ValueError: a ``tray`` for a camera that is not the synthetic one.
    """

    def __init__(
        self,
        config: Config,
        events: queue.Queue[Event],
        *,
        evidence_dir: str | Path | None = None,
        state_dir: str | Path | None = None,
        record: Record | None = None,
        seed: int = 0,
        model: FaceModel | None = None,
        camera_opener: Opener | None = None,
        camera_retry_s: float = CAMERA_RETRY_S,
        bus_pool: BusPool | None = None,
        die_faces: Sequence[Symbol] = ALL_SYMBOLS,
        dice: bool = True,
        tray: Tray | None = None,
        board_tokens: Collection[int] = (),
    ) -> None:
        if tray is not None and config.camera.source is not CameraSource.SYNTHETIC:
            raise ValueError("a simulated tray stands in for the synthetic camera only")
        self.config = config
        self.events = events
        self.evidence_dir = Path(evidence_dir) if evidence_dir is not None else None
        self.dice = dice
        self.layout = load_layout(config) if dice else None
        self._lock = threading.Lock()
        self._faults: dict[str, str] = {}
        self._camera_fault = ""
        self._closed = False
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        if state_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="toptable-")
            state_dir = self._tmp.name
        self.state_dir = Path(state_dir)
        self._seed = seed
        self._model = model
        self.die_faces = tuple(die_faces)
        self._camera_opener: Opener = camera_opener or self._open_configured_source
        self._camera_paced = True  # recorded and synthetic sources are read at their rate
        if tray is not None:
            self._camera_opener, self._camera_paced = tray.open_source, False
        self._camera_retry_s = camera_retry_s
        self.camera_settings: CameraConfig | None = None
        self.reader: HandoffReader | None = None
        self.camera: CameraWorker | None = None
        self.sim: SimBoard | None = None
        self.link: BoardLink | None = None
        self._board_probe = ""
        self.pin_factory: Any = None
        self.inputs: TableInputs | None = None
        self.outputs: TableOutputs | None = None
        try:
            if dice:
                self._open_camera()
                self._open_board(record, board_tokens)
            self.displays = DisplayBoard.open(display_configs(config.displays), bus_pool)
            self._open_controls()
        except BaseException:
            self.close()
            raise
        for message in (self._board_fault(), *map(str, self.displays.missing)):
            if message:
                log.warning("%s", message)

    @classmethod
    def open(cls, config: Config, events: queue.Queue[Event], **options: Any) -> TableDevices:
        """Open every device: the same as ``TableDevices(config, events, **options)``.

        Raises:
            DataError: the board layout or sensor map is unreadable.
        """
        return cls(config, events, **options)

    def _fault(self, source: str, message: str) -> None:
        """Note a device's fault; said when it is new (a retry finds the same every 5 s)."""
        if self._faults.get(source) != message:
            log.warning("%s", message)
        self._faults[source] = message

    # -- camera ----------------------------------------------------------------------
    def _open_camera(self) -> None:
        """Start the camera worker; a camera that is not there is a fault, retried."""
        try:
            self.camera_settings = self.config.camera.source_config(self._seed)
        except VisionError as exc:
            self._fault("camera", f"camera settings: {exc}")
            return
        if self.reader is None:
            try:
                model = self._model or self._load_model()
            except (VisionError, OSError) as exc:
                where = self.config.camera.model or "the bundled face model"
                self._fault("camera", f"camera face model {where}: {exc}")
                return
            self.reader = HandoffReader(model, self.events, evidence_dir=self.evidence_dir)
        self._faults.pop("camera", None)
        settings = self.camera_settings
        handed: list[FrameSource] = []
        # Opened in this thread so that a missing camera is a fault at once; if it is
        # missing the worker posts CameraLost and tries again every camera_retry_s.
        with contextlib.suppress(CameraError):
            handed.append(self._open_source(settings))

        def opener(cfg: CameraConfig) -> FrameSource:
            return handed.pop() if handed else self._open_source(cfg)

        self.camera = CameraWorker(
            settings,
            self.reader,
            retry_s=self._camera_retry_s,
            opener=opener,
            pace=self._camera_paced and settings.kind not in LIVE_SOURCES,  # a live one waits
            baseline_at_open=settings.kind in LIVE_SOURCES,
        ).start()

    def _load_model(self) -> FaceModel:
        from vision.learning.defaults import default_model
        from vision.reading.model import load_model

        if self.config.camera.model is not None:
            return load_model(self.config.camera.model)
        return default_model()

    def _open_configured_source(self, settings: CameraConfig) -> FrameSource:
        """The source the config names; a synthetic one throws the table's die."""
        return open_source(settings, faces=self.die_faces)

    def _open_source(self, settings: CameraConfig) -> FrameSource:
        """Open the camera source, noting whether it is there.

        Raises:
            CameraError: it cannot be opened (noted as the camera's fault first).
        """
        try:
            source = self._camera_opener(settings)
        except CameraError as exc:
            message = f"camera {exc}"
            with self._lock:
                was, self._camera_fault = self._camera_fault, message
            if was != message:
                log.warning("%s", message)
            raise
        watched = WatchedSource(source, self._camera_lost)
        with self._lock:
            if self._camera_fault:
                log.info("camera: %s is back", source.name)
            self._camera_fault = ""
        return watched

    def _camera_lost(self, reason: str) -> None:
        message = f"camera {reason}"
        with self._lock:
            self._camera_fault = message
        log.warning("%s", message)

    def new_attack(self, pool: int) -> None:
        """A roll of ``pool`` dice starts (or is back, after an UNDO): the camera counts from
        roll 1; 0: the roll is over. Safe from any thread (taken before the next frame)."""
        if self.reader is not None:
            self.reader.request_new_attack(pool)

    # -- board -------------------------------------------------------------------------
    def _open_board(self, record: Record | None, tokens: Collection[int]) -> None:
        board = self.config.board
        port = board.port
        if board.backend is BoardBackend.SIMULATED and self.layout is not None:
            try:
                self.state_dir.mkdir(parents=True, exist_ok=True)
                sim = SimBoard.pico(self.layout.sensor_count, self.state_dir / "board")
                for sensor in tokens:
                    sim.matrix[sensor] = 1
                self.sim = sim.start()
            except (BoardError, OSError) as exc:
                self._fault("board", f"simulated board: {exc}")
                self.sim = None
                return
            port = self.sim.path
        else:
            try:
                open_port(port, board.baud).close()
            except BoardError as exc:
                self._board_probe = str(exc)
        self.link = BoardLink(port, self.events, record, baudrate=board.baud).start()

    def _board_fault(self) -> str:
        link = self.link
        if link is None or link.connected:
            return ""
        if link.last_error:
            return f"board link: {link.last_error}"
        if self._board_probe:
            return f"board link: {self._board_probe}"
        return ""

    # -- controls ------------------------------------------------------------------------
    def _open_controls(self) -> None:
        settings = self.config.controls
        if self.config.controls.backend is ControlsBackend.MOCK:
            from gpiozero.pins.mock import MockFactory

            self.pin_factory = MockFactory()
        self.inputs = TableInputs(settings, self.events, pin_factory=self.pin_factory)
        self.outputs = TableOutputs(settings, pin_factory=self.pin_factory)
        for err in [*self.inputs.failed, *self.outputs.failed]:
            role = str(err).split(" on ", 1)[0]
            self._fault(f"controls:{role}", f"controls: {err}")

    # -- the table loop's view ----------------------------------------------------------
    def faults(self) -> dict[str, str]:
        """Every device not working now: source (``camera``, ``board``,
        ``display:NAME``, ``controls:ROLE``) -> a message naming it and where it is;
        ``board:link``: the board link's health line while it has trouble (garbled
        frames, CRC failures, resyncs, reconnects in the last minute)."""
        if self._closed:
            return {}
        out = dict(self._faults)
        with self._lock:
            if self._camera_fault and "camera" not in out:
                out["camera"] = self._camera_fault
        board = self._board_fault()
        if board and "board" not in out:
            out["board"] = board
        elif self.link is not None and (trouble := self.link.trouble()) is not None:
            out["board:link"] = trouble  # garbled frames, resyncs... in the last minute
        for name, err in self.displays.missing_by_name.items():
            out[f"display:{name}"] = str(err)
        return out

    def report_missing(self) -> None:
        """Post what a lost device would for a camera or board missing from the start, so
        the table enters dice and moves with the buttons until they are there."""
        if not self.dice:
            return
        faults = self.faults()
        if self.camera is None:
            reason = faults.get("camera", "not available")
            self.events.put(CameraLost("camera", reason, time.monotonic()))
        if "board" in faults:
            self.events.put(LinkLost(self.config.board.port, faults["board"]))

    def keep_screens(self) -> None:
        """Leave what the screens show on them when they are closed (luma blanks a display
        it closes unless told): the pause, when the daemon stops."""
        for display in self.displays.displays:
            display.keep_on_close()

    def sinks(self) -> list[ViewSink]:
        """What shows each view: the screens, and the LEDs and buzzer."""
        out: list[ViewSink] = [self.displays]
        if self.outputs is not None:
            out.append(OutputsSink(self.outputs))
        return out

    def retry(self) -> list[str]:
        """Reopen missing screens, and the camera if it could not be set up at all (cheap;
        call every few seconds). Returns the sources that came back.

        A camera that is there but gives no frames is reopened by its worker every
        ``camera_retry_s`` (posting ``CameraLost`` / ``CameraRestored``); the board link
        reopens its port by itself.
        """
        if self._closed:
            return []
        back = [f"display:{name}" for name in self.displays.reopen()]
        if self.dice and self.camera is None and "camera" in self._faults:
            self._open_camera()
            if self.camera is not None and not self.faults().get("camera"):
                back.append("camera")
                self.events.put(CameraRestored("camera", time.monotonic()))
        for source in back:
            log.info("%s: back", source)
        return back

    # -- lifecycle -----------------------------------------------------------------------
    def __enter__(self) -> TableDevices:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Stop the threads and release every device (idempotent)."""
        if self._closed:
            return
        self._closed = True
        closers: Sequence[Any] = (
            self.camera.stop if self.camera is not None else None,
            self.link.close if self.link is not None else None,
            self.sim.close if self.sim is not None else None,
            getattr(getattr(self, "displays", None), "close", None),
            self.inputs.close if self.inputs is not None else None,
            self.outputs.close if self.outputs is not None else None,
            self.pin_factory.close if self.pin_factory is not None else None,
            self._tmp.cleanup if self._tmp is not None else None,
        )
        for close in closers:
            if close is None:
                continue
            try:
                close()
            except Exception:  # one device failing to close must not keep the others open
                log.exception("closing the table's devices")
