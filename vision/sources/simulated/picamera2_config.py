"""picamera2's configuration builders (its ``picamera2.py``, release 0.3.38), for the
simulated :mod:`vision.sources.simulated.picamera2`: ``Picamera2`` inherits them.

- ``create_video/still/preview_configuration``: picamera2's defaults (video
  ``XBGR8888`` 1280x720, 6 buffers, ``FrameDurationLimits`` 33333 and
  ``NoiseReductionMode`` only if the camera advertises them), ``sensor=``.
- The sensor mode a configuration gets (``configure_``): ``sensor={"output_size",
  "bit_depth"}`` picks that mode exactly, or the configuration is invalid
  (``RuntimeError("Invalid camera configuration: ...")``).
"""

from __future__ import annotations

from typing import Any


class ConfigurationBuilders:
    """picamera2's ``create_*_configuration`` and the sensor mode a configuration picks."""

    _sensor: dict[str, Any]
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
    ) -> dict[str, Any]:
        advertised = self.camera_ctrl_info
        defaults = (
            default_controls
            if "NoiseReductionMode" in advertised and "FrameDurationLimits" in advertised
            else {}
        )
        return {
            "use_case": use_case,
            "transform": None,
            "colour_space": "Rec709" if use_case == "video" else "Sycc",
            "buffer_count": buffer_count,
            "queue": queue,
            "main": {**default_main, **(main or {})},
            "lores": lores,
            "raw": raw,
            "controls": {**defaults, **(controls or {})},
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
        )

    def create_preview_configuration(
        self,
        main: dict[str, Any] | None = None,
        lores: dict[str, Any] | None = None,
        raw: dict[str, Any] | None = None,
        transform: Any = None,
        colour_space: Any = None,
        buffer_count: int = 4,
        controls: dict[str, Any] | None = None,
        display: str | None = "main",
        encode: str | None = "main",
        queue: bool = True,
        sensor: dict[str, Any] | None = None,
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
        )

    def _pick_mode(self, config: dict[str, Any]) -> dict[str, Any]:
        modes = sorted(self._sensor["modes"], key=lambda m: m["size"][0] * m["size"][1])
        wanted = config["sensor"].get("output_size") or (config["raw"] or {}).get("size")
        if wanted is not None:
            exact = [m for m in modes if tuple(m["size"]) == tuple(wanted)]
            if not exact:  # libcamera's validate() says Invalid (configure_)
                raise RuntimeError(f"Invalid camera configuration: {config}")
            return dict(exact[0])
        # libcamera's RPi pipeline scores the modes against the output size; the
        # smallest mode covering it is what that scoring picks for these sensors.
        width, height = config["main"]["size"]
        covering = [m for m in modes if m["size"][0] >= width and m["size"][1] >= height]
        return dict(covering[0] if covering else modes[-1])
