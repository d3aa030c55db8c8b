"""A simulated ``picamera2`` module: picamera2's ``Picamera2`` as its source behaves.

Written function by function after picamera2 0.3.38's ``picamera2/picamera2.py``,
``job.py``, ``controls.py`` and ``previews/null_preview.py`` (the PyPI wheel; Raspberry
Pi OS Bookworm's apt package ``python3-picamera2`` is built from the same
repository; the behaviours below are in every release since 0.3.21, the oldest the
source accepts).
Each behaviour the table relies on is cited to its function (``picamera2.py``
unless named otherwise). libcamera itself (the sensor and the ISP) is
simulated: frames of a grey tray with a red and a green square, one every frame
duration, on a thread.

Behaviours reproduced:

- ``global_camera_info()``: one dict per camera (``Model``, ``Location``,
  ``Rotation`` from libcamera's properties, ``Id``, ``Num``), sorted so that USB
  cameras (``"/usb"`` in ``Id``) come last; ``Picamera2(n)`` opens the n-th of
  that list (``__init__``: ``global_camera_info()[camera_num]['Num']``) and a
  camera another process holds fails ``camera.acquire()`` (libcamera: "Device or
  resource busy"), which ``__init__`` re-raises as "Camera __init__ sequence did
  not complete." from it.
- ``camera_controls``: the controls libcamera advertises *now*. Before the
  first ``configure()`` they are libcamera's start-up placeholders
  (Raspberry Pi's libcamera, ``src/ipa/rpi/common/ipa_base.cpp``: ``IpaBase::init``
  returns ``ipaControls``, FrameDurationLimits 33333..120000, ExposureTime
  0..66666); ``configure_()`` refreshes ``camera_ctrl_info`` from
  ``camera.controls``, which ``IpaBase::configure`` sets to the chosen sensor
  mode's ranges (``mode_.minFrameDuration``.., ``minShutter``..).
- ``sensor_modes``: the first read configures the camera once per raw mode
  (``create_preview_configuration(raw=...)`` then ``configure()``), reads each
  mode's ``fps`` as ``round(1e6 / FrameDurationLimits[0], 2)``, and leaves the
  camera configured in the *last* mode listed (the full-resolution one); later
  reads return the cached list. A USB camera's modes are ``{"format": name}``
  only: no ``size``, no ``fps`` (its formats are not raw Bayer ones).
- ``configure_()``: refused while started ("Camera must be stopped before
  configuring"); ``queue and buffer_count > 1`` keeps one completed request
  waiting (``_max_queue_len = 1``), else none; then ``DmaAllocator.allocate``
  takes ``buffer_count`` buffers per stream from CMA, and an ``OSError`` (ENOMEM)
  from its ioctl goes through to the caller, from ``sensor_modes`` too.
- ``start()``: configures "preview" if never configured, starts the NullPreview
  event loop (``start_preview(False)``), then ``start_()`` hands the controls to
  libcamera and resets ``self.controls`` to an empty ``Controls``.
- ``stop()``: while the event loop runs it is itself a job
  (``dispatch_functions([self.stop_], wait=True, immediate=True)``): behind a
  capture job that no frame will finish it waits for ever.
  ``cancel_all_and_flush()`` cancels every queued job (``CancelledError`` to
  their waiters) and empties the list, "for example, the camera cable has
  become dislodged".
- ``close()``: stops the preview's event loop first, then ``stop()`` runs
  directly, then the camera is released.

The rest is in modules of its own, each citing its behaviours:

- :mod:`vision.sources.simulated.picamera2_config`: the ``create_*_configuration``
  builders (``Picamera2`` inherits them) and the sensor mode a configuration picks;
- :mod:`vision.sources.simulated.picamera2_controls`: ``Controls`` and libcamera's
  clamping of control values;
- :mod:`vision.sources.simulated.picamera2_requests`: the job queue and the captures
  that go through it (``Picamera2`` inherits them);
- :mod:`vision.sources.simulated.picamera2_job`: ``Job``;
- :mod:`vision.sources.simulated.libcamera_sensors`: the cameras, their sensor modes
  and the controls libcamera advertises before and after a mode is configured;
- :mod:`vision.sources.simulated.libcamera_frames`: what a completed request holds
  (the stream's picture, its metadata).

The simulation's own knobs (module globals): ``CAMERAS`` (the cameras attached,
in libcamera's order), ``STALL_AFTER`` (frames each started camera completes
before it goes silent, as with a dislodged cable; None: never), ``CMA_BYTES`` (the
contiguous memory the frame buffers come from; None: plenty). ``stats`` on a
camera counts frames ``delivered`` and ``dropped`` (completed requests released
unread) and ``max_queue`` (completed requests waiting at once);
``libcamera_controls`` holds the controls libcamera was started with, merged
with later ``set_controls``.
"""

from __future__ import annotations

import copy
import errno
import os
import threading
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from vision.sources.simulated.libcamera_frames import FORMATS
from vision.sources.simulated.libcamera_sensors import (
    CAMERA_MODULE_2,
    CAMERA_MODULE_3,
    HQ_CAMERA,
    IPA_INIT_EXPOSURE,
    IPA_INIT_FRAME_DURATIONS,
    SENSORS,
    USB_WEBCAM,
    advertised_controls,
    bit_depth,
    is_usb,
    sensor,
)
from vision.sources.simulated.picamera2_config import ConfigurationBuilders
from vision.sources.simulated.picamera2_controls import Controls, clamped
from vision.sources.simulated.picamera2_job import Job
from vision.sources.simulated.picamera2_requests import RequestQueue

__all__ = [  # the module's surface, as tests and the camera bench use it
    "CAMERAS",
    "CAMERA_MODULE_2",
    "CAMERA_MODULE_3",
    "CMA_BYTES",
    "FORMATS",
    "HQ_CAMERA",
    "IPA_INIT_EXPOSURE",
    "IPA_INIT_FRAME_DURATIONS",
    "SENSORS",
    "STALL_AFTER",
    "USB_WEBCAM",
    "VERSION",
    "Controls",
    "Job",
    "Picamera2",
]

VERSION = "0.3.38"
"""The picamera2 release whose source this simulation follows."""


CAMERAS: list[dict[str, Any]] = [CAMERA_MODULE_3]
"""The cameras libcamera sees, in libcamera's order (tests replace the list)."""
STALL_AFTER: int | None = None
"""Frames each started camera completes before going silent; None: never."""
CMA_BYTES: int | None = None
"""Contiguous memory (CMA) the dma-heap can hand out, in bytes; None: plenty. A Pi Zero 2
has 256 MB, and other programs' buffers take their share."""

_busy: set[int] = set()


def _allocate(config: dict[str, Any]) -> None:
    """``configure_`` -> ``DmaAllocator.allocate`` (``allocators/dmaallocator.py``):
    ``buffer_count`` buffers of each stream's frame size from the dma-heap, whose
    ``DmaHeap.alloc`` ioctl fails ``OSError(ENOMEM)`` when CMA runs short. It runs after
    libcamera took the configuration and before ``camera_config`` is set: the camera is
    left unconfigured. A raw stream's frame: packed CSI2P rows (``bit_depth`` bits a
    pixel), as libcamera sizes them.

    Raises:
        OSError: ENOMEM, "Cannot allocate memory" (picamera2 lets it through).
    """
    if CMA_BYTES is None:
        return
    need = config["main"]["framesize"]
    raw = config.get("raw")
    if raw is not None:
        width, height = raw["size"]
        need += width * bit_depth(raw["format"]) // 8 * height
    if need * config["buffer_count"] > CMA_BYTES:
        raise OSError(errno.ENOMEM, os.strerror(errno.ENOMEM))


class Picamera2(ConfigurationBuilders, RequestQueue):
    """One simulated libcamera camera behind picamera2's ``Picamera2`` behaviour."""

    def __init__(self, camera_num: int = 0, tuning: Any = None, allocator: Any = None) -> None:
        infos = self.global_camera_info()
        if camera_num >= len(infos):
            raise RuntimeError(
                f'No camera number {camera_num} found - use "rpicam-hello --list-cameras" '
                "to check connected cameras"
            )
        self.camera_idx = int(infos[camera_num]["Num"])
        self.is_open = False
        self._info = CAMERAS[self.camera_idx]
        self._sensor = sensor(self._info)
        if self.camera_idx in _busy:
            try:
                raise RuntimeError("Failed to acquire camera: Device or resource busy")
            except RuntimeError as exc:
                raise RuntimeError("Camera __init__ sequence did not complete.") from exc
        _busy.add(self.camera_idx)
        self.is_open = True
        self.camera_properties: dict[str, Any] = {
            "Model": self._info["Model"],
            "Location": self._info.get("Location"),
            "Rotation": self._info.get("Rotation", 0),
            "PixelArraySize": self._sensor["pixel_array"],
        }
        self.camera_ctrl_info: dict[str, tuple[Any, Any, Any]] = advertised_controls(
            self._info, None
        )
        self.camera_config: dict[str, Any] = {}
        self.controls = Controls(self)
        self.libcamera_controls: dict[str, Any] = {}
        self.sensor_modes_: list[dict[str, Any]] = []
        self.started = False
        self.configure_count = 0
        self.stats = {"delivered": 0, "dropped": 0, "max_queue": 0}
        self._mode: dict[str, Any] | None = None
        self._max_queue_len = 0
        self.lock = threading.Lock()  # protects _job_list and completed_requests
        self._job_list: list[Job] = []
        self.completed_requests: list[tuple[int, int, dict[str, Any], int]] = []
        self._requests: list[tuple[int, int, dict[str, Any], int]] = []
        self._requests_lock = threading.Lock()
        self._wake = threading.Event()  # picamera2's notifyme pipe
        self._event_loop_running = False
        self._loop_abort = threading.Event()
        self._loop_thread: threading.Thread | None = None
        self._sensor_stop = threading.Event()
        self._sensor_thread: threading.Thread | None = None
        self._picture: dict[tuple[Any, ...], NDArray[np.uint8]] = {}

    @staticmethod
    def global_camera_info() -> list[dict[str, Any]]:
        """The cameras, USB ones last (``global_camera_info``: its sort key and ``reverse``)."""
        cameras: list[dict[str, Any]] = []
        for num, info in enumerate(CAMERAS):
            entry: dict[str, Any] = {
                k: info[k] for k in ("Model", "Location", "Rotation") if k in info
            }
            cameras.append({**entry, "Id": info["Id"], "Num": num})
        return sorted(cameras, key=lambda c: ("/usb" not in c["Id"], c["Id"]), reverse=True)

    # --- what libcamera advertises ---

    @property
    def camera_controls(self) -> dict[str, tuple[Any, Any, Any]]:
        """Control name -> (min, max, default), as libcamera advertises them now."""
        return dict(self.camera_ctrl_info)

    @property
    def sensor_modes(self) -> list[dict[str, Any]]:
        """The sensor's modes; the first read reconfigures the camera once per mode."""
        if self.sensor_modes_:
            return self.sensor_modes_
        modes: list[dict[str, Any]] = []
        if is_usb(self._info):
            self.sensor_modes_ = [{"format": name} for name in self._sensor["formats"]]
            return self.sensor_modes_
        fmt = self._sensor["format"]
        depth = bit_depth(fmt)
        self.sensor_modes_ = modes  # filled as it goes: a configure that fails leaves a part
        for mode in self._sensor["modes"]:
            cam_mode: dict[str, Any] = {
                "format": fmt,
                "unpacked": fmt.split("_")[0],
                "bit_depth": depth,
                "size": mode["size"],
            }
            self.configure(
                self.create_preview_configuration(raw={"format": fmt, "size": mode["size"]})
            )
            cam_mode["fps"] = round(1e6 / self.camera_controls["FrameDurationLimits"][0], 2)
            cam_mode["crop_limits"] = self.camera_controls["ScalerCrop"][1]
            cam_mode["exposure_limits"] = tuple(
                i for i in self.camera_controls["ExposureTime"] if i != 0
            )
            modes.append(cam_mode)
        return modes

    # --- configuring (the builders: ConfigurationBuilders) ---

    def configure(self, camera_config: Any = None) -> None:
        """``configure_``: a configuration dict, or "preview"/"still"/"video".

        Raises:
            RuntimeError: started, invalid, or a control libcamera does not advertise.
        """
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        if camera_config is None or isinstance(camera_config, str):
            camera_config = getattr(self, f"create_{camera_config or 'preview'}_configuration")()
        config = copy.deepcopy(camera_config)
        self.camera_config = {}
        main = config["main"]
        if main["format"] not in FORMATS:
            raise RuntimeError(f"Invalid camera configuration: {config}")
        width, height = (int(v) for v in main["size"])
        if width <= 0 or height <= 0:
            raise RuntimeError(f"Invalid camera configuration: {config}")
        full = self._sensor["pixel_array"]
        # libcamera's validate() aligns the output to even sizes (status Adjusted)
        main["size"] = (min(width - width % 2, full[0]), min(height - height % 2, full[1]))
        main["stride"] = main["size"][0] * FORMATS[main["format"]]
        main["framesize"] = main["stride"] * main["size"][1]
        mode = self._pick_mode(config)
        if is_usb(self._info):
            config["raw"] = None  # configure_: "non-Pi cameras aren't asking for a raw stream"
        else:
            fmt = self._sensor["format"]
            config["sensor"] = {"bit_depth": bit_depth(fmt), "output_size": mode["size"]}
            if config.get("raw") is not None:  # libcamera's validate() fits it to the mode
                config["raw"] = {**config["raw"], "format": fmt, "size": mode["size"]}
        self._mode = mode
        # configure_: the controls list refreshed for the mode just configured
        self.camera_ctrl_info = advertised_controls(self._info, mode)
        self._max_queue_len = 1 if config["queue"] and config["buffer_count"] > 1 else 0
        _allocate(config)
        self.camera_config = config
        self.controls = Controls(self, config["controls"])
        self.configure_count += 1

    def camera_configuration(self) -> dict[str, Any]:
        """The configuration in force, sizes as libcamera adjusted them."""
        return self.camera_config

    def set_controls(self, controls: dict[str, Any]) -> None:
        """Controls for the next requests (``set_controls`` -> ``Controls.set_controls``)."""
        self.controls.set_controls(controls)
        if self.started:
            with self._requests_lock:
                self.libcamera_controls.update(clamped(controls, self.camera_ctrl_info))

    # --- running: start, the sensor, the event loop ---

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
        controls = clamped(self.controls.make_dict(), self.camera_ctrl_info)
        # start_: "The latest libcamera requires is to set ExposureTimeMode to manual if we
        # are setting a fixed value" (0 for a value of 0); "Ditto for the analogue gain."
        for name in ("ExposureTime", "AnalogueGain"):
            if name in controls:
                controls[f"{name}Mode"] = 0 if controls[name] == 0 else 1
        self.libcamera_controls = controls
        self.controls = Controls(self)
        self._sensor_stop.clear()
        self._sensor_thread = threading.Thread(
            target=self._run_sensor, name="sim-libcamera", daemon=True
        )
        self._sensor_thread.start()
        self.started = True

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

    def _run_sensor(self) -> None:
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
            if STALL_AFTER is not None and self.stats["delivered"] >= STALL_AFTER:
                continue  # the cable is out: no request completes
            seq += 1
            with self._requests_lock:
                self.stats["delivered"] += 1
                controls = dict(self.libcamera_controls)
                self._requests.append((seq, time.monotonic_ns(), controls, duration))
            self._wake.set()  # CameraManager.handle_request: os.write(notifyme_w)

    # --- stopping ---

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

    def close(self) -> None:
        """``close``: the event loop stops first, then ``stop()``, then the camera is released."""
        if self._event_loop_running:
            self._stop_preview()
        if not self.is_open:
            return
        self.stop()
        _busy.discard(self.camera_idx)
        self.is_open = False
        self.camera_ctrl_info = {}
        self.camera_config = {}

    def __enter__(self) -> Picamera2:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
