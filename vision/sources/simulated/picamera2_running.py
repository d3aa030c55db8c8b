"""picamera2's running camera (its ``picamera2.py``, 0.3.21 to 0.3.38) over the simulated
sensor, for :mod:`vision.sources.simulated.picamera2`: ``Picamera2`` inherits it.

- ``start()``: configures "preview" if never configured, starts the NullPreview
  event loop (``start_preview(False)``), then ``start_()`` hands the controls to
  libcamera and resets ``self.controls`` to an empty ``Controls``. From 0.3.27
  (picamera2 pull request #1265) ``start_`` adds ``ExposureTimeMode`` for an
  ``ExposureTime`` and ``AnalogueGainMode`` for an ``AnalogueGain`` ("The latest
  libcamera requires is to set ExposureTimeMode to manual if we are setting a fixed
  value": 0 for a value of 0, else 1), whether or not libcamera advertises them.
- libcamera applies the controls it is started with (``IpaBase::start`` ->
  ``applyControls``: :class:`~vision.sources.simulated.libcamera_agc.Agc`), and each
  frame the AGC picks the automatic exposure and gain for the scene it meters.
- ``stop()``: while the event loop runs it is itself a job
  (``dispatch_functions([self.stop_], wait=True, immediate=True)``): behind a
  capture job that no frame will finish it waits for ever.
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from vision.sources.simulated.libcamera_agc import Agc
from vision.sources.simulated.picamera2_controls import Controls, clamped

AGC_CONVERGENCE_FRAMES = 6
AWB_CONVERGENCE_FRAMES = 3
MISTRUST_FRAMES_STARTUP = 1
"""The Raspberry Pi IPA's defaults (libcamera ``src/ipa/rpi``: the tuning files'
``convergence_frames`` of AGC and AWB, ``CamHelper::mistrustFramesStartup``)."""

START_ADDS_MODES = (0, 3, 27)
"""The picamera2 release whose ``start_`` adds the mode controls (pull request #1265)."""


def version_tuple(version: str) -> tuple[int, ...]:
    """``"0.3.38"`` -> ``(0, 3, 38)``."""
    return tuple(int(part) for part in version.split(".")[:3])


class Running:
    """picamera2's ``start``/``start_``/``stop``, its NullPreview event loop, and the sensor."""

    camera_config: dict[str, Any]
    camera_ctrl_info: dict[str, tuple[Any, Any, Any]]
    controls: Controls
    libcamera_controls: dict[str, Any]
    started: bool
    stats: dict[str, int]
    completed_requests: list[tuple[int, int, dict[str, Any], int]]
    _requests: list[tuple[int, int, dict[str, Any], int]]
    _requests_lock: threading.Lock
    _wake: threading.Event
    _event_loop_running: bool
    _loop_abort: threading.Event
    _loop_thread: threading.Thread | None
    _sensor_stop: threading.Event
    _sensor_thread: threading.Thread | None
    _mode: dict[str, Any] | None
    _agc: Agc
    _sensor: dict[str, Any]
    _first_start: bool

    if TYPE_CHECKING:  # Picamera2's own, and RequestQueue's

        def _knob(self, name: str) -> Any: ...  # a knob of the picamera2 module

        def configure(self, camera_config: Any = None) -> None: ...

        def dispatch_functions(self, functions: Any, wait: Any, immediate: bool = False) -> Any: ...

        def process_requests(self) -> None: ...

    def set_controls(self, controls: dict[str, Any]) -> None:
        """Controls for the next requests (``set_controls`` -> ``Controls.set_controls``);
        libcamera applies them to the frames after (``IpaBase::prepareIsp``). From 0.3.27
        ``CompletedRequest.release`` (``request.py``) adds the mode of an ``ExposureTime``
        or ``AnalogueGain`` it sends with a request: manual for a value, auto for 0 (then
        the 0 itself is not sent)."""
        self.controls.set_controls(controls)
        if not self.started:
            return
        converted = Controls(self, controls).make_dict()  # type: ignore[arg-type]  # FrameRate
        applied = clamped(converted, self.camera_ctrl_info)
        if version_tuple(self._knob("VERSION")) >= START_ADDS_MODES:
            for name in ("ExposureTime", "AnalogueGain"):
                if name in converted:  # the value asked, before libcamera clamps it
                    applied[f"{name}Mode"] = 1 if converted[name] else 0
                    if not converted[name]:
                        del applied[name]
        with self._requests_lock:
            self.libcamera_controls.update(applied)
            self._agc.apply(applied, self.camera_ctrl_info, self._knob("LIBCAMERA"))

    def start(self, config: Any = None, show_preview: Any = False) -> None:
        """``start``: configure if asked (or never configured), the event loop, ``start_``."""
        if not self.camera_config and config is None:
            config = "preview"
        if config is not None:
            self.configure(config)
        if show_preview is not None and not self._event_loop_running:
            self._start_preview()
        self.start_()

    def start_(self) -> None:
        """``start_``: libcamera starts with the controls set; ``controls`` is emptied."""
        if not self.camera_config:
            raise RuntimeError("Camera has not been configured")
        if self.started:
            return
        asked = self.controls.make_dict()
        controls = clamped(asked, self.camera_ctrl_info)
        if version_tuple(self._knob("VERSION")) >= START_ADDS_MODES:
            for name in ("ExposureTime", "AnalogueGain"):
                if name in asked:  # the value asked, before libcamera clamps it
                    controls[f"{name}Mode"] = 0 if asked[name] == 0 else 1
        self.libcamera_controls = controls
        self._agc.apply(controls, self.camera_ctrl_info, self._knob("LIBCAMERA"))
        self.controls = Controls(self)  # type: ignore[arg-type]
        hidden = self._startup_frames() if self._first_start else 0
        self._first_start = False
        self._sensor_stop.clear()
        self._sensor_thread = threading.Thread(
            target=self._run_sensor, args=(hidden,), name="sim-libcamera", daemon=True
        )
        self._sensor_thread.start()
        self.started = True

    def _startup_frames(self) -> int:
        """The frames libcamera hides on the camera's first start (``IpaBase::start``,
        ``firstStart_``: ``dropFrameCount_`` is the larger of the AGC's and the AWB's
        ``getConvergenceFrames()``, each plus the mistrusted frame; an algorithm fixed by
        the controls converges in 0): picamera2 never sees them (``process_requests``
        keeps ``FrameMetadata.Status.Success`` requests only)."""
        agc = self._agc
        auto_exposure = not (agc.fixed_exposure_us and agc.fixed_gain)
        auto_white = self.libcamera_controls.get("AwbEnable", True) and (
            "ColourGains" not in self.libcamera_controls
        )
        agc_frames = AGC_CONVERGENCE_FRAMES + MISTRUST_FRAMES_STARTUP if auto_exposure else 0
        awb_frames = AWB_CONVERGENCE_FRAMES + MISTRUST_FRAMES_STARTUP if auto_white else 0
        return max(agc_frames, awb_frames)

    def _start_preview(self) -> None:
        """NullPreview.start: the event loop thread that runs ``process_requests``."""
        self._loop_abort.clear()
        self._event_loop_running = True
        self._loop_thread = threading.Thread(target=self._event_loop, name="sim-nullpreview")
        self._loop_thread.daemon = True
        self._loop_thread.start()

    def _stop_preview(self) -> None:
        """``stop_preview`` -> NullPreview.stop: abort the loop and join it."""
        self._loop_abort.set()
        self._wake.set()
        thread, self._loop_thread = self._loop_thread, None
        if thread is not None and thread is not threading.current_thread():
            thread.join()
        self._event_loop_running = False

    def _event_loop(self) -> None:
        while not self._loop_abort.is_set():
            if self._wake.wait(0.2):  # NullPreview.thread_func: sel.select(0.2)
                self._wake.clear()
                if not self._loop_abort.is_set():
                    self.process_requests()

    def _frame_duration_us(self) -> int:
        assert self._mode is not None
        lo, hi, _ = self.camera_ctrl_info["FrameDurationLimits"]
        limits = self.libcamera_controls.get("FrameDurationLimits", (lo, hi))
        return int(min(max(int(limits[0]), lo), hi))

    def _taken_with(self, duration: int) -> dict[str, Any]:
        """What the next frame is taken with: the controls, and the exposure time and gain
        the AGC applies under the scene it meters now (``SCENE``)."""
        info = self.camera_ctrl_info
        exposure = info.get("ExposureTime", (1, duration, None))
        gain = info.get("AnalogueGain", (*self._sensor["gain"], None))
        scene = float(self._knob("SCENE"))
        exposure_us, analogue_gain = self._agc.expose(
            scene, duration, (exposure[0], exposure[1]), (gain[0], gain[1])
        )
        return {
            **self.libcamera_controls,
            "ExposureTime": exposure_us,
            "AnalogueGain": analogue_gain,
            "Lux": 400.0 * scene,
        }

    def _run_sensor(self, hidden: int) -> None:
        next_t = time.perf_counter()
        seq = 0
        while not self._sensor_stop.is_set():
            duration = self._frame_duration_us()
            next_t += duration / 1e6
            delay = next_t - time.perf_counter()
            if delay > 0 and self._sensor_stop.wait(delay):
                return
            if delay < -0.5:
                next_t = time.perf_counter()  # fell far behind (a paused machine): resync
            stall = self._knob("STALL_AFTER")
            if stall is not None and self.stats["delivered"] >= stall:
                continue  # the cable is out: no request completes
            seq += 1
            if seq <= hidden:
                continue  # a startup frame libcamera drops (_startup_frames)
            with self._requests_lock:
                self.stats["delivered"] += 1
                taken = self._taken_with(duration)
                self._requests.append((seq, time.monotonic_ns(), taken, duration))
            self._wake.set()  # CameraManager.handle_request: os.write(notifyme_w)

    def stop_(self) -> tuple[bool, Any]:
        """``stop_``: libcamera stops; requests not yet seen are dropped."""
        if self.started:
            self._sensor_stop.set()
            thread, self._sensor_thread = self._sensor_thread, None
            if thread is not None:
                thread.join()
            self.started = False
            with self._requests_lock:
                self._requests = []
            self.completed_requests = []
        return (True, None)

    def stop(self) -> None:
        """``stop``: through the job queue while the event loop runs (behind every job)."""
        if not self.started:
            return
        if self._event_loop_running:
            self.dispatch_functions([self.stop_], wait=True, immediate=True)
        else:
            self.stop_()
