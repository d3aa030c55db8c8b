"""picamera2's configuration builders and checks (its ``picamera2.py``, release 0.3.38),
for the simulated :mod:`vision.sources.simulated.picamera2`: ``Picamera2`` inherits them.

- ``create_video/still/preview_configuration``: picamera2's defaults (video
  ``XBGR8888`` 1280x720, 6 buffers, ``FrameDurationLimits`` 33333 and
  ``NoiseReductionMode`` only if the camera advertises them), ``sensor=``. Each
  stream goes through ``_make_initial_stream_config`` (keys ``format``, ``size``,
  ``stride``, ``preserve_ar``, else ``ValueError("Bad key ...")``; a raw stream may
  also carry a sensor mode's other keys, ignored), the main and lores streams through
  ``align_stream(optimal=False)`` (even sizes); a Pi camera gets a raw stream by
  default (``raw={}``: the sensor's format at the main size), a USB camera no raw
  stream and no ``sensor`` entry. The video colour space is ``Smpte170m`` below
  1280x720, else ``Rec709`` (libcamera's ``ColorSpace`` objects are named here).
- ``check_stream_config`` (from ``configure_`` -> ``check_camera_config``): a main or
  lores format neither YUV nor RGB (``formats.py``'s ``YUV_FORMATS``, ``RGB_FORMATS``)
  nor "MJPEG" is "Bad format X in stream main", a raw one not Bayer nor mono
  "Unrecognised raw format X"; odd sizes "width and height should be even".
- The sensor mode a configuration gets (``_make_libcamera_config``): picamera2 scores
  every raw mode with ``score_mode`` ("copies how libcamera scores modes": each mode's
  own bit depth, ``SensorFormat(mode['format']).bit_depth``) against the ``sensor``
  entry's ``output_size`` and ``bit_depth``, else the raw stream's, else the main size
  and the sensor's own depth, and asks libcamera for the best: a size no mode has gets
  the nearest mode, never a refusal.
"""

from __future__ import annotations

from typing import Any

from vision.sources.simulated.libcamera_sensors import bit_depth, is_usb, mode_format

_EMPTY: dict[str, Any] = {}
"""picamera2's ``raw={}`` and ``sensor={}`` defaults (read, never written)."""
_STREAM_KEYS = ("format", "size", "stride", "preserve_ar")
_RAW_IGNORED = ("bit_depth", "crop_limits", "exposure_limits", "fps", "unpacked")
YUV_FORMATS = {"NV21", "NV12", "YUV420", "YVU420", "YVYU", "YUYV", "UYVY", "VYUY"}
"""picamera2's ``formats.py`` ``YUV_FORMATS``."""
RGB_FORMATS = {"BGR888", "RGB888", "XBGR8888", "XRGB8888", "RGB161616", "BGR161616"}
"""picamera2's ``formats.py`` ``RGB_FORMATS``."""


def _is_raw(fmt: str) -> bool:
    """``formats.is_raw``: a Bayer (``S????NN[_CSI2P]``, ``*_PISP_COMP1``) or mono format."""
    bayer = fmt.startswith(("SBGGR", "SGBRG", "SGRBG", "SRGGB")) or fmt.endswith("_PISP_COMP1")
    return bayer or fmt.split("_")[0] in ("R8", "R10", "R12", "R16")


def _stream(
    default: dict[str, Any], updates: dict[str, Any] | None, ignored: tuple[str, ...] = ()
) -> dict[str, Any] | None:
    """``_make_initial_stream_config``: the default stream with the caller's keys.

    Raises:
        ValueError: a key a stream does not have.
    """
    if updates is None:
        return None
    for key, value in updates.items():
        if key in _STREAM_KEYS:
            default[key] = value if key != "format" else str(value)
        elif key not in ignored:
            raise ValueError(f"Bad key {key!r}: valid stream configuration keys are {_STREAM_KEYS}")
    return default


def _align(stream: dict[str, Any] | None) -> None:
    """``align_stream(stream, optimal=False)``: width and height made even."""
    if stream is not None:
        width, height = stream["size"]
        stream["size"] = (width - width % 2, height - height % 2)


def _score(mode_size: tuple[int, int], depth: int, mode_depth: int, size: Any) -> float:
    """picamera2 0.3.38 ``_make_libcamera_config``'s ``score_mode``: lower is better."""

    def score_format(desired: float, actual: float) -> float:
        score = desired - actual
        return -score / 4 if score < 0 else score * 2

    ratio, mode_ratio = size[0] / size[1], mode_size[0] / mode_size[1]
    score = score_format(size[0], mode_size[0]) + score_format(size[1], mode_size[1])
    score += 1500 * score_format(ratio, mode_ratio)
    return score + 500 * abs(depth - mode_depth)


class ConfigurationBuilders:
    """picamera2's ``create_*_configuration``, ``check_stream_config`` and the sensor mode a
    configuration picks."""

    _sensor: dict[str, Any]
    _info: dict[str, Any]
    camera_ctrl_info: dict[str, tuple[Any, Any, Any]]

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
        colour_space: Any,
        display: str | None,
        encode: str | None,
    ) -> dict[str, Any]:
        advertised = self.camera_ctrl_info
        defaults = (
            default_controls
            if "NoiseReductionMode" in advertised and "FrameDurationLimits" in advertised
            else {}
        )
        if is_usb(self._info):  # "USB cams can't deliver a raw stream."
            raw = sensor = None
        main_stream = _stream({**default_main, "preserve_ar": True}, main or {})
        assert main_stream is not None
        _align(main_stream)
        size = main_stream["size"]
        lores_stream = _stream({"format": "YUV420", "size": size, "preserve_ar": False}, lores)
        _align(lores_stream)
        raw_stream = _stream(
            {"format": self._sensor.get("format"), "size": size}, raw, _RAW_IGNORED
        )
        if colour_space is None:  # create_video_configuration: by the video's size
            colour_space = "Smpte170m" if size[0] < 1280 or size[1] < 720 else "Rec709"
        config = {
            "use_case": use_case,
            "transform": None,
            "colour_space": colour_space,
            "buffer_count": buffer_count,
            "queue": queue,
            "main": main_stream,
            "lores": lores_stream,
            "raw": raw_stream,
            "controls": {**defaults, **(controls or {})},
            "sensor": None if sensor is None else dict(sensor),
        }
        for what, role in (("Display", display), ("Encode", encode)):  # _add_display_and_encode
            if role is not None and config.get(role) is None:
                raise RuntimeError(f"{what} stream {role} was not defined")
        return {**config, "display": display, "encode": encode}

    def create_video_configuration(
        self,
        main: dict[str, Any] | None = None,
        lores: dict[str, Any] | None = None,
        raw: dict[str, Any] | None = _EMPTY,
        transform: Any = None,
        colour_space: Any = None,
        buffer_count: int = 6,
        controls: dict[str, Any] | None = None,
        display: str | None = "main",
        encode: str | None = "main",
        queue: bool = True,
        sensor: dict[str, Any] | None = _EMPTY,
        use_case: str = "video",
    ) -> dict[str, Any]:
        """``create_video_configuration``: XBGR8888 1280x720 at 30 fps unless told."""
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
            colour_space,
            display,
            encode,
        )

    def create_still_configuration(
        self,
        main: dict[str, Any] | None = None,
        lores: dict[str, Any] | None = None,
        raw: dict[str, Any] | None = _EMPTY,
        transform: Any = None,
        colour_space: Any = "Sycc",
        buffer_count: int = 1,
        controls: dict[str, Any] | None = None,
        display: str | None = None,
        encode: str | None = None,
        queue: bool = True,
        sensor: dict[str, Any] | None = _EMPTY,
        use_case: str = "still",
    ) -> dict[str, Any]:
        """``create_still_configuration``: BGR888 at the full sensor size unless told."""
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
            colour_space,
            display,
            encode,
        )

    def create_preview_configuration(
        self,
        main: dict[str, Any] | None = None,
        lores: dict[str, Any] | None = None,
        raw: dict[str, Any] | None = _EMPTY,
        transform: Any = None,
        colour_space: Any = "Sycc",
        buffer_count: int = 4,
        controls: dict[str, Any] | None = None,
        display: str | None = "main",
        encode: str | None = "main",
        queue: bool = True,
        sensor: dict[str, Any] | None = _EMPTY,
        use_case: str = "preview",
    ) -> dict[str, Any]:
        """``create_preview_configuration``: XBGR8888 640x480 unless told."""
        return self._configuration(
            use_case,
            main,
            {"format": "XBGR8888", "size": (640, 480)},
            controls,
            {"NoiseReductionMode": 3, "FrameDurationLimits": (100, 83333)},
            buffer_count,
            queue,
            sensor,
            lores,
            raw,
            colour_space,
            display,
            encode,
        )

    @staticmethod
    def check_stream_config(stream_config: Any, name: str) -> None:
        """``check_stream_config``: one stream's keys, format and size.

        Raises:
            RuntimeError: picamera2's message for the first thing wrong.
        """
        if type(stream_config) is not dict:
            raise RuntimeError(name + " stream should be a dictionary")
        for key in ("format", "size"):
            if key not in stream_config:
                raise RuntimeError(f"{key} not found in {name} stream")
        fmt = stream_config["format"]
        if type(fmt) is not str:
            raise RuntimeError("format in " + name + " stream should be a string")
        if name == "raw":
            if not _is_raw(fmt):
                raise RuntimeError("Unrecognised raw format " + fmt)
        elif fmt not in YUV_FORMATS and fmt not in RGB_FORMATS and fmt != "MJPEG":
            raise RuntimeError("Bad format " + fmt + " in stream " + name)
        size = stream_config["size"]
        if type(size) is not tuple or len(size) != 2:
            raise RuntimeError("size in " + name + " stream should be (width, height)")
        if size[0] % 2 or size[1] % 2:
            raise RuntimeError("width and height should be even")

    def _pick_mode(self, config: dict[str, Any]) -> dict[str, Any]:
        """The sensor mode ``_make_libcamera_config`` asks libcamera for: the best
        ``score_mode`` against the ``sensor`` entry, else the raw stream, else the main
        size (a USB camera: libcamera's UVC pipeline, the smallest mode covering it)."""
        modes: list[dict[str, Any]] = self._sensor["modes"]
        if is_usb(self._info):
            width, height = config["main"]["size"]
            covering = [m for m in modes if m["size"][0] >= width and m["size"][1] >= height]
            return dict(covering[0] if covering else modes[-1])
        sensor, raw = config.get("sensor") or {}, config.get("raw")
        fmt = self._sensor["format"]
        if sensor.get("bit_depth") is not None:
            depth = int(sensor["bit_depth"])
        elif raw is not None and "format" in raw:
            depth = bit_depth(str(raw["format"]))
        else:
            depth = bit_depth(fmt)
        if sensor.get("output_size") is not None:
            size = sensor["output_size"]
        elif raw is not None and "size" in raw:
            size = raw["size"]
        else:
            size = config["main"]["size"]
        cam = self._sensor

        def score(m: dict[str, Any]) -> float:
            return _score(m["size"], depth, bit_depth(mode_format(cam, m)), size)

        best = min(modes, key=score)
        return dict(best)
