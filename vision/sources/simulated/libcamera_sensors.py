"""The simulated cameras' hardware, as libcamera reports it to picamera2: each camera's
properties (``global_camera_info``), each sensor's modes and control ranges, and the
controls Raspberry Pi's IPA advertises, in two versions of libcamera. Data for
:mod:`vision.sources.simulated.picamera2`, which cites the sources of each behaviour.

The controls come from Raspberry Pi's libcamera, ``src/ipa/rpi/common/ipa_base.cpp``:
``ipaControls`` (with ``ipaColourControls`` and, for a lens, ``ipaAfControls``) is what
``IpaBase::init`` advertises before any ``configure``; ``IpaBase::configure`` then puts
the sensor mode's ranges in for ``FrameDurationLimits``, ``AnalogueGain`` and
``ExposureTime``. Two versions are modelled (:data:`LIBCAMERA_MODELS`):

- ``"0.5"``: libcamera 0.5 on, as ``ipa_base.cpp`` reads in 2025 (raspberrypi/libcamera
  at 987f5136): ``ExposureTimeMode`` and ``AnalogueGainMode`` (auto 0, manual 1) beside
  ``AeEnable``, which stays advertised (``ControlInfo(false, true, true)``, "\\todo Move
  this to the Camera class": a wrapper that sets both modes); ``ExposureTime``
  ``ControlInfo(1, 66666, 20000)`` at start-up (``defaultExposureTime`` 20 ms),
  ``AnalogueGain`` default 1.0 (``defaultAnalogueGain``), ``FrameDurationLimits``
  default 33333; ``ColourTemperature`` ``ControlInfo(100, 100000)`` in
  ``ipaColourControls`` (``applyControls``: ``awb->setColourTemperature``).
- ``"0.4"``: before 0.5 (``ipa_base.cpp`` at 0110d991): ``AeEnable``, ``ExposureTime``
  ``ControlInfo(0, 66666)`` and ``AnalogueGain`` ``ControlInfo(1.0f, 16.0f)`` without
  defaults; no mode controls and no ``ColourTemperature``.
"""

from __future__ import annotations

from typing import Any

CAMERA_MODULE_3: dict[str, Any] = {
    "Model": "imx708",
    "Location": 2,
    "Rotation": 180,
    "Id": "/base/axi/pcie@120000/rp1/i2c@88000/imx708@1a",
}
CAMERA_MODULE_2: dict[str, Any] = {
    "Model": "imx219",
    "Location": 2,
    "Rotation": 180,
    "Id": "/base/axi/pcie@120000/rp1/i2c@80000/imx219@10",
}
HQ_CAMERA: dict[str, Any] = {
    "Model": "imx477",
    "Location": 2,
    "Rotation": 180,
    "Id": "/base/axi/pcie@120000/rp1/i2c@80000/imx477@1a",
}
USB_WEBCAM: dict[str, Any] = {
    "Model": "HD Pro Webcam C920",
    "Location": 2,
    "Id": "/base/axi/pcie@120000/rp1/usb@200000-1:1.0-046d:082d",
}

LIBCAMERA_0_5 = "0.5"
LIBCAMERA_0_4 = "0.4"
LIBCAMERA_MODELS = (LIBCAMERA_0_5, LIBCAMERA_0_4)
"""The libcamera versions whose advertised controls are modelled (see the module doc)."""

DEFAULT_EXPOSURE_US = 20000
"""``ipa_base.cpp`` ``defaultExposureTime`` (20 ms): libcamera 0.5's ExposureTime default."""
DEFAULT_GAIN = 1.0
"""``ipa_base.cpp`` ``defaultAnalogueGain``: libcamera 0.5's AnalogueGain default."""
DEFAULT_FRAME_US = 33333
"""``ipa_base.cpp`` ``defaultMinFrameDuration`` (1 s / 30): FrameDurationLimits' default."""

_COMMON_CONTROLS: dict[str, tuple[Any, Any, Any]] = {
    "AeMeteringMode": (0, 3, 0),
    "AwbEnable": (False, True, None),
    "AwbMode": (0, 7, 0),
    "Brightness": (-1.0, 1.0, 0.0),
    "ColourGains": (0.0, 32.0, None),
    "Contrast": (0.0, 32.0, 1.0),
    "ExposureValue": (-8.0, 8.0, 0.0),
    "NoiseReductionMode": (0, 4, 0),
    "Saturation": (0.0, 32.0, 1.0),
    "ScalerCrop": ((0, 0, 64, 64), (0, 0, 4608, 2592), (0, 0, 4608, 2592)),
    "Sharpness": (0.0, 16.0, 1.0),
}
_VERSION_CONTROLS: dict[str, dict[str, tuple[Any, Any, Any]]] = {
    LIBCAMERA_0_5: {
        "AeEnable": (False, True, True),
        "ExposureTimeMode": (0, 1, 0),
        "AnalogueGainMode": (0, 1, 0),
        "ColourTemperature": (100, 100000, None),
    },
    LIBCAMERA_0_4: {"AeEnable": (False, True, None)},
}
LENS_POSITION_0_4 = (0.0, 32.0, 1.0)
"""An autofocus camera's LensPosition range before libcamera 0.5: ``ipa_base.cpp``'s
``ipaAfControls``, merged unchanged by ``IpaBase::configure``; 0.5 narrows it to the lens
limits of the camera's tuning file (``af->getLensLimits()``: the sensor's own range)."""
IPA_INIT_FRAME_DURATIONS = (33333, 120000)
"""libcamera's FrameDurationLimits before any configure (ipa_base.cpp's ipaControls)."""
IPA_INIT_EXPOSURE = {LIBCAMERA_0_5: (1, 66666), LIBCAMERA_0_4: (0, 66666)}
"""libcamera's ExposureTime range before any configure (ipa_base.cpp's ipaControls)."""
IPA_INIT_GAIN = (1.0, 16.0)
"""libcamera's AnalogueGain range before any configure (ipa_base.cpp's ipaControls)."""

SENSORS: dict[str, dict[str, Any]] = {
    # Modes and ranges as picamera2 lists them on a Pi 5 (Bookworm), abridged. A mode's
    # "format" is its raw format where it is not the sensor's own (rpicam-hello
    # --list-cameras: the HQ camera's 1332x990 mode is 'SRGGB10_CSI2P', the rest
    # 'SRGGB12_CSI2P'); the sensor's "format" is picamera2's sensor_format, that of
    # its largest mode (_select_native_mode).
    "imx708": {
        "pixel_array": (4608, 2592),
        "format": "SRGGB10_CSI2P",
        "modes": [
            {"size": (1536, 864), "fps": 120.13, "crop_limits": (768, 432, 3072, 1728)},
            {"size": (2304, 1296), "fps": 56.03, "crop_limits": (0, 0, 4608, 2592)},
            {"size": (4608, 2592), "fps": 14.35, "crop_limits": (0, 0, 4608, 2592)},
        ],
        "exposure": (26, 112015443),
        "gain": (1.1228070259094238, 16.0),
        "max_frame_us": 112022056,
        "controls": {
            "AfMode": (0, 2, 0),
            "AfRange": (0, 2, 0),
            "AfTrigger": (0, 1, 0),
            "LensPosition": (0.0, 15.0, 1.0),
        },
    },
    "imx219": {
        "pixel_array": (3280, 2464),
        "format": "SBGGR10_CSI2P",
        "modes": [
            {"size": (640, 480), "fps": 103.33, "crop_limits": (1000, 752, 1280, 960)},
            {"size": (1640, 1232), "fps": 41.85, "crop_limits": (0, 0, 3280, 2464)},
            {"size": (1920, 1080), "fps": 47.57, "crop_limits": (680, 692, 1920, 1080)},
            {"size": (3280, 2464), "fps": 21.19, "crop_limits": (0, 0, 3280, 2464)},
        ],
        "exposure": (75, 11766829),
        "gain": (1.0, 10.666666984558105),
        "max_frame_us": 11767556,
        "controls": {},
    },
    "imx477": {
        "pixel_array": (4056, 3040),
        "format": "SRGGB12_CSI2P",
        "modes": [
            {
                "size": (1332, 990),
                "fps": 120.05,
                "crop_limits": (696, 528, 2664, 1980),
                "format": "SRGGB10_CSI2P",
            },
            {"size": (2028, 1080), "fps": 50.03, "crop_limits": (0, 440, 4056, 2160)},
            {"size": (2028, 1520), "fps": 40.01, "crop_limits": (0, 0, 4056, 3040)},
            {"size": (4056, 3040), "fps": 10.0, "crop_limits": (0, 0, 4056, 3040)},
        ],
        "exposure": (31, 667234896),
        "gain": (1.0, 22.2608699798584),
        "max_frame_us": 667245050,
        "controls": {},
    },
    "uvc": {
        "pixel_array": (1920, 1080),
        "formats": ["MJPEG", "YUYV"],
        "modes": [{"size": (1920, 1080), "fps": 30.0, "crop_limits": (0, 0, 1920, 1080)}],
        "exposure": (1, 2047),
        "gain": (1.0, 1.0),
        "max_frame_us": 200000,
        "controls": {"Brightness": (-1.0, 1.0, 0.0), "Contrast": (0.0, 2.0, 1.0)},
    },
}
SENSOR_OF_MODEL = {"imx708": "imx708", "imx219": "imx219", "imx477": "imx477"}


def sensor(info: dict[str, Any]) -> dict[str, Any]:
    """The sensor of a camera described as ``global_camera_info`` lists it (a USB one: "uvc")."""
    return SENSORS[SENSOR_OF_MODEL.get(str(info["Model"]), "uvc")]


def is_usb(info: dict[str, Any]) -> bool:
    """A USB camera: ``"/usb"`` in its ``Id`` (picamera2 sorts those last)."""
    return "/usb" in str(info["Id"])


def bit_depth(fmt: str) -> int:
    """A raw Bayer format's bits per pixel: SRGGB10_CSI2P -> 10 (picamera2's SensorFormat)."""
    return int(fmt.split("_")[0][-2:])


def mode_format(cam: dict[str, Any], mode: dict[str, Any]) -> str:
    """A sensor mode's raw format: its own, else the sensor's."""
    return str(mode.get("format", cam["format"]))


def min_frame_us(mode: dict[str, Any]) -> int:
    """A sensor mode's shortest frame duration in microseconds, from its fps."""
    return round(1e6 / float(mode["fps"]))


def advertised_controls(
    info: dict[str, Any], mode: dict[str, Any] | None, libcamera: str = LIBCAMERA_0_5
) -> dict[str, tuple[Any, Any, Any]]:
    """The controls libcamera ``libcamera`` (a :data:`LIBCAMERA_MODELS` version) advertises
    for camera ``info``: name -> (min, max, default). Before a mode is configured (``mode``
    None) ``IpaBase::init``'s ``ipaControls``; then ``IpaBase::configure``'s, with the
    mode's frame duration, gain and exposure ranges and its ``ScalerCrop`` limits. A USB
    camera advertises its own controls only."""
    cam = sensor(info)
    if is_usb(info):
        return dict(cam["controls"])
    if libcamera not in _VERSION_CONTROLS:
        raise ValueError(f"libcamera model {libcamera!r}: expected one of {LIBCAMERA_MODELS}")
    controls = {**_COMMON_CONTROLS, **_VERSION_CONTROLS[libcamera], **cam["controls"]}
    if (libcamera == LIBCAMERA_0_4 or mode is None) and "LensPosition" in controls:
        # 0.5 narrows it to the lens limits in IpaBase::configure, not before
        controls["LensPosition"] = LENS_POSITION_0_4
    if mode is None:
        frames, exposure = IPA_INIT_FRAME_DURATIONS, IPA_INIT_EXPOSURE[libcamera]
        gain = IPA_INIT_GAIN
    else:
        frames = (min_frame_us(mode), cam["max_frame_us"])
        exposure, gain = cam["exposure"], cam["gain"]
    new = libcamera == LIBCAMERA_0_5  # 0.5's ControlInfo carry defaults
    controls["FrameDurationLimits"] = (frames[0], frames[1], DEFAULT_FRAME_US if new else None)
    controls["ExposureTime"] = (exposure[0], exposure[1], DEFAULT_EXPOSURE_US if new else None)
    controls["AnalogueGain"] = (gain[0], gain[1], DEFAULT_GAIN if new else None)
    if mode is not None:
        controls["ScalerCrop"] = (
            (0, 0, 64, 64),
            tuple(mode["crop_limits"]),
            tuple(mode["crop_limits"]),
        )
    return dict(sorted(controls.items()))
