"""libcamera's exposure and gain control (AGC) for the simulated camera: which of the
exposure time and the analogue gain are fixed, at what, and what the automatic ones
become under the scene the AGC meters. For :mod:`vision.sources.simulated.picamera2`.

Written after Raspberry Pi's libcamera:

- ``src/ipa/rpi/common/ipa_base.cpp`` ``IpaBase::applyControls`` (run by ``IpaBase::start``
  with the controls the camera starts with, and for each request). libcamera 0.5 on
  (raspberrypi/libcamera at 987f5136): the two modes are handled first and separately,
  ``AnalogueGainMode`` manual -> ``agc->disableAutoGain()``, auto ->
  ``enableAutoGain()``, ``ExposureTimeMode`` -> ``disableAutoExposure()`` /
  ``enableAutoExposure()``; then ``EXPOSURE_TIME`` is ignored while auto exposure runs,
  else ``setFixedExposureTime``, and ``ANALOGUE_GAIN`` likewise with the gain
  (``setFixedAnalogueGain``); ``AE_ENABLE`` does nothing there ("now just a wrapper that
  will already have been converted to ExposureTimeMode and AnalogueGainMode").
  Before 0.5 (at 0110d991): ``AE_ENABLE`` false -> ``agc->disableAuto()``, true ->
  ``enableAuto()``; ``EXPOSURE_TIME`` -> ``setFixedShutter``; ``ANALOGUE_GAIN`` ->
  ``setFixedAnalogueGain``: a fixed exposure alone leaves the gain automatic there too.
- ``src/libcamera/camera.cpp``: the ``AeEnable`` wrapper ("Pre-process AeEnable",
  ``Camera::queueRequest`` in 0.5.x, later ``Camera::patchControlList``, called from
  ``start()`` too): ``AeEnable`` sets ``AnalogueGainMode`` and ``ExposureTimeMode``
  (manual for false, auto for true) where the camera advertises them and the list does
  not already hold them. The simulation applies it at start as the later versions do
  (libcamera 0.5.0 did not, and its IPA logged "Ctrl AeEnable is not handled":
  picamera2 issue #1269).
- ``src/ipa/rpi/controller/rpi/agc_channel.cpp``: ``disableAutoGain`` keeps the gain the
  AGC has *now* (``fixedAnalogueGain_ = status_.analogueGain``), ``disableAutoExposure``
  the exposure time; before 0.5 ``disableAuto`` keeps both. ``status_`` starts at the
  tuning's defaults (``AgcChannel::read``: "in case AGC starts disabled"; ``AgcConfig::
  read``: 1000 µs and gain 1.0 unless the tuning file says) and follows
  the AGC afterwards, so a manual mode without a value fixes whatever the AGC last
  chose. ``setFixedExposureTime``/``setFixedAnalogueGain`` also set ``status_`` ("in
  case someone calls disableAuto() straight after"): the order of the controls in a
  list does not matter. A value of 0 means automatic (``autoGainEnabled``:
  ``fixedAnalogueGain_ == 0``).

The AGC itself is simplified: it reaches its target at once (the real one converges
over some frames), aiming the metered scene at :data:`TARGET_LEVEL`, exposure first (up
to the frame duration) and the rest as gain (``divideUpExposure``, much simplified).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from vision.sources.simulated.libcamera_sensors import LIBCAMERA_0_5

AGC_START_EXPOSURE_US = 1000.0
"""The AGC's first status exposure: ``AgcConfig::read`` ``default_exposure_time``, 1000 µs
unless the tuning says ("Start with quite a low value as ramping up is easier")."""
AGC_START_GAIN = 1.0
"""The AGC's first status gain: ``AgcConfig::read`` ``default_analogue_gain``, 1.0."""
TARGET_LEVEL = 120
"""The 8-bit grey the AGC aims the metered scene at."""
LEVEL_PER_US_GAIN = 50 / 10000
"""The tray's 8-bit grey per microsecond of exposure at gain 1 (the table's lamp is
constant: the tray's grey is this times exposure times gain)."""


def tray_level(exposure_us: float, gain: float) -> int:
    """The tray's 8-bit grey in a frame taken at ``exposure_us`` and ``gain``."""
    return int(min(255, round(exposure_us * gain * LEVEL_PER_US_GAIN)))


@dataclass
class Agc:
    """``AgcChannel``'s fixed values (0: automatic) and its status (the last values)."""

    fixed_exposure_us: float = 0.0
    fixed_gain: float = 0.0
    status_exposure_us: float = AGC_START_EXPOSURE_US
    status_gain: float = AGC_START_GAIN

    def apply(
        self,
        controls: dict[str, Any],
        advertised: dict[str, tuple[Any, Any, Any]],
        libcamera: str,
    ) -> None:
        """``IpaBase::applyControls`` for the AGC (``Camera``'s AeEnable wrapper first)."""
        if libcamera != LIBCAMERA_0_5:
            ae = controls.get("AeEnable")
            if ae is not None:  # disableAuto() / enableAuto()
                if ae:
                    self.fixed_exposure_us, self.fixed_gain = 0.0, 0.0
                else:
                    self.fixed_exposure_us = self.status_exposure_us
                    self.fixed_gain = self.status_gain
            self._fix(controls, exposure=True, gain=True)
            return
        controls = dict(controls)
        ae = controls.get("AeEnable")
        if ae is not None:  # camera.cpp: AeEnable sets the modes not already given
            for mode in ("AnalogueGainMode", "ExposureTimeMode"):
                if mode in advertised:
                    controls.setdefault(mode, 0 if ae else 1)
        gain_mode = controls.get("AnalogueGainMode")
        exposure_mode = controls.get("ExposureTimeMode")
        if gain_mode is not None:  # disableAutoGain() / enableAutoGain()
            self.fixed_gain = self.status_gain if gain_mode == 1 else 0.0
        if exposure_mode is not None:  # disableAutoExposure() / enableAutoExposure()
            self.fixed_exposure_us = self.status_exposure_us if exposure_mode == 1 else 0.0
        # EXPOSURE_TIME / ANALOGUE_GAIN: ignored while that automatic algorithm runs
        self._fix(controls, exposure=self.fixed_exposure_us != 0, gain=self.fixed_gain != 0)

    def _fix(self, controls: dict[str, Any], exposure: bool, gain: bool) -> None:
        """``setFixedExposureTime`` / ``setFixedAnalogueGain``: the value, and the status."""
        if exposure and "ExposureTime" in controls:
            self.fixed_exposure_us = float(controls["ExposureTime"])
            if self.fixed_exposure_us:
                self.status_exposure_us = self.fixed_exposure_us
        if gain and "AnalogueGain" in controls:
            self.fixed_gain = float(controls["AnalogueGain"])
            if self.fixed_gain:
                self.status_gain = self.fixed_gain

    def expose(
        self,
        scene: float,
        frame_us: float,
        exposure_range: tuple[float, float],
        gain_range: tuple[float, float],
    ) -> tuple[int, float]:
        """One frame's (exposure time, analogue gain): the fixed ones, and for the automatic
        ones what aims the metered scene (``scene`` times the tray's grey) at
        :data:`TARGET_LEVEL`. Both are limited to what the sensor mode takes, the exposure
        also to the frame duration. The status follows (``AgcChannel::process``)."""
        e_lo, e_hi = exposure_range[0], min(exposure_range[1], frame_us)
        g_lo, g_hi = gain_range
        wanted = TARGET_LEVEL / (LEVEL_PER_US_GAIN * max(scene, 1e-6))  # exposure x gain
        gain = self.fixed_gain or g_lo
        if self.fixed_exposure_us:
            exposure = self.fixed_exposure_us
        else:
            exposure = wanted / gain
        exposure = min(max(exposure, e_lo), e_hi)
        if not self.fixed_gain:
            gain = wanted / exposure
        gain = min(max(gain, g_lo), g_hi)
        self.status_exposure_us, self.status_gain = exposure, gain
        return int(exposure), float(gain)
