"""The libcamera controls a ``[camera]`` section fixes on a Pi camera, each checked against
the ranges the camera advertises (picamera2's ``camera_controls``) before any is set, for
:class:`~vision.sources.picamera.Picamera2Source`.

Exposure and gain are two automatic algorithms from libcamera 0.5 on (Raspberry Pi's
``src/ipa/rpi/common/ipa_base.cpp`` ``IpaBase::applyControls``: ``ExposureTimeMode``
manual -> ``agc->disableAutoExposure()``, ``AnalogueGainMode`` manual ->
``disableAutoGain()``, each on its own; ``AeEnable`` stays advertised but is only a
wrapper, which libcamera 0.5.0 ignored: "Ctrl AeEnable is not handled", picamera2 issue
#1269). A fixed exposure alone leaves the gain following what the camera sees, and the
tray's brightness with it, throw after throw. So with ``exposure_us`` both modes are sent
manual where libcamera advertises them, else (before 0.5) ``AeEnable`` false, whose
``agc->disableAuto()`` fixes both. And a gain is always sent with it: fixing the gain
without a value keeps the one the AGC has at that moment (``agc_channel.cpp``
``AgcChannel::disableAutoGain``: ``fixedAnalogueGain_ = status_.analogueGain``, the
tuning's default at the first start, the last automatic gain after), which differs
from one start to the next. When ``gain`` is not set that is :data:`DEFAULT_GAIN`.

A colour gain of 0 would switch white balance back to automatic (``applyControls``
``COLOUR_GAINS``): :data:`vision.settings.COLOUR_GAIN` refuses it in the config.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from typing import Any

from vision.settings import CameraConfig, CameraOptionError, frame_time_us

DEFAULT_GAIN = 1.0
"""The analogue gain fixed with ``exposure_us`` when ``gain`` is not set: none (libcamera's
``defaultAnalogueGain``), or the camera's lowest when that is higher (a Camera Module 3's
is 1.12)."""
AF_MODE_MANUAL = 0
"""libcamera's ``controls.AfModeEnum.Manual``, when the libcamera module is not importable."""
MODE_MANUAL = 1
"""libcamera's ``ExposureTimeModeManual`` and ``AnalogueGainModeManual`` (libcamera 0.5 on)."""

Ranges = Mapping[str, tuple[Any, Any, Any]]
"""picamera2's ``camera_controls``: control name -> (min, max, default)."""


def _af_manual() -> Any:
    try:
        return importlib.import_module("libcamera").controls.AfModeEnum.Manual
    except (ImportError, AttributeError):
        return AF_MODE_MANUAL


def _num(value: Any) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_control(
    known: Ranges, camera: str, option: str, control: str, value: Any, hint: str = ""
) -> None:
    """Raise unless ``camera`` advertises ``control`` and ``value`` is in its range.

    Raises:
        CameraOptionError: naming ``option``: the camera lacks the control, or its range
            does not hold the value.
    """
    if control not in known:
        raise CameraOptionError(
            option,
            camera,
            f"is {_num(value) if not isinstance(value, tuple) else list(value)}, but "
            f"{camera} has no {control} control{hint}; leave the option out",
        )
    lo, hi = known[control][0], known[control][1]
    values = value if isinstance(value, tuple) else (value,)
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int | float):
            continue
        low_ok = not isinstance(lo, int | float) or v >= lo
        high_ok = not isinstance(hi, int | float) or v <= hi
        if not (low_ok and high_ok):
            shown = list(value) if isinstance(value, tuple) else _num(value)
            raise CameraOptionError(
                option,
                camera,
                f"is {shown}, outside the {_num(lo)}..{_num(hi)} {camera} takes for {control}",
            )


def fixed_controls(
    config: CameraConfig, known: Ranges, camera: str
) -> tuple[dict[str, Any], float | None]:
    """The controls ``config`` fixes, each checked against ``known``, and the gain fixed
    with ``exposure_us`` that ``gain`` did not ask (None: none was).

    Raises:
        CameraOptionError: a control the camera lacks or a value outside its range.
    """
    c = config
    frame = frame_time_us(c.fps)
    controls: dict[str, Any] = {"FrameDurationLimits": (frame, frame)}
    gain, default_gain = c.gain, None
    if c.gain is not None:
        check_control(known, camera, "gain", "AnalogueGain", c.gain)
    if c.exposure_us is not None:
        check_control(known, camera, "exposure_us", "ExposureTime", c.exposure_us)
        controls["ExposureTime"] = c.exposure_us
        if "ExposureTimeMode" in known:  # libcamera 0.5 on
            controls["ExposureTimeMode"] = MODE_MANUAL
        elif "AeEnable" in known:  # before 0.5: disableAuto() fixes exposure and gain
            controls["AeEnable"] = False
        if gain is None and "AnalogueGain" in known:  # the gain is fixed too, at a value
            lo, hi = known["AnalogueGain"][0], known["AnalogueGain"][1]
            gain = default_gain = float(min(max(DEFAULT_GAIN, lo), hi))
    if gain is not None:
        controls["AnalogueGain"] = gain
        if "AnalogueGainMode" in known:  # libcamera 0.5 on: an algorithm of its own
            controls["AnalogueGainMode"] = MODE_MANUAL
    if c.colour_gains is not None:
        check_control(known, camera, "colour_gains", "ColourGains", c.colour_gains)
        controls["ColourGains"] = c.colour_gains
    if c.white_balance is not None:
        check_control(
            known,
            camera,
            "white_balance",
            "ColourTemperature",
            c.white_balance,
            " (use colour_gains)",
        )
        controls["ColourTemperature"] = c.white_balance
    if (c.colour_gains is not None or c.white_balance is not None) and "AwbEnable" in known:
        controls["AwbEnable"] = False
    if c.lens_position is not None:
        check_control(
            known,
            camera,
            "lens_position",
            "LensPosition",
            c.lens_position,
            " (a fixed-focus module)",
        )
        controls["LensPosition"] = c.lens_position
        if "AfMode" in known:
            controls["AfMode"] = _af_manual()
    return controls, default_gain
