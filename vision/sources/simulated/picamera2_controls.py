"""picamera2's ``Controls`` (its ``controls.py``, releases 0.3.21 to 0.3.38) and
libcamera's clamping of the values it is handed, for the simulated
:mod:`vision.sources.simulated.picamera2`.

- ``Controls.__setattr__`` (``controls.py``): a control the camera does not
  advertise raises ``RuntimeError`` "Control X is not advertised by libcamera" (the
  wording of every release from 0.3.21, the oldest the source accepts; an older
  ``controls.py``, raspberrypi/picamera2 at 007f21a, said "advertied": the source
  relies on the exception type only, and checks the controls against
  ``camera_controls`` before it sets any); values are not range-checked there
  (libcamera clamps them to the ``ControlInfo`` range, which ``clamped`` does too).
  ``FrameRate`` is picamera2's virtual control (``_VIRTUAL_FIELDS_MAP_``): set as
  ``FrameDurationLimits`` (``_framerates_to_durations_``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from vision.sources.simulated.picamera2 import Picamera2


class Controls:
    """picamera2's ``Controls`` (``controls.py``): only advertised controls are accepted."""

    def __init__(self, picam2: Picamera2, controls: dict[str, Any] | None = None) -> None:
        self._picam2 = picam2
        self._values: dict[str, Any] = {}
        self.set_controls(controls or {})

    def set_controls(self, controls: dict[str, Any]) -> None:
        """Raises RuntimeError for a control libcamera does not advertise (``__setattr__``)."""
        for name, value in controls.items():
            if name == "FrameRate":  # a rate or a (min, max) pair of rates
                rates = value if isinstance(value, tuple | list) else (value, value)
                name, value = "FrameDurationLimits", (int(1e6 / rates[1]), int(1e6 / rates[0]))
            if name not in self._picam2.camera_ctrl_info:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")
            self._values[name] = value

    def make_dict(self) -> dict[str, Any]:
        """The controls set, by name."""
        return dict(self._values)


def clamped(controls: dict[str, Any], ctrl_info: dict[str, tuple[Any, Any, Any]]) -> dict[str, Any]:
    """What libcamera applies: numbers clamped to the control's ControlInfo range."""
    out: dict[str, Any] = {}
    for name, value in controls.items():
        lo, hi, _ = ctrl_info[name]

        def clamp(v: Any, lo: Any = lo, hi: Any = hi) -> Any:
            if isinstance(v, bool) or not isinstance(v, int | float):
                return v
            if isinstance(lo, int | float) and not isinstance(lo, bool):
                v = max(v, lo)
            if isinstance(hi, int | float) and not isinstance(hi, bool):
                v = min(v, hi)
            return v

        out[name] = (
            tuple(clamp(v) for v in value) if isinstance(value, tuple | list) else clamp(value)
        )
    return out
