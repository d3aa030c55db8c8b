"""A simulated ``picamera2`` module: picamera2's ``Picamera2`` as its source behaves.

Written function by function after picamera2's ``picamera2/picamera2.py``, ``job.py``,
``controls.py`` and ``previews/null_preview.py``, release 0.3.38 (:data:`VERSION`; the
PyPI wheel, read for this). Raspberry Pi OS's apt package ``python3-picamera2`` is built
from the same repository, at an older release on Bookworm (0.3.31 in 2025): where a
behaviour the table relies on changed between 0.3.21 (the oldest the source accepts)
and 0.3.38 the simulation follows :data:`VERSION`, which tests set to an older release
(the wheels of 0.3.21, 0.3.27, 0.3.31, 0.3.34 to 0.3.38 were read). Each behaviour is
cited to its function (``picamera2.py`` unless named otherwise). libcamera itself (the
sensor, its AGC, the ISP) is simulated: frames of a grey tray with a red and a green
square, one every frame duration, on a thread; :data:`LIBCAMERA` says which libcamera's
controls (:mod:`~vision.sources.simulated.libcamera_sensors`).

Behaviours reproduced:

- ``global_camera_info()``: one dict per camera (``Model``, ``Location``,
  ``Rotation`` from libcamera's properties, ``Id``, ``Num``), sorted so that USB
  cameras (``"/usb"`` in ``Id``) come last; ``Picamera2(n)`` opens the n-th of
  that list (``__init__``: ``global_camera_info()[camera_num]['Num']``).
- ``__init__``: a camera another process holds fails ``camera.acquire()`` (libcamera's
  Python binding, ``py_main.cpp``, turns its error code into a ``std::system_error``:
  ``RuntimeError`` "Failed to acquire camera: Device or resource busy"), which
  ``__init__``'s ``except Exception`` re-raises as "Camera __init__ sequence did not
  complete.": ``from e`` since 0.3.35, so libcamera's reason is the ``__cause__``;
  before (0.3.21 to 0.3.34) a bare ``raise`` in the handler, and the reason is only the
  ``__context__``. :data:`ACQUIRE_ERRNO` fails every acquire with another error
  (``Camera::acquire``, ``camera.cpp``: -EBUSY for a camera in use, -ENODEV for one
  disconnected).
- ``camera_controls``: the controls libcamera advertises *now*. Before the
  first ``configure()`` they are libcamera's start-up placeholders
  (Raspberry Pi's libcamera, ``src/ipa/rpi/common/ipa_base.cpp``: ``IpaBase::init``
  returns ``ipaControls``, FrameDurationLimits 33333..120000, ExposureTime
  1..66666 in libcamera 0.5, 0..66666 before); ``configure_()`` refreshes
  ``camera_ctrl_info`` from ``camera.controls``, which ``IpaBase::configure`` sets to
  the chosen sensor mode's ranges (``mode_.minFrameDuration``.., ``minExposureTime``..).
- ``sensor_modes``: the first read configures the camera once per raw mode
  (``create_preview_configuration(raw=...)`` then ``configure()``), reads each
  mode's ``fps`` as ``round(1e6 / FrameDurationLimits[0], 2)``, and leaves the
  camera configured in the *last* mode listed (the full-resolution one); later
  reads return the cached list. Each mode carries its own raw format (the HQ camera's
  1332x990 is 10-bit). A USB camera's modes are ``{"format": name}`` only: no
  ``size``, no ``fps`` (its formats are not raw Bayer ones).
- ``configure_()``: refused while started ("Camera must be stopped before
  configuring"); ``check_camera_config`` -> ``check_stream_config`` refuses a format
  picamera2 does not know ("Bad format X in stream main") and odd sizes;
  ``queue and buffer_count > 1`` keeps one completed request waiting
  (``_max_queue_len = 1``), else none; then ``DmaAllocator.allocate`` takes
  ``buffer_count`` buffers per stream from CMA, and an ``OSError`` (ENOMEM) from its
  ioctl goes through to the caller, from ``sensor_modes`` too.
- ``close()``: stops the preview's event loop first, then ``stop()`` runs
  directly, then the camera is released.

The rest is in modules of its own, each citing its behaviours:

- :mod:`vision.sources.simulated.picamera2_config`: the ``create_*_configuration``
  builders (``Picamera2`` inherits them), ``check_stream_config`` and the sensor mode a
  configuration picks;
- :mod:`vision.sources.simulated.picamera2_running`: ``start``/``start_``, ``stop``,
  ``set_controls``, the event loop and the sensor thread (``Picamera2`` inherits them);
- :mod:`vision.sources.simulated.picamera2_controls`: ``Controls`` and libcamera's
  clamping of control values;
- :mod:`vision.sources.simulated.picamera2_requests`: the job queue and the captures
  that go through it (``Picamera2`` inherits them);
- :mod:`vision.sources.simulated.picamera2_job`: ``Job``;
- :mod:`vision.sources.simulated.libcamera_sensors`: the cameras, their sensor modes
  and the controls libcamera advertises before and after a mode is configured;
- :mod:`vision.sources.simulated.libcamera_agc`: which of exposure and gain libcamera
  fixes, and what its AGC makes of the automatic ones;
- :mod:`vision.sources.simulated.libcamera_frames`: what a completed request holds
  (the stream's picture, its metadata).

The simulation's own knobs (module globals): ``CAMERAS`` (the cameras attached,
in libcamera's order), ``STALL_AFTER`` (frames each started camera completes
before it goes silent, as with a dislodged cable; None: never), ``CMA_BYTES`` (the
contiguous memory the frame buffers come from; None: plenty), ``VERSION`` (the
picamera2 release followed), ``LIBCAMERA`` (the libcamera whose controls are
advertised), ``SCENE`` (how bright the scene the AGC meters is, against the bare tray
under the table's lamp: a hand or dark dice lower it, the tray's own light does not
change), ``ACQUIRE_ERRNO`` (an errno every ``acquire`` fails with; None: only a
camera already open fails, EBUSY).
``stats`` on a camera counts frames ``delivered`` and ``dropped`` (completed requests
released unread) and ``max_queue`` (completed requests waiting at once);
``libcamera_controls`` holds the controls libcamera was started with, merged
with later ``set_controls``.
"""

from __future__ import annotations

import copy
import errno
import os
import threading
from typing import Any, NoReturn

import numpy as np
from numpy.typing import NDArray

from vision.sources.simulated.libcamera_agc import Agc
from vision.sources.simulated.libcamera_frames import FORMATS
from vision.sources.simulated.libcamera_sensors import (
    CAMERA_MODULE_2,
    CAMERA_MODULE_3,
    HQ_CAMERA,
    IPA_INIT_EXPOSURE,
    IPA_INIT_FRAME_DURATIONS,
    LIBCAMERA_0_4,
    LIBCAMERA_0_5,
    SENSORS,
    USB_WEBCAM,
    advertised_controls,
    bit_depth,
    is_usb,
    mode_format,
    sensor,
)
from vision.sources.simulated.picamera2_config import ConfigurationBuilders
from vision.sources.simulated.picamera2_controls import Controls
from vision.sources.simulated.picamera2_job import Job
from vision.sources.simulated.picamera2_requests import RequestQueue
from vision.sources.simulated.picamera2_running import Running, version_tuple

__all__ = [  # the module's surface, as tests and the camera bench use it
    "ACQUIRE_ERRNO",
    "CAMERAS",
    "CAMERA_MODULE_2",
    "CAMERA_MODULE_3",
    "CMA_BYTES",
    "FORMATS",
    "HQ_CAMERA",
    "IPA_INIT_EXPOSURE",
    "IPA_INIT_FRAME_DURATIONS",
    "LIBCAMERA",
    "LIBCAMERA_0_4",
    "LIBCAMERA_0_5",
    "SCENE",
    "SENSORS",
    "STALL_AFTER",
    "USB_WEBCAM",
    "VERSION",
    "Controls",
    "Job",
    "Picamera2",
]

VERSION = "0.3.38"
"""The picamera2 release whose source this simulation follows (tests set older ones)."""
RAISE_FROM_SINCE = (0, 3, 35)
"""The release whose ``__init__`` re-raises ``from e`` (before: the reason is the context)."""

CAMERAS: list[dict[str, Any]] = [CAMERA_MODULE_3]
"""The cameras libcamera sees, in libcamera's order (tests replace the list)."""
STALL_AFTER: int | None = None
"""Frames each started camera completes before going silent; None: never."""
CMA_BYTES: int | None = None
"""Contiguous memory (CMA) the dma-heap can hand out, in bytes; None: plenty. A Pi Zero 2
has 256 MB, and other programs' buffers take their share."""
LIBCAMERA = LIBCAMERA_0_5
"""The libcamera whose controls the cameras advertise: ``"0.5"`` (the mode controls,
``ColourTemperature``) or ``"0.4"`` (``AeEnable`` only)."""
SCENE = 1.0
"""How bright the scene the AGC meters is, against the bare tray (1.0); read each frame."""
ACQUIRE_ERRNO: int | None = None
"""An errno every ``acquire()`` fails with (ENODEV: the camera is gone); None: only a camera
already open fails, with EBUSY ("Device or resource busy")."""

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


class Picamera2(ConfigurationBuilders, RequestQueue, Running):
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
        if ACQUIRE_ERRNO is not None or self.camera_idx in _busy:
            self._acquire_failed(errno.EBUSY if ACQUIRE_ERRNO is None else ACQUIRE_ERRNO)
        _busy.add(self.camera_idx)
        self.is_open = True
        self.camera_properties: dict[str, Any] = {
            "Model": self._info["Model"],
            "Location": self._info.get("Location"),
            "Rotation": self._info.get("Rotation", 0),
            "PixelArraySize": self._sensor["pixel_array"],
        }
        self.camera_ctrl_info: dict[str, tuple[Any, Any, Any]] = advertised_controls(
            self._info, None, LIBCAMERA
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
        self._agc = Agc()  # the IPA's AGC: its status lives as long as the camera is open
        self._first_start = True  # the IPA's firstStart_: its first start hides frames
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
    def _acquire_failed(code: int) -> NoReturn:
        """``__init__``'s ``except Exception`` around ``_open_camera`` -> ``camera.acquire()``,
        which libcamera's binding (``py_main.cpp``) fails with ``std::system_error(-ret,
        std::generic_category(), "Failed to acquire camera")``: pybind11 raises that as a
        ``RuntimeError`` of its ``what()``, "Failed to acquire camera: <strerror>".

        Raises:
            RuntimeError: "Camera __init__ sequence did not complete.", libcamera's reason
                its ``__cause__`` (0.3.35 on) or only its ``__context__`` (before).
        """
        try:
            raise RuntimeError(f"Failed to acquire camera: {os.strerror(code)}")
        except RuntimeError as exc:
            if version_tuple(VERSION) >= RAISE_FROM_SINCE:
                raise RuntimeError("Camera __init__ sequence did not complete.") from exc
            raise RuntimeError("Camera __init__ sequence did not complete.")  # noqa: B904

    @staticmethod
    def _knob(name: str) -> Any:
        """A knob of this module (tests change them here, on the module)."""
        return globals()[name]

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
        self.sensor_modes_ = modes  # filled as it goes: a configure that fails leaves a part
        for mode in self._sensor["modes"]:  # by raw format, then size, as libcamera lists them
            fmt = mode_format(self._sensor, mode)
            cam_mode: dict[str, Any] = {
                "format": fmt,
                "unpacked": fmt.split("_")[0],
                "bit_depth": bit_depth(fmt),
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
        self.check_stream_config(main, "main")  # check_camera_config
        if main["format"] not in FORMATS:
            raise RuntimeError(
                f"the simulated picamera2 draws {', '.join(FORMATS)} only, not {main['format']}"
            )
        width, height = main["size"]
        if width <= 0 or height <= 0:
            raise RuntimeError(f"Invalid camera configuration: {config}")
        full = self._sensor["pixel_array"]
        # libcamera's validate() fits the output within the sensor (status Adjusted)
        main["size"] = (min(width, full[0]), min(height, full[1]))
        main["stride"] = main["size"][0] * FORMATS[main["format"]]
        main["framesize"] = main["stride"] * main["size"][1]
        mode = self._pick_mode(config)
        if is_usb(self._info):
            config["raw"] = None  # configure_: "non-Pi cameras aren't asking for a raw stream"
        else:
            fmt = mode_format(self._sensor, mode)
            config["sensor"] = {"bit_depth": bit_depth(fmt), "output_size": mode["size"]}
            if config.get("raw") is not None:  # libcamera's validate() fits it to the mode
                config["raw"] = {**config["raw"], "format": fmt, "size": mode["size"]}
        self._mode = mode
        # configure_: the controls list refreshed for the mode just configured
        self.camera_ctrl_info = advertised_controls(self._info, mode, LIBCAMERA)
        self._max_queue_len = 1 if config["queue"] and config["buffer_count"] > 1 else 0
        _allocate(config)
        self.camera_config = config
        self.controls = Controls(self, config["controls"])
        self.configure_count += 1

    def camera_configuration(self) -> dict[str, Any]:
        """The configuration in force, sizes as libcamera adjusted them."""
        return self.camera_config

    # --- running: start, set_controls, stop (Running) ---

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
