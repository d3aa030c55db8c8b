"""A fake ``picamera2`` that behaves like the real API, for tests and ``bench_picamera``.

Made importable as ``picamera2`` by putting ``tests/vision/fakes`` first on
``sys.path`` (``monkeypatch.syspath_prepend``); :func:`controller.bench.camera.bench_picamera`
loads it by path under a private name. Its calls, arguments and shapes follow
the picamera2 manual (Raspberry Pi, "The Picamera2 Library"):

- ``Picamera2(camera_num)`` opens one of ``Picamera2.global_camera_info()``
  (dicts with ``Model``, ``Location``, ``Rotation``, ``Id``, ``Num``); a
  second open of the same camera fails as libcamera's "Device or resource busy".
- ``camera_properties``, ``sensor_modes`` (dicts with ``format``, ``unpacked``,
  ``bit_depth``, ``size``, ``fps``, ``crop_limits``, ``exposure_limits``) and
  ``camera_controls`` (name -> ``(min, max, default)``); the tables below are
  abridged and approximate copies of a Camera Module 3 (imx708) and 2 (imx219).
- ``create_video_configuration`` / ``create_still_configuration`` /
  ``create_preview_configuration`` return plain dicts with ``main``
  (``{"size": (w, h), "format": ...}``), ``controls``, ``buffer_count``,
  ``queue``, ``sensor``...; ``configure`` must come before ``start`` and never
  while started ("Camera must be stopped before configuring"); it rounds
  the main size down to even numbers as libcamera's alignment does.
- ``capture_array("main")`` returns ``(h, w, 3)`` uint8 for ``RGB888`` and
  ``BGR888``, ``(h, w, 4)`` for ``XRGB8888``/``XBGR8888``. ``RGB888`` is
  [B, G, R] in memory (the manual: libcamera names formats in DRM fourcc
  order), ``BGR888`` is [R, G, B]. ``capture_array(wait=False)`` returns a job
  and ``wait(job, timeout)`` its array, raising ``TimeoutError``.
- ``set_controls`` and the configuration's ``controls`` raise ``RuntimeError``
  "Control X is not advertised by libcamera" for a control the camera lacks,
  and (stricter than libcamera, which clamps) for a value out of its range;
  ``FrameDurationLimits`` is clamped to the sensor mode, as libcamera does.

Frames are completed on a thread, one per ``FrameDurationLimits`` (never
faster than the sensor mode's rate). With ``queue=True`` (picamera2's default)
only the newest completed frame waits for a capture; with ``queue=False`` a
frame is kept only while a capture waits. ``stats`` counts frames
``delivered``, ``dropped`` (replaced unread) and the ``max_queue`` depth.
The picture: a grey tray (brighter with ExposureTime x AnalogueGain) with a
red square in the top-left and a green one top-right.

Test knobs (module globals): ``CAMERAS`` (the cameras attached),
``STALL_AFTER`` (frames each camera gives before going silent; None: forever).
"""

from __future__ import annotations

import copy
import threading
import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

CAMERA_MODULE_3: dict[str, Any] = {
    "Model": "imx708",
    "Location": 2,
    "Rotation": 180,
    "Id": "/base/axi/pcie@120000/rp1/i2c@88000/imx708@1a",
    "Num": 0,
}
CAMERA_MODULE_2: dict[str, Any] = {
    "Model": "imx219",
    "Location": 2,
    "Rotation": 180,
    "Id": "/base/axi/pcie@120000/rp1/i2c@80000/imx219@10",
    "Num": 1,
}

SENSORS: dict[str, dict[str, Any]] = {
    "imx708": {
        "pixel_array": (4608, 2592),
        "modes": [
            {"size": (1536, 864), "fps": 120.13, "crop_limits": (768, 432, 3072, 1728)},
            {"size": (2304, 1296), "fps": 56.03, "crop_limits": (0, 0, 4608, 2592)},
            {"size": (4608, 2592), "fps": 14.35, "crop_limits": (0, 0, 4608, 2592)},
        ],
        "controls": {
            "AeEnable": (False, True, None),
            "AeMeteringMode": (0, 3, 0),
            "AfMode": (0, 2, 0),
            "AfRange": (0, 2, 0),
            "AfTrigger": (0, 1, 0),
            "AnalogueGain": (1.1228070259094238, 16.0, None),
            "AwbEnable": (False, True, None),
            "AwbMode": (0, 7, 0),
            "Brightness": (-1.0, 1.0, 0.0),
            "ColourGains": (0.0, 32.0, None),
            "Contrast": (0.0, 32.0, 1.0),
            "ExposureTime": (26, 112015443, None),
            "ExposureValue": (-8.0, 8.0, 0.0),
            "FrameDurationLimits": (8324, 112022056, None),
            "LensPosition": (0.0, 15.0, 1.0),
            "NoiseReductionMode": (0, 4, 0),
            "Saturation": (0.0, 32.0, 1.0),
            "Sharpness": (0.0, 16.0, 1.0),
        },
    },
    "imx219": {
        "pixel_array": (3280, 2464),
        "modes": [
            {"size": (640, 480), "fps": 103.33, "crop_limits": (1000, 752, 1280, 960)},
            {"size": (1640, 1232), "fps": 41.85, "crop_limits": (0, 0, 3280, 2464)},
            {"size": (1920, 1080), "fps": 47.57, "crop_limits": (680, 692, 1920, 1080)},
            {"size": (3280, 2464), "fps": 21.19, "crop_limits": (0, 0, 3280, 2464)},
        ],
        "controls": {
            "AeEnable": (False, True, None),
            "AnalogueGain": (1.0, 10.666666984558105, None),
            "AwbEnable": (False, True, None),
            "ColourGains": (0.0, 32.0, None),
            "ExposureTime": (75, 11766829, None),
            "FrameDurationLimits": (9677, 11767556, None),
            "NoiseReductionMode": (0, 4, 0),
        },
    },
}

CAMERAS: list[dict[str, Any]] = [CAMERA_MODULE_3]
"""The cameras libcamera sees (tests replace the list)."""
STALL_AFTER: int | None = None
"""Frames each started camera completes before going silent; None: forever."""

FORMATS = {"RGB888": 3, "BGR888": 3, "XRGB8888": 4, "XBGR8888": 4}
_busy: set[int] = set()


class Job:
    """What ``capture_array(wait=False)`` returns; ``Picamera2.wait(job)`` gives the array."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.result: NDArray[Any] | None = None


class Picamera2:
    """One libcamera camera."""

    def __init__(self, camera_num: int = 0, tuning: Any = None) -> None:
        if camera_num >= len(CAMERAS):
            raise IndexError("list index out of range")
        if camera_num in _busy:
            raise RuntimeError("Failed to acquire camera: Device or resource busy")
        _busy.add(camera_num)
        self.camera_num = camera_num
        info = CAMERAS[camera_num]
        sensor = SENSORS[info["Model"]]
        self._sensor = sensor
        self.camera_properties: dict[str, Any] = {
            "Model": info["Model"],
            "Location": info["Location"],
            "Rotation": info["Rotation"],
            "PixelArraySize": sensor["pixel_array"],
        }
        self.camera_controls: dict[str, tuple[Any, Any, Any]] = dict(sensor["controls"])
        self.camera_config: dict[str, Any] | None = None
        self.controls: dict[str, Any] = {}
        self.started = False
        self.is_open = True
        self.calls: list[str] = []
        self.stats = {"delivered": 0, "dropped": 0, "max_queue": 0}
        self._cond = threading.Condition()
        self._pending: list[tuple[int, int, dict[str, Any]]] = []
        self._waiting = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._mode: dict[str, Any] = {}
        self._last_meta: dict[str, Any] = {}
        self._base: dict[tuple[Any, ...], NDArray[Any]] = {}

    @staticmethod
    def global_camera_info() -> list[dict[str, Any]]:
        """The cameras attached, in libcamera's order."""
        return [dict(c, Num=i) for i, c in enumerate(CAMERAS)]

    @property
    def sensor_modes(self) -> list[dict[str, Any]]:
        """The sensor's raw modes."""
        return [
            {
                "format": "SRGGB10_CSI2P",
                "unpacked": "SRGGB10",
                "bit_depth": 10,
                "size": m["size"],
                "fps": m["fps"],
                "crop_limits": m["crop_limits"],
                "exposure_limits": (self.camera_controls["ExposureTime"][0], 77193582, None),
            }
            for m in self._sensor["modes"]
        ]

    # --- configurations ---

    def _configuration(
        self,
        use_case: str,
        main: dict[str, Any] | None,
        default_main: dict[str, Any],
        controls: dict[str, Any] | None,
        default_controls: dict[str, Any],
        buffer_count: int,
        queue: bool,
        sensor: dict[str, Any] | None,
        lores: dict[str, Any] | None,
        raw: dict[str, Any] | None,
    ) -> dict[str, Any]:
        return {
            "use_case": use_case,
            "transform": None,
            "colour_space": "Rec709" if use_case == "video" else "Sycc",
            "buffer_count": buffer_count,
            "queue": queue,
            "main": {**default_main, **(main or {})},
            "lores": lores,
            "raw": raw,
            "controls": {**default_controls, **(controls or {})},
            "sensor": dict(sensor or {}),
            "display": "main",
            "encode": "main",
        }

    def create_video_configuration(
        self,
        main: dict[str, Any] | None = None,
        lores: dict[str, Any] | None = None,
        raw: dict[str, Any] | None = None,
        transform: Any = None,
        colour_space: Any = None,
        buffer_count: int = 6,
        controls: dict[str, Any] | None = None,
        display: str | None = "main",
        encode: str | None = "main",
        queue: bool = True,
        sensor: dict[str, Any] | None = None,
        use_case: str = "video",
    ) -> dict[str, Any]:
        """A video configuration: XBGR8888 1280x720 and 30 fps unless told."""
        return self._configuration(
            use_case,
            main,
            {"format": "XBGR8888", "size": (1280, 720)},
            controls,
            {"NoiseReductionMode": 1, "FrameDurationLimits": (33333, 33333)},
            buffer_count,
            queue,
            sensor,
            lores,
            raw,
        )

    def create_still_configuration(
        self,
        main: dict[str, Any] | None = None,
        lores: dict[str, Any] | None = None,
        raw: dict[str, Any] | None = None,
        transform: Any = None,
        colour_space: Any = None,
        buffer_count: int = 1,
        controls: dict[str, Any] | None = None,
        display: str | None = None,
        encode: str | None = None,
        queue: bool = True,
        sensor: dict[str, Any] | None = None,
        use_case: str = "still",
    ) -> dict[str, Any]:
        """A still configuration: BGR888 at the full sensor size unless told."""
        return self._configuration(
            use_case,
            main,
            {"format": "BGR888", "size": self._sensor["pixel_array"]},
            controls,
            {"NoiseReductionMode": 2, "FrameDurationLimits": (100, 1000000000)},
            buffer_count,
            queue,
            sensor,
            lores,
            raw,
        )

    def create_preview_configuration(
        self,
        main: dict[str, Any] | None = None,
        lores: dict[str, Any] | None = None,
        raw: dict[str, Any] | None = None,
        buffer_count: int = 4,
        controls: dict[str, Any] | None = None,
        queue: bool = True,
        sensor: dict[str, Any] | None = None,
        **_: Any,
    ) -> dict[str, Any]:
        """A preview configuration: XBGR8888 640x480."""
        return self._configuration(
            "preview",
            main,
            {"format": "XBGR8888", "size": (640, 480)},
            controls,
            {"NoiseReductionMode": 3, "FrameDurationLimits": (100, 83333)},
            buffer_count,
            queue,
            sensor,
            lores,
            raw,
        )

    def _check_controls(self, controls: dict[str, Any]) -> None:
        for name, value in controls.items():
            if name not in self.camera_controls:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")
            if name == "FrameDurationLimits":
                continue  # libcamera clamps it to what the sensor mode can do
            lo, hi, _ = self.camera_controls[name]
            values = value if isinstance(value, tuple | list) else (value,)
            for v in values:
                if isinstance(v, bool) or not isinstance(v, int | float):
                    continue
                if isinstance(lo, int | float) and not isinstance(lo, bool) and v < lo:
                    raise RuntimeError(f"Control {name} value {v} is below its minimum {lo}")
                if isinstance(hi, int | float) and not isinstance(hi, bool) and v > hi:
                    raise RuntimeError(f"Control {name} value {v} is above its maximum {hi}")

    def configure(self, camera_config: Any = "preview") -> None:
        """Take a configuration (a dict from create_*, or "preview"/"still"/"video")."""
        self.calls.append("configure")
        if not self.is_open:
            raise RuntimeError("Camera is not open")
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        if isinstance(camera_config, str):
            camera_config = getattr(self, f"create_{camera_config}_configuration")()
        config = copy.deepcopy(camera_config)
        main = config["main"]
        if main["format"] not in FORMATS:
            raise RuntimeError(f"Format {main['format']} is not supported here")
        width, height = (int(v) for v in main["size"])
        if width <= 0 or height <= 0:
            raise ValueError(f"invalid size {main['size']}")
        full = self._sensor["pixel_array"]
        main["size"] = (min(width - width % 2, full[0]), min(height - height % 2, full[1]))
        self._check_controls(config["controls"])
        modes = sorted(self._sensor["modes"], key=lambda m: m["size"][0] * m["size"][1])
        wanted = config["sensor"].get("output_size")
        if wanted is not None:
            matching = [m for m in modes if tuple(m["size"]) == tuple(wanted)]
            if not matching:
                raise RuntimeError(f"No sensor mode of size {wanted}")
            self._mode = matching[0]
        else:
            w, h = main["size"]
            covering = [m for m in modes if m["size"][0] >= w and m["size"][1] >= h]
            self._mode = covering[0] if covering else modes[-1]
        config["sensor"] = {"output_size": self._mode["size"], "bit_depth": 10}
        self.camera_config = config
        self.controls = dict(config["controls"])

    def camera_configuration(self) -> dict[str, Any] | None:
        """The configuration in force, sizes as the camera adjusted them."""
        return self.camera_config

    def set_controls(self, controls: dict[str, Any]) -> None:
        """Change controls; they apply to the frames that follow."""
        self.calls.append("set_controls")
        self._check_controls(controls)
        with self._cond:
            self.controls.update(controls)

    # --- running ---

    def start(self, config: Any = None, show_preview: bool = False) -> None:
        """Start the camera: frames complete from now on."""
        self.calls.append("start")
        if config is not None:
            self.configure(config)
        if self.camera_config is None:
            raise RuntimeError("Camera has not been configured")
        if self.started:
            return
        self.started = True
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, name="fake-libcamera", daemon=True)
        self._thread.start()

    def _duration_us(self) -> int:
        limits = self.controls.get("FrameDurationLimits", (33333, 33333))
        fastest = round(1e6 / float(self._mode["fps"]))
        return max(int(limits[0]), fastest)

    def _run(self) -> None:
        assert self.camera_config is not None
        queue = bool(self.camera_config["queue"])
        next_t = time.perf_counter()
        seq = 0
        while True:
            next_t += self._duration_us() / 1e6
            delay = next_t - time.perf_counter()
            if delay > 0 and self._stop.wait(delay):
                return
            if self._stop.is_set():
                return
            if delay < -0.5:
                next_t = time.perf_counter()  # fell far behind (a paused machine): resync
            with self._cond:
                if STALL_AFTER is not None and self.stats["delivered"] >= STALL_AFTER:
                    continue
                seq += 1
                self.stats["delivered"] += 1
                record = (seq, time.monotonic_ns(), dict(self.controls))
                if queue or self._waiting:
                    self._pending.append(record)
                else:
                    self.stats["dropped"] += 1
                while len(self._pending) > 1:
                    self._pending.pop(0)
                    self.stats["dropped"] += 1
                self.stats["max_queue"] = max(self.stats["max_queue"], len(self._pending))
                self._cond.notify_all()

    def _next(self, timeout: float | None) -> tuple[int, int, dict[str, Any]]:
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._cond:
            self._waiting += 1
            try:
                while not self._pending:
                    if not self.started:
                        raise RuntimeError("Camera is not running")
                    left = None if deadline is None else deadline - time.monotonic()
                    if left is not None and left <= 0:
                        raise TimeoutError("no frame completed in time")
                    self._cond.wait(left)
                record = self._pending.pop(0)
            finally:
                self._waiting -= 1
        self._last_meta = self._metadata(record)
        return record

    def _metadata(self, record: tuple[int, int, dict[str, Any]]) -> dict[str, Any]:
        _, stamp, controls = record
        duration = self._duration_us()
        auto_exposure = min(16000, duration)
        meta: dict[str, Any] = {
            "SensorTimestamp": stamp,
            "FrameDuration": duration,
            "ExposureTime": min(int(controls.get("ExposureTime", auto_exposure)), duration),
            "AnalogueGain": float(controls.get("AnalogueGain", 2.0)),
            "DigitalGain": 1.0,
            "ColourGains": tuple(controls.get("ColourGains", (1.9, 1.6))),
            "ColourTemperature": int(controls.get("ColourTemperature", 4500)),
            "Lux": 400.0,
        }
        if "LensPosition" in self.camera_controls:
            meta["LensPosition"] = float(controls.get("LensPosition", 1.0))
        return meta

    def _array(self, name: str, record: tuple[int, int, dict[str, Any]]) -> NDArray[Any]:
        assert self.camera_config is not None
        stream = self.camera_config.get(name)
        if not stream:
            raise RuntimeError(f"Stream {name} is not configured")
        width, height = stream["size"]
        fmt = stream["format"]
        controls = record[2]
        level = 120
        if "ExposureTime" in controls:
            gain = float(controls.get("AnalogueGain", 1.0))
            level = int(min(255, round(controls["ExposureTime"] / 10000 * gain * 50)))
        key = (width, height, fmt, level)
        base = self._base.get(key)
        if base is None:
            rgb = np.full((height, width, 3), level, np.uint8)
            rgb[height // 8 : height // 4, width // 8 : width // 4] = (200, 0, 0)  # red
            rgb[height // 8 : height // 4, 5 * width // 8 : 3 * width // 4] = (0, 200, 0)
            memory = rgb[:, :, ::-1] if fmt in ("RGB888", "XRGB8888") else rgb  # B,G,R order
            if FORMATS[fmt] == 4:
                memory = np.dstack([memory, np.full((height, width), 255, np.uint8)])
            base = np.ascontiguousarray(memory)
            self._base = {key: base}
        return base.copy()

    def capture_array(
        self, name: str = "main", wait: Any = None, signal_function: Any = None
    ) -> Any:
        """The next frame of stream ``name``; with ``wait=False`` a job for :meth:`wait`."""
        if not self.started:
            raise RuntimeError("Camera is not running")
        job = Job(name)
        if wait is False:
            return job
        return self.wait(job)

    def wait(self, job: Job, timeout: float | None = None) -> NDArray[Any]:
        """The result of a job, waiting at most ``timeout`` seconds.

        Raises:
            TimeoutError: no frame completed in time.
        """
        if job.result is None:
            job.result = self._array(job.name, self._next(timeout))
        return job.result

    def capture_metadata(self, wait: Any = None, signal_function: Any = None) -> dict[str, Any]:
        """The metadata of the next completed frame."""
        if not self.started:
            raise RuntimeError("Camera is not running")
        return self._metadata(self._next(5.0))

    def stop(self) -> None:
        """Stop the camera; idempotent."""
        self.calls.append("stop")
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join(2.0)
        with self._cond:
            self.started = False
            self._pending.clear()
            self._cond.notify_all()

    def close(self) -> None:
        """Stop and release the camera; idempotent."""
        self.calls.append("close")
        if self.started:
            self.stop()
        if self.is_open:
            self.is_open = False
            _busy.discard(self.camera_num)

    def __enter__(self) -> Picamera2:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
